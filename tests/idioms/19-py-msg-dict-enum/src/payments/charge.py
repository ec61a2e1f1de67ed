import logging

from .codes import ERRORS, Msg

log = logging.getLogger(__name__)


def reject(code, *args):
    log.warning(ERRORS[code], *args)


def charge(cust, card, amount, cur):
    if amount > 500:
        log.error(ERRORS.get("limit"), amount, 500.0)
        return
    if card.endswith("0"):
        reject("card_declined", card[-4:])
        return
    log.info(Msg.CHARGED.value, amount, cur, cust)


def refund(cust, amount, cur):
    log.info(Msg.REFUNDED.value.format(amount=amount, cur=cur, cust=cust))
