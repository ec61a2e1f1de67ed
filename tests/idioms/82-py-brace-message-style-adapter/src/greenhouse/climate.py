from .logs import get_logger

log = get_logger(__name__)


class Sensor:
    def __init__(self, bay, kind):
        self.bay = bay
        self.kind = kind

    def __repr__(self):
        return f"<Sensor {self.kind}@{self.bay}>"


class Controller:
    def __init__(self, house, target):
        self.house = house
        self.target = target
        log.info("controller for {house} aims at {target:.1f} C", house=house, target=target)

    def reading(self, sensor, value):
        log.debug("{!r} reads {:.2f}", sensor, value)
        delta = value - self.target
        if abs(delta) > 3:
            log.warning("{s.kind} in bay {s.bay} is off by {delta:+.1f} (limit {{3}})", s=sensor, delta=delta)
        return delta

    def vent(self, settings):
        try:
            opening = 100 // settings["vents"]
        except ZeroDivisionError:
            log.error("cannot split the airflow of {0} over {vents} vents", self.house, exc_info=False, **settings)
            return None
        log.info("vents of {0[house]} open to {1}%", {"house": self.house}, opening)
        return opening
