import logging


def set_verbose(flag):
    logging.getLogger(__name__).setLevel(logging.DEBUG if flag else logging.INFO)
