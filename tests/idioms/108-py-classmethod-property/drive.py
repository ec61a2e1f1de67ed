import recorder
recorder.setup("src")
from meters.tariff import Meter, Tariff
for c, (lines, serial, name, readings) in enumerate([
    (["standard, 0.30, 0.22", "green, 0.34, 0.25"], "M-100", "green", [120, 410]),
    (["standard, 0.30, 0.22", "night-saver, 31, 0.12"], "M-200", "night-saver", [50, 40, 90]),
    (["standard, 0.30, 0.22"], "M-900", "solar", [200, 600]),
]):
    recorder.case(c)
    Tariff.registry.clear()
    for line in lines:
        Tariff.parse(line)
    m = Meter(serial, Tariff.lookup(name))
    for r in readings:
        m.reading = r
        m.cost
recorder.write()
