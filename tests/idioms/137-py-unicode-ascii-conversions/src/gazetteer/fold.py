import logging
import unicodedata

log = logging.getLogger(__name__)

# letters that do not decompose into a base letter and a mark
SPECIAL = {"ß": "ss", "Æ": "AE", "æ": "ae", "Ø": "O", "ø": "o", "Ł": "L", "ł": "l", "Þ": "Th", "þ": "th"}


def fold(name):
    out = []
    for ch in unicodedata.normalize("NFD", name):
        if unicodedata.combining(ch):
            continue
        if ch in SPECIAL:
            log.debug("%s folded to %r", unicodedata.name(ch), SPECIAL[ch])
            out.append(SPECIAL[ch])
        elif ord(ch) < 128:
            out.append(ch)
        else:
            log.warning("no ASCII for %a (%s) in «%s»", ch, unicodedata.name(ch, "unnamed"), name)
            out.append("?")
    key = "".join(out)
    if key != name:
        log.info("folded %r → %r", name, key)
    return key
