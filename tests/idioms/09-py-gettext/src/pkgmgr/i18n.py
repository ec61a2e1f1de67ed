import gettext

_t = gettext.translation("pkgmgr", fallback=True)
_ = _t.gettext
ngettext = _t.ngettext
