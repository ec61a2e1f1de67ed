import enum

ERRORS = {
    "card_declined": "Card ending %s was declined by the issuer",
    "expired": "Card ending %s expired on %s",
    "limit": "Amount %.2f exceeds the limit of %.2f",
}


class Msg(str, enum.Enum):
    CHARGED = "Charged %.2f %s to customer %s"
    REFUNDED = "Refunded {amount} {cur} to {cust}"
