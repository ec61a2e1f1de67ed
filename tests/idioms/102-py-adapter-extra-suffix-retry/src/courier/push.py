from .logs import tagged


class CarrierLink:
    """A carrier's booking endpoint, answering from a fixed plan of outcomes."""

    def __init__(self, outcomes):
        self.outcomes = list(outcomes)

    def send(self, payload):
        outcome = self.outcomes.pop(0) if self.outcomes else "ok"
        if outcome == "ok":
            return "BK-%05d" % (sum(map(ord, payload)) % 100000)
        raise ConnectionError(outcome)


class ShipmentPusher:
    def __init__(self, carrier, link, max_attempts=3, first_delay=0.5):
        self.link = link
        self.max_attempts = max_attempts
        self.first_delay = first_delay
        self.log = tagged(__name__, carrier=carrier)

    def push(self, shipment_id, payload):
        delay = self.first_delay
        for attempt in range(1, self.max_attempts + 1):
            try:
                ref = self.link.send(payload)
            except ConnectionError as e:
                if attempt == self.max_attempts:
                    self.log.error("giving up on %s: %s", shipment_id, e, extra={"attempt": attempt})
                    return None
                self.log.warning("push of %s failed (%s), retry in %.1fs", shipment_id, e, delay,
                                 extra={"attempt": attempt})
                delay *= 2
                continue
            self.log.info("%s booked as %s", shipment_id, ref, extra={"attempt": attempt})
            return ref

    def push_all(self, shipments):
        booked = [sid for sid, payload in shipments if self.push(sid, payload)]
        failed = len(shipments) - len(booked)
        if failed:
            self.log.warning("%d of %d shipments not booked", failed, len(shipments), extra={"batch": len(shipments)})
        else:
            self.log.info("all %d shipments booked", len(shipments))
        return booked
