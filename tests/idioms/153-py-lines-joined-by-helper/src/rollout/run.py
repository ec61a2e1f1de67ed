import logging

from .plan import Plan

log = logging.getLogger("rollout")


def announce(plan):
    text = plan.describe()
    if text:
        log.info(text)


def caution(plan):
    for note in plan.warnings():
        log.warning(note)


def rollout(release, hosts, canary=0, dry_run=False):
    plan = Plan(release, hosts, canary, dry_run)
    if not plan.check(log):
        log.error("rollout of %s refused", release)
        return False
    announce(plan)
    caution(plan)
    log.info("rollout of %s %s", release, "simulated" if dry_run else "started")
    return True
