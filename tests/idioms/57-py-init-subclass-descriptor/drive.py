import recorder
recorder.setup("src")
# the classes register themselves when their module is imported: in the first case
recorder.case(0)
from exporters.base import REGISTRY
import exporters.formats
for c, jobs in enumerate([[("csv", 3)], [("tsv", 12), ("csv", -1)], [("tab", 9), ("tsv", 4)]]):
    recorder.case(c)
    for ext, level in jobs:
        e = REGISTRY[ext]()
        e.export(["r"] * (c + 2), level)
        if ext == "tab":
            e.width = 16
recorder.write()
