"""A cold-store depot: stock per bay, pick lists, temperature checks."""
