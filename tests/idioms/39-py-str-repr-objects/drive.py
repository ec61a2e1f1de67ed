import recorder
recorder.setup("src")
from sched.scheduler import Scheduler
for c in range(3):
    recorder.case(c)
    s = Scheduler()
    j = s.submit(c + 1)
    s.fire(j, ["start", "stop", "retry"][c])
    s.reap([j])
recorder.write()
