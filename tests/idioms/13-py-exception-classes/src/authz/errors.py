class AuthError(Exception):
    """Base class."""


class TokenExpired(AuthError):
    def __init__(self, user, age):
        super().__init__(f"Token for {user} expired {age}s ago")
        self.user = user


class PermissionDenied(AuthError):
    def __init__(self, user, action, resource):
        self.user, self.action, self.resource = user, action, resource

    def __str__(self):
        return "User %s may not %s on %s" % (self.user, self.action, self.resource)


class QuotaExceeded(AuthError):
    def __init__(self, used, limit):
        msg = "Quota exceeded: {} of {} requests".format(used, limit)
        super().__init__(msg)
