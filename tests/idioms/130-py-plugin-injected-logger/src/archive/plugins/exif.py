from ..registry import register

PRIVATE = ("gps", "serial", "owner")


@register("strip-exif")
class StripExif:
    def __init__(self, log, arg):
        self.log = log
        self.keep = set(arg.split(",")) if arg else set()

    def apply(self, photo):
        gone = [k for k in PRIVATE if k in photo.exif and k not in self.keep]
        for k in gone:
            del photo.exif[k]
        if gone:
            self.log.info("removed %s from %s", ", ".join(gone), photo.name)
        else:
            self.log.debug("nothing private in %s", photo.name)
        return True
