"""Ferry bookings: sailings, vehicle decks and a harbour audit trail."""
