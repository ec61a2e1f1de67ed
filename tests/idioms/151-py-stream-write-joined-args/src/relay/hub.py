import sys

from . import out


class Hub:
    def __init__(self, name, capacity):
        self.name = name
        self.capacity = capacity
        self.peers = {}
        out.msg("hub", name, "up with room for", capacity, "peers")

    def join(self, peer, addr):
        if len(self.peers) >= self.capacity:
            out.msg("refused", peer, "from", addr, "- hub full")
            return False
        self.peers[peer] = addr
        out.note(peer, "joined from", addr)
        return True

    def leave(self, peer):
        if self.peers.pop(peer, None) is None:
            out.msg("unknown peer", repr(peer))
            return
        out.note(peer, "left;", len(self.peers), "remain")


class Console:
    """A command-line front end writing to the streams it was given."""

    def __init__(self, hub, stdout=None, stderr=None):
        self.hub = hub
        self.stdout = stdout or sys.stdout
        self.stderr = stderr or sys.stderr

    def run(self, commands):
        for verb, *args in commands:
            if verb == "join":
                self.hub.join(*args)
            elif verb == "leave":
                self.hub.leave(*args)
            else:
                self.stderr.write(f"unknown command {verb!r}\n")
                continue
            self.stdout.write("ok %s\n" % verb)
        self.stdout.write(f"{len(self.hub.peers)} peers on {self.hub.name}\n")
