import logging

log = logging.getLogger(__name__)

# (state, event) -> (next state, the line the attendant's console shows)
TRANSITIONS = {
    ("idle", "door_closed"): ("ready", "washer %(unit)s: door locked"),
    ("ready", "paid"): ("filling", "washer %(unit)s: paid %(amount).2f EUR, filling"),
    ("filling", "full"): ("washing", "washer %(unit)s: washing at %(temp)d C"),
    ("filling", "leak"): ("fault", "washer %(unit)s: leak under the drum, water off"),
    ("washing", "done"): ("spinning", "washer %(unit)s: spinning at %(rpm)d rpm"),
    ("spinning", "done"): ("idle", "washer %(unit)s: finished after %(minutes)d min"),
}


class Washer:
    def __init__(self, unit, program):
        self.unit = unit
        self.program = program
        self.state = "idle"
        self.steps = 0

    def fire(self, event, **data):
        key = (self.state, event)
        if key not in TRANSITIONS:
            log.warning("washer %s ignores %r in state %s", self.unit, event, self.state)
            return False
        target, text = TRANSITIONS[key]
        level = logging.ERROR if target == "fault" else logging.INFO
        log.log(level, text, {"unit": self.unit, **self.program, **data})
        self.state = target
        self.steps += 1
        hook = getattr(self, "on_" + target, None)
        if hook is not None:
            hook()
        return True

    def on_fault(self):
        log.critical("washer %s out of order, service called", self.unit)

    def on_idle(self):
        log.debug("washer %s idle again after %d steps", self.unit, self.steps)
