import structlog

log = structlog.get_logger(__name__)


class InvoiceService:
    def __init__(self, tenant):
        self.log = log.bind(tenant=tenant)

    def create(self, customer, amount):
        self.log.info("invoice_created", customer=customer, amount=amount)
        if amount > 1000:
            self.log.warning("invoice_requires_approval", amount=amount, threshold=1000)

    def send(self, customer, channel):
        self.log.info("invoice_sent", customer=customer, channel=channel)

    def fail(self, customer, reason):
        log.error("invoice delivery failed", customer=customer, reason=reason)
