import functools
import warnings


class ThermoDeprecationWarning(DeprecationWarning):
    pass


def warn_deprecated(what, since, instead=None):
    """Warns that what is deprecated, for the caller of the function that calls this."""
    warnings.warn(f"{what} is deprecated since {since}" + (f"; use {instead} instead" if instead else ""),
                  ThermoDeprecationWarning, stacklevel=3)


def renamed(old_name, since):
    """Keeps a method under its old name, warning when that name is used."""
    def decorate(func):
        @functools.wraps(func)
        def alias(*args, **kwargs):
            warn_deprecated(f"{old_name}()", since, f"{func.__name__}()")
            return func(*args, **kwargs)
        return alias
    return decorate
