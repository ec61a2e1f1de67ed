import contextvars
import logging

request_id = contextvars.ContextVar("request_id", default="-")
_make_record = logging.getLogRecordFactory()


def _record(*args, **kwargs):
    # Every record carries the id of the request being served, for the formatter.
    rec = _make_record(*args, **kwargs)
    rec.request_id = request_id.get()
    return rec


logging.setLogRecordFactory(_record)
