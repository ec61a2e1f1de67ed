import logging

log = logging.getLogger("ledger")


def log_call(*args, level=logging.INFO):
    log.log(level, " ".join(str(a) for a in args))


def log_kv(event, **fields):
    log.info("%s %s", event, " ".join(f"{k}={v}" for k, v in sorted(fields.items())))
