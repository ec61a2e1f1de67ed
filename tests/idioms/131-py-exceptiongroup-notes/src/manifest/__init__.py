"""Container manifests checked before loading: every line validated, the
problems raised together in an ExceptionGroup and sorted by the desk."""
