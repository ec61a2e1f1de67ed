import textwrap

from .steps import log_step


def collect(files):
    drafts = [f for f in files if f.rsplit("/", 1)[-1].startswith("_")]
    live = [f for f in files if f not in drafts]
    pages = [f for f in live if f.endswith(".html")]
    assets = [f for f in live if not f.endswith(".html")]
    log_step(1, "collected " + " and ".join(f"{len(group)} {kind}" for kind, group in (("pages", pages), ("assets", assets)) if group))
    if drafts:
        log_step(1, textwrap.shorten("left out drafts: " + " ".join(drafts), width=48, placeholder=" [...]"))
    return live
