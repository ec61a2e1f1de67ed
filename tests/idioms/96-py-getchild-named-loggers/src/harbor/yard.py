import logging

log = logging.getLogger("harbor").getChild("yard")


class Straddle:
    """A straddle carrier: lifts containers off the quay and stacks them."""

    def __init__(self, number):
        self.log = log.getChild(f"straddle{number}")

    def lift(self, container, tonnes):
        self.log.info("lifted %s (%.1f t)", container, tonnes)

    def stack(self, container, row, tier):
        if tier > 4:
            self.log.warning("row %s is full, %s waits on the quay", row, container)
            return False
        self.log.info("stacked %s at %s/%d", container, row, tier)
        return True
