from .logsetup import get_logger

log = get_logger(__name__)

REVIEW_LIMIT = 1000


class Declined(Exception):
    pass


class Gateway:
    def __init__(self, merchant, api_token):
        self.merchant = merchant
        self.refs = 0
        log.debug("session for %s opened with token=%s", merchant, api_token)

    def charge(self, card, amount, currency):
        log.info("charging card %s for %.2f %s", card, amount, currency)
        if card.endswith("0000"):
            raise Declined(f"card {card} declined by issuer")
        if amount > REVIEW_LIMIT:
            log.warning(f"manual review for card {card}: {amount:.2f} {currency}")
        self.refs += 1
        return "%s-%04d" % (self.merchant[:3].upper(), self.refs)

    def wait_settled(self, ref, polls):
        for n in range(1, polls + 1):
            log.debug("polling %s (try %d)", ref, n)
        log.info("%s settled after %d polls", ref, polls)


def checkout(gateway, card, amount, currency="EUR", polls=1):
    try:
        ref = gateway.charge(card, amount, currency)
    except Declined as e:
        log.error("checkout failed: %s", e)
        return None
    gateway.wait_settled(ref, polls)
    return ref
