import logging


class TaggedAdapter(logging.LoggerAdapter):
    """Appends the adapter's context, and the call's own extra, to the
    message as sorted key=value tags: "message [carrier=x attempt=2]"."""

    def process(self, msg, kwargs):
        extra = {**self.extra, **kwargs.pop("extra", {})}
        kwargs["extra"] = extra
        tags = " ".join(f"{k}={v}" for k, v in sorted(extra.items()))
        return f"{msg} [{tags}]", kwargs


def tagged(name, **context):
    return TaggedAdapter(logging.getLogger(name), context)
