"""Read the scanner-limit configuration (services/clamd/limits*.conf): the one source of
clamd's limits for `just up`, compose and Kubernetes (see the file's header)."""

from __future__ import annotations

import re
from pathlib import Path

from ats.devtools._localproc import REPO_ROOT

LIMITS_DIR = REPO_ROOT / "services" / "clamd"
PROFILES = {"standard": LIMITS_DIR / "limits.conf", "raised": LIMITS_DIR / "limits-raised.conf"}
_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}


def limit_lines(profile: str = "standard") -> list[str]:
    """The directive lines of a profile, in file order (comments and blanks dropped)."""
    text = Path(PROFILES[profile]).read_text()
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def limits(profile: str = "standard") -> dict[str, str]:
    return dict(line.split(None, 1) for line in limit_lines(profile))  # type: ignore[misc]


def size_bytes(value: str) -> int:
    """clamd's size syntax: 25M, 512K, 1G or plain bytes."""
    m = re.fullmatch(r"(\d+)([KMG]?)", value.strip().upper())
    if not m:
        raise ValueError(f"not a clamd size: {value!r}")
    return int(m.group(1)) * _UNITS[m.group(2)]
