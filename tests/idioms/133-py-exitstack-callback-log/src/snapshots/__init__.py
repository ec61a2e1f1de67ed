"""Nightly backups: volumes snapshotted under a host lock and copied to a
target, every resource released by an ExitStack."""
