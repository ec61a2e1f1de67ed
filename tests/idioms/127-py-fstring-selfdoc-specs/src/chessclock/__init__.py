"""A tournament chess clock: two sides, a base time and an increment."""
