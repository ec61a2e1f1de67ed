import logging

from .i18n import _, ngettext

log = logging.getLogger(__name__)


def download(url, size):
    log.info(_("Downloading %s (%d kB)"), url, size)


def verify(name):
    log.info(_("Verified signature of %s") % name)


def unpack(name, n):
    log.info(ngettext("Unpacked %(n)d file from %(name)s", "Unpacked %(n)d files from %(name)s", n) % {"n": n, "name": name})


def done(name):
    log.info(_("Installed {name}").format(name=name))
    log.debug("Cleanup of %s temp dir", name)


def install(name, size, n):
    download("https://repo/" + name, size)
    verify(name)
    unpack(name, n)
    done(name)
