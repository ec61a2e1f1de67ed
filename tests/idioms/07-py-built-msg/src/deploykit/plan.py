import logging
import textwrap

log = logging.getLogger(__name__)


def summarize(plan):
    msg = "Plan ready"
    msg += ": %d to add" % plan["add"]
    if plan["remove"]:
        msg += ", %d to destroy" % plan["remove"]
    msg += "."
    log.info(msg)


def apply_steps(steps):
    log.info(" ".join(["Applying", str(len(steps)), "steps:", ", ".join(steps)]))


def banner(version, target):
    log.warning(textwrap.dedent("""\
        Deploying version %s to %s.
        Do not interrupt this process.""") % (version, target))


def finish(target, secs):
    log.info("Deployment to " + target + " finished in " + str(secs) + "s with status " + "OK")


def describe(target):
    parts = []
    parts.append("target=" + target)
    parts.append("region=eu")
    return "Context: " + "; ".join(parts)


def run(plan, steps, target):
    log.debug(describe(target))
    summarize(plan)
    apply_steps(steps)
    banner("1.2.%d" % len(steps), target)
    finish(target, len(steps) * 3)
