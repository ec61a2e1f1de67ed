from . import exif, resize, watermark  # noqa: F401
