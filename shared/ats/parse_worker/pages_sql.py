"""policy/page-images.sql with its bounds substituted (no Django: migrations and tests call it).

The bounds come from the one source both sides use (ats.sandbox.pages.PAGE_LIMITS) and the
store task's policy row, so the SQL, the parse worker and the trusted check cannot disagree.
"""

from __future__ import annotations

import re
from pathlib import Path

from ats.sandbox.data import PAGE_LIMITS

STORE_TASK = "intake.store_page_images"


def pages_sql(policy_dir: Path, role: str, *, store_priority: int) -> str:
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", role):
        raise ValueError(f"parse role {role!r} is not a plain lower-case identifier")
    values = {
        "role": role,
        "max_pages": str(PAGE_LIMITS.max_pages),
        "max_page_bytes": str(PAGE_LIMITS.max_compressed_bytes),
        "store_priority": str(int(store_priority)),
    }
    sql = (policy_dir / "page-images.sql").read_text()

    def sub(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise KeyError(f"page-images.sql names :{name}, which has no value")
        return values[name]

    return re.sub(r"(?<![:\w]):([a-z_]+)\b", sub, sql)
