"""ATS intake and background-processing platform: the one codebase all three deployables run."""
