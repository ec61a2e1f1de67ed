import functools
import logging

log = logging.getLogger(__name__)

OWNERS = {"M-100": "Ada Ross", "M-200": "Ben Ortiz"}


class Tariff:
    registry = {}

    def __init__(self, name, day_rate, night_rate):
        self.name = name
        self.day_rate = day_rate
        self.night_rate = night_rate

    @classmethod
    def parse(cls, line):
        name, day, night = (part.strip() for part in line.split(","))
        tariff = cls(name, cls.checked_rate(float(day)), cls.checked_rate(float(night)))
        log.debug("parsed tariff %s from %r", name, line)
        cls.registry[name] = tariff
        return tariff

    @classmethod
    def lookup(cls, name):
        if name not in cls.registry:
            log.error("no tariff named %s among %d known", name, len(cls.registry))
            return cls.registry["standard"]
        return cls.registry[name]

    @staticmethod
    def checked_rate(rate):
        if rate > 1.0:
            log.warning("rate %.3f EUR/kWh looks like cents, divided by 100", rate)
            return rate / 100
        return rate


class Meter:
    def __init__(self, serial, tariff):
        self.serial = serial
        self.tariff = tariff
        self._reading = 0

    @property
    def reading(self):
        return self._reading

    @reading.setter
    def reading(self, value):
        if value < self._reading:
            log.warning("meter %s went backwards (%d -> %d kWh), ignored", self.serial, self._reading, value)
            return
        log.info("meter %s now at %d kWh", self.serial, value)
        self._reading = value

    @functools.cached_property
    def owner(self):
        log.debug("looking up the owner of meter %s", self.serial)
        return OWNERS.get(self.serial, "unknown")

    @property
    def cost(self):
        cost = self._reading * self.tariff.day_rate
        if cost > 100:
            log.info("meter %s of %s costs %.2f EUR, over the alert", self.serial, self.owner, cost)
        return cost
