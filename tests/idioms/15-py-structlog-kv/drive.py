import recorder
recorder.setup("src")
import structlog
structlog.configure(processors=[structlog.dev.ConsoleRenderer(colors=False, pad_event_to=0)],
                    logger_factory=structlog.PrintLoggerFactory())
from billing.invoices import InvoiceService
for c, (cu, am, ch) in enumerate([("acme", 100, "email"), ("globex", 5000, "post"), ("initech", 20, None)]):
    recorder.case(c)
    s = InvoiceService("t%d" % c)
    s.create(cu, am)
    if ch:
        s.send(cu, ch)
    else:
        s.fail(cu, "no channel")
recorder.write()
