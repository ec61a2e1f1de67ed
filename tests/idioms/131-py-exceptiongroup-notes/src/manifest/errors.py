class ManifestError(Exception):
    pass


class WeightError(ManifestError):
    pass


class CustomsError(ManifestError):
    pass


class RateUnavailable(Exception):
    pass
