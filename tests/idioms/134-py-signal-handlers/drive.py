import os
import signal

import recorder
recorder.setup("src")
from tidegauge.daemon import Daemon
# each case: the settings texts (one more after each SIGHUP), then steps: a level, or a signal to the process
for c, (station, texts, steps) in enumerate([
    ("Dover", ["interval_s=30"], [1.2, 4.9, signal.SIGUSR1, signal.SIGTERM, 2.0]),
    ("Leith", ["alarm_m=3.0", "alarm_m=3.5\ndatum_m=0.25", "alarm_m=3.5\ndatum_m=0.25"], [3.2, signal.SIGHUP, 3.6, signal.SIGHUP, signal.SIGTERM]),
    ("Tobermory", ["interval_s = 10\nunits=feet", "# quiet\n"], [signal.SIGHUP, 5.0, signal.SIGUSR1, signal.SIGTERM]),
]):
    recorder.case(c)
    pending = list(texts)
    d = Daemon(station, lambda: pending.pop(0) if len(pending) > 1 else pending[0])
    d.install()
    for s in steps:
        if isinstance(s, signal.Signals):
            os.kill(os.getpid(), s)   # the handler runs in the main thread before the next step
        else:
            d.sample(s)
    d.uninstall()
recorder.write()
