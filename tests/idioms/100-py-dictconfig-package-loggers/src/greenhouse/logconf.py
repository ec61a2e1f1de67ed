import logging.config


def build_config(verbose):
    """The logging setup of the greenhouse controller: one console handler
    on the package's logger, the valves quieter unless verbose."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "plain": {"format": "%(levelname)-7s %(name)s | %(message)s"},
        },
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "plain",
                "stream": "ext://sys.stdout",
            },
        },
        "loggers": {
            "greenhouse": {
                "level": "DEBUG" if verbose else "INFO",
                "handlers": ["console"],
                "propagate": False,
            },
            "greenhouse.irrigation.valves": {"level": "DEBUG" if verbose else "WARNING"},
        },
    }


def configure(verbose=False):
    logging.config.dictConfig(build_config(verbose))
