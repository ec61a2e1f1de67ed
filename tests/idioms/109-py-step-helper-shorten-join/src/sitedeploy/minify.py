import logging
import textwrap

from .steps import log_step

log = logging.getLogger(__name__)

LIMIT = 40_000


def minify(files, sizes):
    after = {f: sizes[f] * 7 // 10 if f.endswith((".js", ".css", ".html")) else sizes[f] for f in files}
    saved = sum(sizes[f] - after[f] for f in files)
    log_step(2, f"minified {len(files)} files, {saved:,} bytes saved")
    large = [f for f in files if after[f] > LIMIT]
    if large:
        listing = "\n".join(f"{f} ({after[f] // 1024} KiB)" for f in large)
        log.warning("files still over %d KiB:\n%s", LIMIT // 1024, textwrap.indent(listing, "  - "))
    return after
