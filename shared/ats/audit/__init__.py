"""Append-only audit trail."""
