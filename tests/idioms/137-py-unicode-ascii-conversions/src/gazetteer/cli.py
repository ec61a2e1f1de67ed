import sys

from .fold import fold
from .scripts import check_mixed


class Gazetteer:
    def __init__(self):
        self.places = {}

    def add(self, name, country):
        if not check_mixed(name):
            print(f"✗ {name} rejected", file=sys.stderr)
            return
        key = fold(name).lower()
        if key in self.places:
            print(f"⚠ {name} ({country}) shares the key “{key}” with {self.places[key][0]}")
        self.places[key] = (name, country)

    def find(self, query):
        key = fold(query).lower()
        hit = self.places.get(key)
        if hit:
            print(f"✓ {query} → {hit[0]}, {hit[1]}")
        else:
            print(f"· nothing for {query!r} (key {key.encode('unicode_escape').decode()})")
