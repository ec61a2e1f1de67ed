import warnings

from . import units


class Track:
    def __init__(self, points):
        self.points = points
        self.open = True

    @property
    def length(self):
        warnings.warn("Track.length is ambiguous; use length_km or length_mi", PendingDeprecationWarning, stacklevel=2)
        return len(self.points)

    def length_mi(self):
        return units.km_to_mi(units.haversine_km(self.points[0], self.points[-1]))

    def __del__(self):
        if self.open:
            warnings.warn(f"unclosed track with {len(self.points)} points", ResourceWarning)
