"""A photo archive's ingest pipeline: steps are plugins found in a
registry by name, each handed a logger of its own by the host."""
