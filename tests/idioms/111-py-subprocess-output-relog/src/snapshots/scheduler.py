import logging
import os
import subprocess
import sys

log = logging.getLogger(__name__)

AGENT = os.path.join(os.path.dirname(__file__), "agent.py")


def run_agent(volume, files, mb, verify=False):
    """Runs the agent and relays its output: stdout lines as they come, then stderr."""
    cmd = [sys.executable, AGENT, volume, str(files), str(mb)] + (["--verify"] if verify else [])
    log.debug("running %s", " ".join(cmd[2:]))
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        for line in proc.stdout:
            log.info("agent[%s]: %s", volume, line.rstrip("\n"))
        errors = proc.stderr.read().splitlines()
    for line in errors:
        log.warning("agent[%s] stderr: %s", volume, line)
    if proc.returncode:
        log.error("agent for %s exited with status %d", volume, proc.returncode)
    return proc.returncode


def nightly(volumes):
    failed = [v for v, files, mb, verify in volumes if run_agent(v, files, mb, verify)]
    if failed:
        log.error("nightly snapshots failed for %s", ", ".join(failed))
    else:
        log.info("nightly snapshots done for %d volumes", len(volumes))
