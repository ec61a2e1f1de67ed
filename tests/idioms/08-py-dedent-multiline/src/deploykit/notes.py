import logging
import textwrap
from textwrap import dedent

log = logging.getLogger(__name__)


def banner_pct(version, target):
    log.warning(textwrap.dedent("""\
        Deploying version %s to %s.
        Do not interrupt this process.""") % (version, target))


def banner_oneline(target):
    log.warning(dedent("""Rolling back %s now""") % target)


def banner_plain():
    log.info(dedent("""
        Maintenance window open.
        All writes are paused.
    """).strip())


def banner_args(target, n):
    log.info(dedent("""\
        Draining %s:
          %d connections left"""), target, n)


def multiline(target, n):
    log.info("Health report for %s:\n  ok=%d\n  failed=0", target, n)


def run(target, n):
    banner_pct("1.%d" % n, target)
    banner_oneline(target)
    banner_plain()
    banner_args(target, n)
    multiline(target, n)
