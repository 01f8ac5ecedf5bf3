"""Voluntary self-identification and the fairness report (aggregates only, read by no scorer)."""
