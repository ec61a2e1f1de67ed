_plugins = {}


class UnknownPlugin(LookupError):
    pass


def register(name):
    def add(cls):
        cls.plugin_name = name
        _plugins[name] = cls
        return cls
    return add


def lookup(name):
    try:
        return _plugins[name]
    except KeyError:
        raise UnknownPlugin(name) from None
