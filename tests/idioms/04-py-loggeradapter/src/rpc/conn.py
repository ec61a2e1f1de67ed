import logging

_log = logging.getLogger(__name__)


class ConnAdapter(logging.LoggerAdapter):
    def process(self, msg, kwargs):
        return "[conn %s] %s" % (self.extra["cid"], msg), kwargs


class Connection:
    def __init__(self, cid, peer):
        self.peer = peer
        self.log = ConnAdapter(_log, {"cid": cid})

    def open(self):
        self.log.info("Opening channel to %s", self.peer)

    def handshake(self, version):
        self.log.debug("Handshake complete, protocol v%d", version)

    def recv(self, nbytes):
        if nbytes == 0:
            self.log.warning("Peer closed the connection")
        else:
            self.log.debug("Received %d bytes", nbytes)

    def close(self):
        self.log.info("Closing")
        _log.info("Connection to %s released", self.peer)
