import logging

from .fields import EmailField, Field, IntegerField

log = logging.getLogger(__name__)


def signup(data):
    fields = [Field("name"), EmailField("email"), IntegerField("age", 130)]
    ok = all([f.clean(data.get(f.name)) for f in fields])
    if ok:
        log.info("Signup of %s accepted", data["name"])
    else:
        log.info("Signup form has errors; %d fields checked", len(fields))
    return ok
