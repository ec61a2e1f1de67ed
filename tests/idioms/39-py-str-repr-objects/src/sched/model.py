class Job:
    def __init__(self, jid, state):
        self.jid = jid
        self.state = state

    def __repr__(self):
        return f"<Job id={self.jid} state={self.state!r}>"


class Event:
    def __init__(self, kind, job):
        self.kind = kind
        self.job = job

    def __str__(self):
        return "event %s for job %d" % (self.kind, self.job.jid)
