"""A print spooler: jobs queued per printer and fed to it page by page."""
