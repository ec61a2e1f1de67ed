import warnings

_RENAMED = {"km_to_mi": "to_miles", "mi_to_km": "to_km"}


def to_miles(km):
    return km * 0.621371


def to_km(mi):
    return mi / 0.621371


def deprecated(reason):
    def deco(fn):
        def wrapper(*args, **kwargs):
            warnings.warn(f"{fn.__name__}() is deprecated: {reason}", FutureWarning, stacklevel=2)
            return fn(*args, **kwargs)
        return wrapper
    return deco


@deprecated("pass units= to distance()")
def haversine_km(a, b):
    return abs(a - b) * 111.2


def __getattr__(name):
    if name in _RENAMED:
        warnings.warn(f"geo.units.{name} was renamed to {_RENAMED[name]}", DeprecationWarning, stacklevel=2)
        return globals()[_RENAMED[name]]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
