"""A gazetteer of place names: folding to ASCII for search keys, checking
scripts, and a command line that marks its results with symbols."""
