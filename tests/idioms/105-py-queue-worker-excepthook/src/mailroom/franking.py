import logging
import queue
import threading

log = logging.getLogger(__name__)

RATES = {"letter": 85, "large": 160, "parcel": 455}
_STOP = object()


def log_thread_crash(args):
    log.critical("thread %s died: %s: %s", args.thread.name, args.exc_type.__name__, args.exc_value)


def install_crash_logging():
    threading.excepthook = log_thread_crash


class Franker(threading.Thread):
    """A worker that franks the mail waiting in its inbox until the stop marker."""

    def __init__(self, number, inbox):
        super().__init__(name=f"franker-{number}")
        self.inbox = inbox
        self.postage = 0

    def run(self):
        log.debug("%s waiting for mail", self.name)
        while True:
            item = self.inbox.get()
            if item is _STOP:
                log.info("%s done, %d cents of postage", self.name, self.postage)
                return
            kind, addressee = item
            cents = RATES[kind]
            self.postage += cents
            log.info("%s franked a %s to %s (%d cents)", threading.current_thread().name, kind, addressee, cents)


def frank_all(items, number=1):
    inbox = queue.Queue()
    for item in items:
        inbox.put(item)
    inbox.put(_STOP)
    log.info("%d items queued for franker-%d", len(items), number)
    worker = Franker(number, inbox)
    worker.start()
    worker.join()
    left = inbox.qsize() - 1  # the stop marker stays
    if left > 0:
        log.error("%d items left unfranked after %s stopped", left, worker.name)
    return worker.postage
