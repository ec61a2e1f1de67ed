import recorder
recorder.setup("src")
from mailroom.franking import frank_all, install_crash_logging
install_crash_logging()
# one worker thread a case, started once its inbox is full and joined: the order is fixed
for c, items in enumerate([
    [("letter", "Ames"), ("parcel", "Birch Ltd")],
    [("large", "Cole"), ("oversize", "Dunmore"), ("letter", "Eads"), ("letter", "Fenn")],
    [("letter", "Gale"), ("large", "Hart"), ("parcel", "Ives")],
]):
    recorder.case(c)
    frank_all(items, number=c + 1)
recorder.write()
