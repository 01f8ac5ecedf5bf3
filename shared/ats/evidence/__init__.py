"""The per-document evidence chain: re-read bytes and rows, compare with the audit chain."""
