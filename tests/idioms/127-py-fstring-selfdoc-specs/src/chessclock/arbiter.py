import logging

from .clock import Clock, Flagged

log = logging.getLogger(__name__)


class Board:
    def __init__(self, number, white, black, minutes=5, increment=3):
        self.number = number
        self.clock = Clock(white, black, minutes, increment)
        self.result = None
        self.used = 0.0


class Arbiter:
    def __init__(self, round_no, boards, precision=1):
        self.round_no = round_no
        self.boards = boards
        self.precision = precision
        self.digits = len(str(len(boards)))

    def play(self, number, times):
        board = self.boards[number - 1]
        total = sum(board.clock.left.values())
        try:
            for t in times:
                board.clock.press(t)
                board.used += t
        except Flagged as f:
            board.result = "0-1" if f.args[0] == "white" else "1-0"
            log.info(f"board {board.number:0{self.digits}d}: {board.result} on time, clock {board.clock.display()!s}")
            return
        board.result = "1/2"
        log.info(f"board {board.number:0{self.digits}d} adjourned at {board.clock.display()}")
        ratio = board.used / total
        log.debug(f"{ratio=:.{self.precision}%} of the time used on board {board.number}")

    def report(self):
        w = max(len(b.clock.players["white"]) for b in self.boards)
        for b in self.boards:
            white, black = b.clock.players["white"], b.clock.players["black"]
            log.info(f"round {self.round_no}: {white:<{w}} {b.result or '*':^5} {black}")
