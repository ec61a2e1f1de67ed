import os

_watchers = {}


def make_watcher(root, platform=None):
    """The watcher of root for this platform (one a root): both backends
    log the same events."""
    if root in _watchers:
        return _watchers[root]
    if (platform or os.name) == "nt":
        from .win_backend import DirectoryChangesWatcher as cls
    else:
        from .posix_backend import NotifyWatcher as cls
    _watchers[root] = w = cls(root)
    return w
