"""Full-text search over candidates and documents (a side table of its own)."""
