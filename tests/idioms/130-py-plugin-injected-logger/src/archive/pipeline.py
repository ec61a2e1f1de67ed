import logging

from . import plugins  # noqa: F401 -- registers the bundled plugins
from .registry import UnknownPlugin, lookup

log = logging.getLogger(__name__)


class Photo:
    def __init__(self, name, width, height, exif=None):
        self.name = name
        self.width = width
        self.height = height
        self.exif = dict(exif or {})
        self.marks = []


class Pipeline:
    def __init__(self, steps):
        self.steps = []
        for spec in steps:
            name, _, arg = spec.partition(":")
            try:
                cls = lookup(name)
            except UnknownPlugin:
                log.error("no plugin named %r, step skipped", name)
                continue
            # each plugin logs through a child of the pipeline's logger
            self.steps.append(cls(log.getChild(name), arg or None))
        log.info("pipeline ready: %s", " -> ".join(s.plugin_name for s in self.steps))

    def ingest(self, photo):
        for step in self.steps:
            if not step.apply(photo):
                log.warning("%s rejected by %s", photo.name, step.plugin_name)
                return False
        return True
