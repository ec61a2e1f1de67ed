import logging
from datetime import timedelta
from decimal import Decimal

from .readings import usage
from .tariff import charge

log = logging.getLogger(__name__)

STANDING = Decimal("0.21")   # per day


def bill(account, readings, issued, terms_days=14):
    litres = usage(readings)
    cubic = Decimal(litres) / 1000
    days = (readings[-1].at.date() - readings[0].at.date()).days
    total = charge(cubic) + STANDING * days
    due = issued + timedelta(days=terms_days)
    log.info("account %s: %s m3 over %d days, %s EUR due %s", account, cubic, days,
             format(total, ",.2f"), due.strftime("%a %d %b"))
    if total > 1000:
        log.warning("account {}: bill of {:,.2f} EUR is unusually high".format(account, total))
    if due.weekday() >= 5:
        log.info("account %s: due date falls on a %s, moved to %s", account, due.strftime("%A"),
                 (due + timedelta(days=7 - due.weekday())).isoformat())
    return total
