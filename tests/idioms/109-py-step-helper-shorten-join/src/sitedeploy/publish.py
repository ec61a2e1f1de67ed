import textwrap

from .steps import log_step


def upload(site, files, refused):
    sent = 0
    for f in files:
        if f in refused:
            log_step(3, "upload of %s to %s refused" % (f, site))
            continue
        sent += 1
    log_step(3, "uploaded %d of %d files to %s" % (sent, len(files), site))
    return sent


def purge(site, files):
    paths = sorted("/" + f for f in files if f.endswith(".html"))
    log_step(4, "purged %s: %s" % (site, textwrap.shorten(" ".join(paths), width=40)))
