import json
import logging

log = logging.getLogger(__name__)


class ProtocolError(Exception):
    pass


class Client:
    """A client of a line protocol: "VERB arg..." out, "+text", "-error" or
    "$json" back. With debug on, every line on the wire is printed."""

    def __init__(self, transport, debug=False):
        self.transport = transport
        self.debug = debug

    def _wire(self, direction, line):
        if self.debug:
            print(direction, line.decode("utf-8").rstrip("\r\n"))

    def _send(self, *words):
        line = (" ".join(str(w) for w in words) + "\r\n").encode("utf-8")
        self._wire(">>", line)
        self.transport.write(line)

    def _reply(self):
        line = self.transport.readline()
        self._wire("<<", line)
        kind, body = line[:1], line[1:].decode("utf-8").rstrip("\r\n")
        if kind == b"-":
            raise ProtocolError(body)
        return json.loads(body) if kind == b"$" else body

    def set(self, key, value):
        self._send("SET", key, value)
        return self._reply()

    def get(self, key):
        self._send("GET", key)
        try:
            return self._reply()
        except ProtocolError as e:
            log.warning(str(e))
            return None

    def stats(self):
        self._send("STATS")
        info = self._reply()
        log.info(json.dumps(info, sort_keys=True))
        return info
