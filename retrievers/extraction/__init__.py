"""Fields found in a document's own text at ingest, with the place each value was read from (issue 31)."""
