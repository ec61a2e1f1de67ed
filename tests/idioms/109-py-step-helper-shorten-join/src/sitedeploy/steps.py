import logging

log = logging.getLogger("sitedeploy")


def log_step(n, text):
    log.info("step %d: %s", n, text)
