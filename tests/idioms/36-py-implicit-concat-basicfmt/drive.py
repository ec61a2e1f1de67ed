import recorder
# the message column keeps logging.basicConfig's default format: LEVEL:logger:message
recorder.setup("src", fmt="%(levelname)s:%(name)s:%(message)s")
from indexer.build import Builder
for c, (r, n) in enumerate([("/data/a", 100), ("/data/b", 5), ("/var/c", 12345)]):
    recorder.case(c)
    b = Builder(r)
    b.start(n)
    b.shard(1, 2, n * 10)
    b.done(n / 100)
recorder.write()
