import logging

log = logging.getLogger(__name__)
audit = logging.getLogger(__name__).getChild("audit")


class Crane:
    def __init__(self, number, max_tonnes):
        self.number = number
        self.max_tonnes = max_tonnes
        self.log = log.getChild(f"crane{number}")

    def lift(self, container, tonnes):
        if tonnes > self.max_tonnes:
            self.log.warning("refusing %s: %.1f t over the %.1f t limit", container, tonnes, self.max_tonnes)
            return False
        self.log.info("lifted %s (%.1f t)", container, tonnes)
        audit.info("crane %d moved %s", self.number, container)
        return True


class Scheduler:
    def __init__(self, berth, cranes):
        self.berth = berth
        self.cranes = cranes
        self.log = log.getChild("scheduler").getChild(berth)

    def unload(self, manifest):
        self.log.info("unloading %d containers at %s", len(manifest), self.berth)
        left = []
        for i, (container, tonnes) in enumerate(manifest):
            crane = self.cranes[i % len(self.cranes)]
            if not crane.lift(container, tonnes):
                left.append(container)
        if left:
            self.log.error("%d containers left on board: %s", len(left), ", ".join(left))
        else:
            logging.getLogger("harbor").info("berth %s cleared", self.berth)
