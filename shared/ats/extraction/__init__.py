"""Candidate field extraction: pure functions over a validated parse answer's blocks."""
