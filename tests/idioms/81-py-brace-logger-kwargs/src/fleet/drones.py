from .blog import get_logger

log = get_logger(__name__)

ZONES = {"A": "harbour", "B": "old town", "C": "airport"}


class Drone:
    def __init__(self, name, pad, battery):
        self.name = name
        self.pad = pad
        self.battery = battery
        self.flown = 0
        self.stops = 0

    def take_off(self):
        log.info("drone {name} took off from {pad!r}", name=self.name, pad=self.pad)
        log.debug("battery of {d.name} at {d.battery}%", d=self)

    def fly(self, src, dst, heading, metres):
        log.debug("{0} -> {1} ({0} heading {2} deg)", src, dst, heading)
        self.flown += metres
        self.stops += 1
        self.battery -= metres // 400

    def enter(self, zone, status):
        if status != "open":
            log.warning("zone {name} is {status:>8}|", name=ZONES[zone], status=status)
        else:
            log.debug("entering zone {z[name]} via {0}", zone, z={"name": ZONES[zone]})

    def land(self, cost):
        log.info("{:>6} m flown, {:<3} stops|", self.flown, self.stops)
        log.info("route cost {{fuel}} = {cost:.2f} for {name}", cost=cost, name=self.name)
        if self.battery < 20:
            log.warning("{d.name!s} landed with {d.battery}% battery left", d=self)
