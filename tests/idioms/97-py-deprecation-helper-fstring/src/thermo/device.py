import logging
import warnings

from ._compat import renamed, warn_deprecated

log = logging.getLogger(__name__)


class Thermostat:
    def __init__(self, room, unit="C"):
        self.room = room
        if unit != "C":
            warn_deprecated(f"unit={unit!r}", "4.0", "unit='C' and convert on display")
        self.target = 20.0

    def set_target(self, celsius=None, *, temp=None):
        if temp is not None:
            warn_deprecated("the 'temp' argument of set_target()", "4.2", "celsius")
            celsius = temp
        if not 5 <= celsius <= 30:
            warnings.warn(f"{self.room}: target {celsius:.1f} C is outside 5..30 C, clamped", RuntimeWarning)
            celsius = min(max(celsius, 5.0), 30.0)
        self.target = celsius
        log.info("%s: target set to %.1f C", self.room, celsius)

    def schedule(self, slots):
        log.info("%s: %d schedule slots", self.room, len(slots))

    setSchedule = renamed("setSchedule", "4.1")(schedule)
