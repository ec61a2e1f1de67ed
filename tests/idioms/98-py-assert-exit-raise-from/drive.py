import recorder
recorder.setup("src")
from stocktake.cli import main
# sys.exit(msg) is printed by the interpreter on stderr at exit: record it with the truth of the raising frame
for c, files in enumerate([
    [("shelf-a.json", '{"counts": [{"sku": "A1", "qty": 4}, {"sku": "A2", "qty": 0}]}')],
    [("shelf-b.json", '{"counts": [{"sku": "", "qty": 1}, {"sku": "B2", "qty": -3}, {"sku": "B3", "qty": 9}]}'), ("shelf-c.json", "{counts: []}")],
    [("shelf-d.json", '{"totals": {}}'), ("shelf-e.json", '{"counts": [{"sku": "E1", "qty": -1}]}'), ("shelf-f.csv", "sku,qty")],
]):
    recorder.case(c)
    try:
        main(files)
    except SystemExit as e:
        tb = e.__traceback__
        while tb.tb_next:
            tb = tb.tb_next
        recorder.record(str(e.code), tb.tb_frame)
recorder.write()
