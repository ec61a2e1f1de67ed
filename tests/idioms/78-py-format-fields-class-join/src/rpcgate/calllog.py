class CallLine:
    """Renders one finished call; subclasses change FORMAT."""

    FORMAT = "{peer} -> {service}.{method} [{code}] {elapsed_ms:.1f}ms"

    def render(self, **fields):
        return self.FORMAT.format(**fields)


class VerboseCallLine(CallLine):
    FORMAT = CallLine.FORMAT + " req={req_bytes}B resp={resp_bytes}B deadline={deadline!r}"


def summary_line(service, calls, failures, retried=None):
    parts = [service, str(calls), "calls"]
    if failures:
        parts += ["(%d failed)" % failures]
    if retried:
        parts.append("retried:")
        parts.extend(sorted(retried))
    return " ".join(parts)
