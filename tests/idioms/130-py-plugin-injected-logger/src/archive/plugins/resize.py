from ..registry import register


@register("resize")
class Resize:
    def __init__(self, log, arg):
        self.log = log
        self.max_side = int(arg or 2048)

    def apply(self, photo):
        side = max(photo.width, photo.height)
        if side < 200:
            self.log.warning("%s is only %dx%d, too small to keep", photo.name, photo.width, photo.height)
            return False
        if side <= self.max_side:
            self.log.debug("%s fits in %d px", photo.name, self.max_side)
            return True
        scale = self.max_side / side
        photo.width, photo.height = round(photo.width * scale), round(photo.height * scale)
        self.log.info("%s scaled to %dx%d", photo.name, photo.width, photo.height)
        return True
