from dataclasses import dataclass, field
from typing import NamedTuple


class Tare(NamedTuple):
    scale: str
    grams: int


@dataclass(frozen=True)
class Reading:
    scale: str
    grams: int
    stable: bool = True


@dataclass
class Batch:
    product: str
    target_g: int
    readings: list = field(default_factory=list)

    @property
    def filled_g(self):
        return sum(r.grams for r in self.readings)
