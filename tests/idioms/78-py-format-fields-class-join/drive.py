import recorder
recorder.setup("src")
from rpcgate.gateway import Gateway
for c, (svc, verbose, calls) in enumerate([
    ("Inventory", False, [("10.2.0.5:5111", "GetItem", 0, 3.25), ("10.2.0.5:5111", "ListItems", 0, 18.0)]),
    ("Billing", True, [("10.2.0.9:6001", "Charge", 14, 250.0), ("10.2.0.9:6001", "Charge", 0, 41.5), ("10.2.0.9:6002", "Refund", 4, 5000.0)]),
    ("Shipping", False, [("10.2.1.1:7000", "Track", 5, 1.75), ("10.2.1.1:7000", "Quote", 14, 90.0)]),
]):
    recorder.case(c)
    g = Gateway(svc, verbose)
    for i, (peer, method, code, ms) in enumerate(calls):
        g.finish(peer, method, code, ms, req_bytes=64 * (i + 1), resp_bytes=512 if not code else 0, deadline="2s" if i else None)
    g.close()
recorder.write()
