import warnings

PAPERS = {"A4", "A3", "letter"}
TRAY_SHEETS = 250


def check_settings(pages, paper, duplex):
    """The print settings of a job; what is odd about them is warned."""
    if paper not in PAPERS:
        warnings.warn(f"paper {paper!r} unknown, using A4")
        paper = "A4"
    sheets = (pages + 1) // 2 if duplex else pages
    if sheets > TRAY_SHEETS:
        warnings.warn("%d sheets exceed the tray's %d" % (sheets, TRAY_SHEETS), RuntimeWarning)
    return {"paper": paper, "sheets": sheets}
