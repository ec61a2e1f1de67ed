import recorder
recorder.setup("src")
from gazetteer.cli import Gazetteer
for c, (places, queries) in enumerate([
    ([("Zürich", "CH"), ("Malmö", "SE")], ["zurich", "Malmo"]),
    ([("Straße am See", "DE"), ("Łódź", "PL"), ("Lodz", "US")], ["lodz"]),
    ([("Þingvellir", "IS"), ("Cluj‑Napoca", "RO"), ("Pаris", "FR")], ["Thingvellir", "Paris", "Cluj-Napoca"]),
    ([("Ærøskøbing", "DK"), ("São Tomé", "ST")], ["Sao Tome", "Århus"]),
]):
    recorder.case(c)
    g = Gazetteer()
    for p in places:
        g.add(*p)
    for q in queries:
        g.find(q)
recorder.write()
