ERRORS = {
    "declined": "Card ending %s was declined by the issuer",
    "limit": "Amount %.2f exceeds the limit of %.2f",
}
CHARGED = "Charged %.2f %s to customer %s"
