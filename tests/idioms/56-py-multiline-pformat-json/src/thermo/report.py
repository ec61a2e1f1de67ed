import json
import logging
import pprint

log = logging.getLogger(__name__)


def config(zone, target, sensors):
    cfg = {"zone": zone, "target": target, "sensors": sensors, "mode": "auto"}
    log.debug("Effective config:\n%s", pprint.pformat(cfg, width=40))
    log.info("Config as JSON: %s", json.dumps(cfg, sort_keys=True))


def readings(zone, temps):
    lines = ["Readings for %s:" % zone]
    for i, t in enumerate(temps):
        lines.append("  sensor %d: %.1f C" % (i, t))
    log.info("\n".join(lines))


def alarm(zone, temp, target):
    msg = ("Zone %s is %.1f C away from its target; "
           "heating %s") % (zone, abs(temp - target),
                           "on" if temp < target else "off")
    log.warning(msg)
