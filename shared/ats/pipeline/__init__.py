"""Cross-module chain steps: the candidate step, its receivers and the commands that span modules."""
