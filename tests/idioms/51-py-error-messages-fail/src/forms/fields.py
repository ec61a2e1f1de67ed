import logging

log = logging.getLogger(__name__)


class Field:
    default_error_messages = {
        "required": "This field is required.",
        "invalid": "Enter a valid value, not {value!r}.",
    }

    def __init__(self, name):
        self.name = name
        self.error_messages = {}
        for cls in reversed(type(self).__mro__):
            self.error_messages.update(getattr(cls, "default_error_messages", {}))

    def fail(self, key, **kwargs):
        log.warning("%s: %s", self.name, self.error_messages[key].format(**kwargs))
        return False

    def clean(self, value):
        if value in (None, ""):
            return self.fail("required")
        return self.check(value)

    def check(self, value):
        return True


class IntegerField(Field):
    default_error_messages = {
        "invalid": "A valid integer is required, got {value!r}.",
        "max_value": "Ensure this value is at most {limit} (it is {value}).",
    }

    def __init__(self, name, limit):
        super().__init__(name)
        self.limit = limit

    def check(self, value):
        if not str(value).lstrip("-").isdigit():
            return self.fail("invalid", value=value)
        if int(value) > self.limit:
            return self.fail("max_value", limit=self.limit, value=value)
        return True


class EmailField(Field):
    default_error_messages = {"invalid": "Enter a valid email address."}

    def check(self, value):
        return "@" in value or self.fail("invalid")
