"""A bike rental fleet: trips per bike, and a text report of the day."""
