import recorder
recorder.setup("src")
from filewatch import make_watcher
# the machine is POSIX: only posix_backend runs; win_backend logs the same text
# the last case reuses the first one's watcher and mask: it logs only what both backends log
for c, (root, dirs, events) in enumerate([
    ("/srv/uploads", [("/srv/uploads/in", ["create", "modify"])], [(1, "create", "a.csv"), (1, "modify", "a.csv")]),
    ("/var/spool/print", [("/var/spool/print/q1", ["create"]), ("/var/spool/print/q2", ["delete", "move"])], [(2, "delete", "job7.ps"), (9, "move", "job8.ps")]),
    ("/home/ann/notes", [("/home/ann/notes", ["modify"])], [(1, "modify", "todo.md"), (1, "modify", "ideas.md"), (1, "modify", "todo.md")]),
    ("/srv/uploads", [("/srv/uploads/in", ["create", "modify"])], [(1, "modify", "b.csv"), (7, "create", "c.csv")]),
]):
    recorder.case(c)
    w = make_watcher(root)
    wds = [w.add(path, kinds) for path, kinds in dirs]
    w.dispatch([(wds[0] if wd == 1 else wd, kind, name) for wd, kind, name in events])
    w.close()
recorder.write()
