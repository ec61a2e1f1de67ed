import logging

log = logging.getLogger(__name__)


class Bus:
    def __init__(self):
        self.handlers = {}

    def subscribe(self, topic, handler):
        self.handlers.setdefault(topic, []).append(handler)

    def publish(self, topic, *args):
        if topic not in self.handlers:
            log.debug("No subscriber for %s", topic)
        for handler in self.handlers.get(topic, []):
            handler(*args)
