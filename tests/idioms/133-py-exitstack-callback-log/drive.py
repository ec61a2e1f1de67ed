import recorder
recorder.setup("src")
from snapshots.backup import back_up
from snapshots.resources import HostLock, Target, Volume
for c, (host, vols, free, locked) in enumerate([
    ("db1", [("/dev/sda1", 40)], 500, False),
    ("web2", [("/dev/sdb1", 10), ("/dev/sdb2", 20)], 500, False),
    ("files3", [("/dev/sdc1", 300), ("/dev/sdc2", 250)], 400, False),
    ("mail4", [("/dev/sdd1", 5)], 100, True),
    ("logs5", [("/dev/sde1", 8), ("/dev/sde2", 0, True)], 100, False),
]):
    recorder.case(c)
    HostLock.held = {host} if locked else set()
    back_up(host, [Volume(*v) for v in vols], Target("s3://vault/" + host, free))
recorder.write()
