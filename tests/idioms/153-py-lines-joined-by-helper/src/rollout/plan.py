"""A rollout plan: which hosts get which release, described for the operator."""


class Plan:
    def __init__(self, release, hosts, canary=0, dry_run=False):
        self.release = release
        self.hosts = list(hosts)
        self.canary = canary
        self.dry_run = dry_run

    def describe(self):
        lines = []
        lines.append(f"Rollout of {self.release} to {len(self.hosts)} hosts")
        if self.canary:
            lines.append("Canary first: %s" % ", ".join(self.hosts[: self.canary]))
        for i, host in enumerate(self.hosts[self.canary :], 1):
            lines.append("  wave {}: {}".format(i, host))
        if self.dry_run:
            lines.append("(dry run: nothing will be changed)")
        return "\n".join(lines)

    def warnings(self):
        notes = list()
        if len(self.hosts) > 3 and not self.canary:
            notes.append(f"{len(self.hosts)} hosts at once without a canary")
        if self.release.endswith("-rc"):
            notes.insert(0, "release candidate in production: " + self.release)
        return notes

    def check(self, log):
        problems = []
        for host in self.hosts:
            if not host.islower():
                problems.append(f"host name {host!r} is not lower case")
        for p in problems:
            log.error(p)
        return not problems
