import logging

log = logging.getLogger(__package__)


class Climate:
    def __init__(self, zone, target):
        self.zone = zone
        self.target = target
        log.debug("zone %s: target %.1f C", zone, target)

    def reading(self, temp, humidity):
        delta = temp - self.target
        if abs(delta) < 0.5:
            log.debug("zone %s steady at %.1f C", self.zone, temp)
        elif delta > 0:
            log.info("zone %s %.1f C above target, vents at %d%%", self.zone, delta, min(100, int(delta * 20)))
        else:
            log.info("zone %s %.1f C below target, heater on", self.zone, -delta)
        if humidity > 85:
            log.warning("zone %s humidity %d%% risks mildew", self.zone, humidity)
