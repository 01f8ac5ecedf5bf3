"""Plain data of worker-untrusted: the bounds of a parse report and the parse role's SQL.

`policy/limits.toml` is the one source: the sandbox's validator reads `[parse]`, the parse
worker checks `[report]` before it submits, and `role_sql()` writes the same numbers into
`policy/db-role.sql` (applied by the intake migrations), so the three cannot disagree.
No Django import: migrations and tests call this too.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path
from typing import Any

from ats.parsing.data import ACCEPTED_SCHEMA_VERSIONS
from ats.sandbox.data import PAGE_LIMITS

PARSE_TASK = "intake.parse_attachment"
# ats.jobs' policy row for PARSE_TASK formats its lock from this template; the SQL pins it.
PARSE_LOCK_PREFIX = "parse:attachment:"


@dataclasses.dataclass(frozen=True)
class ReportLimits:
    max_page_count: int
    max_text_chars: int
    max_detail_chars: int
    max_result_bytes: int


@dataclasses.dataclass(frozen=True)
class RoleLimits:
    connection_limit: int
    statement_timeout_ms: int
    lock_timeout_ms: int
    idle_in_transaction_timeout_ms: int


def _limits_toml(policy_dir: Path) -> dict[str, Any]:
    with open(policy_dir / "limits.toml", "rb") as fh:
        return tomllib.load(fh)


def report_limits(policy_dir: Path) -> ReportLimits:
    raw = _limits_toml(policy_dir)
    parse, report = raw["parse"], raw["report"]
    return ReportLimits(
        # Any kind: PDFs and images stop at max_pages, a DOCX's estimate at max_docx_pages.
        max_page_count=max(int(parse["max_pages"]), int(parse["max_docx_pages"])),
        max_text_chars=int(parse["max_text_chars"]),
        max_detail_chars=int(report["max_detail_chars"]),
        max_result_bytes=int(report["max_result_bytes"]),
    )


def role_limits(policy_dir: Path) -> RoleLimits:
    return RoleLimits(**{k: int(v) for k, v in _limits_toml(policy_dir)["db_role"].items()})


def role_sql(policy_dir: Path, role: str, *, parse_priority: int) -> str:
    """policy/db-role.sql with `:role` and every bound substituted (`::casts` untouched)."""
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", role):
        raise ValueError(f"parse role {role!r} is not a plain lower-case identifier")
    values: dict[str, str] = {"role": role, "parse_priority": str(int(parse_priority))}
    values |= {k: str(v) for k, v in dataclasses.asdict(report_limits(policy_dir)).items()}
    values |= {k: str(v) for k, v in dataclasses.asdict(role_limits(policy_dir)).items()}
    # The answer schemas the trusted validator accepts (the current one and the previous,
    # for one release): one source, so SQL and Python cannot disagree.
    values["accepted_schemas"] = ", ".join(f"'{v}'::jsonb" for v in sorted(ACCEPTED_SCHEMA_VERSIONS))
    sql = (policy_dir / "db-role.sql").read_text()

    def sub(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise KeyError(f"db-role.sql names :{name}, which limits.toml does not define")
        return values[name]

    return re.sub(r"(?<![:\w]):([a-z_]+)\b", sub, sql)


# --- the page-image hand-off (policy/page-images.sql), bounds from ats.sandbox.pages ---------
# One source for the SQL, the parse worker and the trusted check: PAGE_LIMITS and the store
# task's policy row, so they cannot disagree.
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
