import logging

from .util import Timer, logged, retry, workdir

log = logging.getLogger(__name__)


@logged
def build(name):
    log.info("Building %s", name)
    return name


@retry(2)
def upload(name):
    if name.startswith("x"):
        raise RuntimeError("server busy")
    log.info("Uploaded %s", name)


def pipeline(name):
    with workdir("build/" + name):
        with Timer("pipeline " + name):
            build(name)
            upload(name)
