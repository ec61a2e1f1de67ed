import sys
import recorder
recorder.setup("src")
import click
from mytool.commands import init_project, status
# click.echo writes to the stream with file.write; sys.exit(msg) is printed by the interpreter
# on stderr at exit: record it here with the truth of the raising frame.
for c, (nm, force, dirty) in enumerate([("alpha", False, 0), ("_beta", False, 0), ("gamma", True, 3)]):
    recorder.case(c)
    for fn in (lambda: init_project(nm, force), lambda: status(nm, dirty)):
        try:
            fn()
        except SystemExit as e:
            tb = e.__traceback__
            while tb.tb_next:
                tb = tb.tb_next
            recorder.record(str(e.code), tb.tb_frame)
            break
recorder.write()
