import logging
import unicodedata

log = logging.getLogger(__name__)


def script_of(ch):
    # the first word of a letter's Unicode name is its script, near enough
    return unicodedata.name(ch, "UNKNOWN").split()[0]


def check_mixed(name):
    scripts = {script_of(ch) for ch in name if ch.isalpha()}
    if len(scripts) > 1:
        log.error(f"mixed scripts in {name!a}: {', '.join(sorted(scripts))}")
        return False
    return True
