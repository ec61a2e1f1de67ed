import recorder
recorder.setup("src")
from alerts.monitor import Monitor
for c, (svc, st, ms, kind, who) in enumerate([("api", "ok", 40, "up", "ann"), ("db", "degraded", 900, "flapping", "bob"), ("cache", "down", 3000, "flapping", "cy")]):
    recorder.case(c)
    m = Monitor(svc)
    m.check(st, ms)
    m.transition(kind, c + 2)
    m.threshold(ms, 500)
    m.page(who, st == "down")
recorder.write()
