import logging

log = logging.getLogger(__name__)
REGISTRY = {}


class Exporter:
    def __init_subclass__(cls, ext=None, **kwargs):
        super().__init_subclass__(**kwargs)
        if ext is None:
            log.debug("Abstract exporter %s not registered", cls.__name__)
            return
        REGISTRY[ext] = cls
        log.info("Registered exporter %s for .%s files", cls.__name__, ext)


def alias(name):
    def deco(cls):
        log.info("Alias %s -> %s", name, cls.__qualname__)
        REGISTRY[name] = cls
        return cls
    return deco


class Bounded:
    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

    def __set_name__(self, owner, name):
        self.attr = "_" + name
        self.label = f"{owner.__name__}.{name}"

    def __get__(self, obj, owner=None):
        return getattr(obj, self.attr, self.lo)

    def __set__(self, obj, value):
        if not self.lo <= value <= self.hi:
            log.warning("Rejected %s=%r (allowed %d..%d)", self.label, value, self.lo, self.hi)
            value = max(self.lo, min(self.hi, value))
        setattr(obj, self.attr, value)
