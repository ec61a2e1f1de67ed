import recorder
recorder.setup("src")
from stockd.feeds import ApiSource, CsvSource
from stockd.sources import Source
for c, (nm, rows, token) in enumerate([("stock.csv", ["a,1", "b2", ""], "t0"), ("https://erp/items", ["x", ""], None), ("dump.csv", ["q,4", "r,5"], "t2")]):
    recorder.case(c)
    CsvSource(nm).load(rows)
    ApiSource(nm.replace(".csv", ".api"), token).load(rows)
    Source("mem%d" % c).load(rows[:1])
recorder.write()
