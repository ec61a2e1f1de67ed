from .logger import Logger


def say(msg):
    # the command line's own notes, on stderr
    import sys
    print(f"relay: {msg}", file=sys.stderr)


class Relay:
    log = Logger()

    def __init__(self, name, limit):
        self.name = name
        self.limit = limit
        self.sent = 0

    def __repr__(self):
        return f"<Relay {self.name}>"

    def start(self, port):
        self.log.info("Starting relay {relay!r} on port {port:>5}", relay=self, port=port)

    def forward(self, frames):
        for frame in frames:
            if len(frame) > self.limit:
                self.log.warn("Dropping frame of {size} bytes (limit {limit})", size=len(frame), limit=self.limit)
                continue
            try:
                self.send(frame)
            except ValueError as e:
                self.log.failure("Unhandled error relaying {frame!r}", failure=e, frame=frame)

    def send(self, frame):
        if frame.startswith("!"):
            raise ValueError("bad frame")
        self.sent += 1

    def stop(self):
        self.log.info("{log_source} stopped after {n} frames", n=self.sent)
        say(f"{self.name} done")
