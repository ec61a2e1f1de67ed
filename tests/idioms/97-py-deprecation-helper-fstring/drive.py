import recorder
# warn_deprecated puts values it is handed (what, since, instead) in a text of its own, as
# 10-py-warnings' helper does: it is the emitter, as there
recorder.setup("src")
from thermo.device import Thermostat
for c, (room, unit, target, legacy, slots) in enumerate([
    ("kitchen", "C", 21.5, False, ["06:00", "22:00"]),
    ("attic", "F", 35.0, True, ["08:00"]),
    ("cellar", "C", 2.0, True, []),
    ("office", "K", 19.0, False, ["07:30", "12:00", "18:00"]),
]):
    recorder.case(c)
    t = Thermostat(room, unit)
    if legacy:
        t.set_target(temp=target)
        t.setSchedule(slots)
    else:
        t.set_target(target)
        t.schedule(slots)
recorder.write()
