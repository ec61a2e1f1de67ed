import logging
import string

from .templates import DIGEST, QUOTA, WELCOME

log = logging.getLogger(__name__)


class Sender:
    def __init__(self, user, channel):
        self.user = user
        self.channel = channel

    def welcome(self):
        log.info(WELCOME.substitute(user=self.user, channel=self.channel))

    def quota(self, pct):
        if pct > 90:
            log.warning(QUOTA.substitute(user=self.user, pct=pct))

    def digest(self, n, count):
        log.info(DIGEST.format_map({"n": n, "user": self.user, "count": count}))

    def bounce(self, code):
        tpl = string.Template("Bounce $code from $channel for $user, message dropped")
        log.error(tpl.substitute(vars(self), code=code))

    def switch(self, channel):
        self.channel = channel
        log.info("{user} now receives mail on {channel}".format(**vars(self)))
