import recorder
recorder.setup("src")
from tinyhttp.app import make_handler
from tinyhttp.handler import Request
for c, reqs in enumerate([
    [("10.0.0.1", "GET", "/", "curl/8.5"), ("10.0.0.1", "GET", "/cart", "curl/8.5")],
    [("10.0.0.7", "POST", "/cart", "botnet/0.1"), ("10.0.0.7", "GET", "/admin", "botnet/0.1")],
    [("192.168.3.4", "GET", "/reports/daily", "Mozilla/5.0"), ("192.168.3.4", "GET", "/", "Mozilla/5.0")],
    [("172.16.0.9", "DELETE", "/cart", "bot-checker/2"), ("172.16.0.9", "GET", "/reports/daily", "curl/8.5"), ("172.16.0.9", "HEAD", "/", "curl/8.5")],
]):
    recorder.case(c)
    h = make_handler()
    for i, (ip, method, path, agent) in enumerate(reqs):
        h.handle(Request(ip, method, path, agent, (2026, 12, 6, 10, c, i * 7), referer="https://shop.example/" if i else None))
recorder.write()
