import logging

from .climate import Climate
from .irrigation import Irrigation

log = logging.getLogger(__name__)


class Controller:
    def __init__(self, zones):
        self.zones = {name: Climate(name, target) for name, target in zones.items()}
        self.irrigation = Irrigation()

    def cycle(self, readings, beds):
        log.info("cycle started for %d zones", len(readings))
        for zone, (temp, humidity) in readings.items():
            if zone not in self.zones:
                log.error("no climate settings for zone %r, reading ignored", zone)
                continue
            self.zones[zone].reading(temp, humidity)
        if beds:
            self.irrigation.schedule(beds)
        else:
            log.debug("no beds to water this cycle")
