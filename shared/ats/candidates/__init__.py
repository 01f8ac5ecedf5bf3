"""Candidates: the people behind inbound documents."""
