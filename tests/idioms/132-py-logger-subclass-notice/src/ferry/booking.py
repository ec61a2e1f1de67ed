from .decks import Deck
from .logs import get_logger

log = get_logger(__name__)


class Sailing:
    def __init__(self, route, departs, seats, upper_lanes=2, lower_lanes=3):
        self.route = route
        self.departs = departs
        self.seats = seats
        self.decks = [Deck("lower", lower_lanes, 40), Deck("upper", upper_lanes, 30)]
        self.bookings = {}

    def book(self, ref, passengers, vehicle=None, plate=None):
        if passengers > self.seats:
            log.notice("sailing %s %s: %d seats left, %s wants %d", self.route, self.departs, self.seats, ref, passengers)
            return False
        if vehicle:
            decks = self.decks[1:] if vehicle == "bike" else self.decks
            if not any(d.stow(vehicle, plate) for d in decks):
                log.warning("booking %s refused: no deck space for a %s", ref, vehicle)
                return False
        self.seats -= passengers
        self.bookings[ref] = passengers
        log.audit("booked", ref=ref, pax=passengers, sailing=self.route)
        return True

    def cancel(self, ref):
        pax = self.bookings.pop(ref, None)
        if pax is None:
            log.error("cannot cancel %s: no such booking on %s", ref, self.route)
            return
        self.seats += pax
        log.audit("cancelled", ref=ref, refund="full" if pax < 4 else "partial")
