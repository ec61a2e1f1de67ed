import logging

log = logging.getLogger("netlib.client")


class Endpoint:
    def __init__(self, host, port):
        self.host = host
        self.port = port


class Client:
    def __init__(self, name, cfg):
        self.name = name
        self.cfg = cfg

    def connect(self, ep):
        log.info("Connecting to {}:{}".format(ep.host, ep.port))
        log.debug("Route {0} -> {1} via {0}".format(self.name, ep.host))

    def register(self):
        log.info("Client {name!r} registered in {cfg[region]}".format(name=self.name, cfg=self.cfg))

    def report(self, ep, sent, recv):
        log.info("{ep.host} stats: sent={:>8} recv={:<6}|".format(sent, recv, ep=ep))
        log.debug("ratio {:.2%} over {:d} samples".format(recv / sent, 10))

    def close(self, ep):
        log.info(str.format("Closed link to {}", ep.host))
