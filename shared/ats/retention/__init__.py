"""Retention: erasure and subject access, the nightly purge, tombstones and the erasure log."""
