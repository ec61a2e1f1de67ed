import logging

log = logging.getLogger("greenhouse.irrigation")
valves_log = logging.getLogger("greenhouse.irrigation.valves")

DAILY_QUOTA = 40


class Irrigation:
    def __init__(self):
        self.used = {}

    def schedule(self, beds):
        log.info("watering %d beds: %s", len(beds), ", ".join(sorted(beds)))
        for bed, litres in sorted(beds.items()):
            self.open(bed, litres)

    def open(self, bed, litres):
        valves_log.debug("valve %s open for %d l", bed, litres)
        self.used[bed] = self.used.get(bed, 0) + litres
        if self.used[bed] > DAILY_QUOTA:
            valves_log.warning("valve %s: %d l exceeds the daily quota of %d l", bed, self.used[bed], DAILY_QUOTA)
