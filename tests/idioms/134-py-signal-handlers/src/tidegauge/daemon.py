import logging
import signal

from . import settings

log = logging.getLogger(__name__)


class Daemon:
    def __init__(self, station, source):
        self.station = station
        self.source = source          # a callable returning the settings text
        self.conf = settings.load(source())
        self.samples = 0
        self.alarms = 0
        self.running = False
        self.previous = {}

    def install(self):
        for sig, handler in ((signal.SIGHUP, self.on_hangup), (signal.SIGUSR1, self.on_dump),
                             (signal.SIGTERM, self.on_terminate)):
            self.previous[sig] = signal.signal(sig, handler)
        self.running = True
        log.info("station %s recording every %ds", self.station, self.conf["interval_s"])

    def uninstall(self):
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)
        self.previous.clear()

    def sample(self, level_m):
        if not self.running:
            log.debug("station %s stopped, sample %.2f m dropped", self.station, level_m)
            return
        self.samples += 1
        height = level_m - self.conf["datum_m"]
        if height >= self.conf["alarm_m"]:
            self.alarms += 1
            log.warning("%s: water at %.2f m above datum, alarm level %.2f m", self.station, height, self.conf["alarm_m"])

    def on_hangup(self, signum, frame):
        old = self.conf
        self.conf = settings.load(self.source())
        changed = sorted(k for k in self.conf if self.conf[k] != old[k])
        log.info("%s: settings reloaded on %s, changed: %s", self.station, signal.Signals(signum).name,
                 ", ".join(changed) or "nothing")

    def on_dump(self, signum, frame):
        log.info("%s: %d samples, %d alarms (%s)", self.station, self.samples, self.alarms, signal.strsignal(signum))

    def on_terminate(self, signum, frame):
        self.running = False
        log.warning("%s: stopping on %s after %d samples", self.station, signal.Signals(signum).name, self.samples)
        self.uninstall()
