from ..registry import register


@register("watermark")
class Watermark:
    def __init__(self, log, arg):
        self.log = log
        self.text = arg or "(c) archive"

    def apply(self, photo):
        if photo.exif.get("license") == "cc0":
            self.log.info("%s is public domain, no mark", photo.name)
            return True
        photo.marks.append(self.text)
        self.log.info("marked %s with %r", photo.name, self.text)
        return True
