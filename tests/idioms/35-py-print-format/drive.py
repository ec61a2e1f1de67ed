import recorder
recorder.setup("src", skip=["eprint"])
from backup.cli import main
for c, a in enumerate([("/home", "/mnt/b1", 40, 0), ("/etc", "/mnt/b2", 400, 2), ("/srv", "/mnt/b3", 7, 0)]):
    recorder.case(c)
    main(*a)
recorder.write()
