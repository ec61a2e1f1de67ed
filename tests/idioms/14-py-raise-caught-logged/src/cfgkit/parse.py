class ConfigError(Exception):
    pass


def parse_port(v):
    p = int(v)
    if not 0 < p < 65536:
        raise ValueError(f"port {p} out of range")
    return p


def parse_host(v):
    if " " in v:
        raise ConfigError("invalid host name %r" % v)
    return v


def parse_mode(v):
    if v not in ("r", "rw"):
        raise ConfigError("unknown mode {}".format(v))
    return v
