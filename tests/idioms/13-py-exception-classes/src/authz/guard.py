import logging

from .errors import AuthError, PermissionDenied, QuotaExceeded, TokenExpired

log = logging.getLogger(__name__)


def check_token(user, age):
    if age > 3600:
        raise TokenExpired(user, age - 3600)


def check_acl(user, action, res):
    if action == "delete":
        raise PermissionDenied(user, action, res)


def check_quota(used):
    if used > 100:
        raise QuotaExceeded(used, 100)


def authorize(user, age, action, res, used):
    log.debug("Authorizing %s for %s", user, action)
    try:
        check_token(user, age)
    except TokenExpired as e:
        log.warning("%s", e)
        return False
    try:
        check_acl(user, action, res)
    except PermissionDenied as e:
        log.error(e)
        return False
    return charge(user, used)


def charge(user, used):
    try:
        check_quota(used)
    except AuthError as exc:
        log.error("Rejected request of %s: %s", user, exc)
        return False
    log.info("Request of %s accepted", user)
    return True
