"""Intake: raw_intake -> attachment -> scan -> parse hand-off, and the lost-document detector."""
