import recorder
recorder.setup("src")
from thermo.report import alarm, config, readings
for c, (z, tgt, temps) in enumerate([("kitchen", 21.0, [20.5, 21.2]), ("garage", 12.0, [4.0]), ("office", 22.5, [25.1, 24.8, 26.0])]):
    recorder.case(c)
    config(z, tgt, ["s%d" % i for i in range(len(temps))])
    readings(z, temps)
    alarm(z, sum(temps) / len(temps), tgt)
recorder.write()
