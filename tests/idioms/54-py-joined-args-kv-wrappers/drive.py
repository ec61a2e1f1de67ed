import recorder
# log_call and log_kv are pure logging wrappers: their callers emit the messages
recorder.setup("src", skip=["log_call", "log_kv"])
from ledger.book import Ledger
for c, (nm, posts, rev, per) in enumerate([("ops", [("cash", 100), ("fees", -30)], [], "2024-01"), ("payroll", [("wages", -500)], ["e17", "e18"], "2024-02"), ("sales", [("eu", 250), ("us", 90), ("refunds", -400)], ["e3"], "2024-03")]):
    recorder.case(c)
    b = Ledger(nm)
    for a, x in posts:
        b.post(a, x)
    if rev:
        b.reverse(rev)
    b.close(per)
recorder.write()
