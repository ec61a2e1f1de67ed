import logging
from .codes import ERRORS, CHARGED
log = logging.getLogger(__name__)

def charge(card, amount):
    if amount > 500:
        log.error(ERRORS["limit"], amount, 500.0)
        return
    log.info(CHARGED, amount, "EUR", "c")

def verify(card):
    log.warning(ERRORS["declined"], card)

def refund(amount):
    log.info("Refunded %s", amount)
