import sys
import recorder
# message column = the whole formatted record, traceback included (as a log shipper keeps it)
recorder.setup("src")
from syncer.job import SyncJob
for c, u in enumerate(["https://h/a", "https://h/x.bad", "ftp://h/b", "https://h/y.bad"]):
    recorder.case(c)
    SyncJob(u).run()
recorder.write()
