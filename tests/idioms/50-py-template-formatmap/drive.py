import recorder
recorder.setup("src")
from notify.sender import Sender
for c, (u, ch, pct, code) in enumerate([("ann", "smtp", 40, None), ("bob", "sms", 97, 550), ("cy", "push", 91, 421)]):
    recorder.case(c)
    s = Sender(u, ch)
    s.welcome()
    s.quota(pct)
    s.digest(c + 1, pct // 10)
    if code:
        s.bounce(code)
    s.switch(ch + "2")
recorder.write()
