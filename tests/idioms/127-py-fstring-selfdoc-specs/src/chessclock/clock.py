import logging

log = logging.getLogger(__name__)

SIDES = ("white", "black")


class Flagged(Exception):
    pass


class Clock:
    width = 10
    fill = "."

    def __init__(self, white, black, minutes, increment):
        self.players = {"white": white, "black": black}
        self.left = {s: minutes * 60.0 for s in SIDES}
        self.increment = increment
        self.turn = "white"
        self.moves = 0
        log.info(f"clock set: {white!r:>{self.width}} vs {black!r:<{self.width}} {minutes}+{increment}")

    def press(self, spent):
        side = self.turn
        remaining = self.left[side] - spent
        log.debug(f"{side=} {spent=:.1f} {remaining=:.2f}")
        if remaining <= 0:
            self.left[side] = 0.0
            log.warning(f"flag fell for {self.players[side]!r} after {self.moves=}")
            raise Flagged(side)
        self.left[side] = remaining + self.increment
        if remaining < 30:
            log.warning(f"{self.players[side]!r} in time trouble: {remaining:{self.fill}>8.1f}s")
        self.moves += side == "black"
        self.turn = SIDES[side == "white"]
        return self.left[side]

    def display(self):
        w, b = (self.left[s] for s in SIDES)
        return f"{int(w // 60):02d}:{w % 60:04.1f} | {int(b // 60):02d}:{b % 60:04.1f}"
