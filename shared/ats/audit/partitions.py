"""Monthly partitions of audit_event: names, bounds, listing, creation."""

from __future__ import annotations

import dataclasses
import datetime
import re

from django.db import connection

PREFIX = "audit_event_y"
_NAME_RE = re.compile(r"^audit_event_y(\d{4})m(\d{2})$")


def month_of(dt: datetime.datetime | datetime.date) -> datetime.date:
    return datetime.date(dt.year, dt.month, 1)


def next_month(month: datetime.date) -> datetime.date:
    return datetime.date(month.year + (month.month == 12), month.month % 12 + 1, 1)


def add_months(month: datetime.date, n: int) -> datetime.date:
    index = month.year * 12 + (month.month - 1) + n
    return datetime.date(index // 12, index % 12 + 1, 1)


def parse_month(text: str) -> datetime.date:
    """'YYYY-MM' -> first day of that month."""
    m = re.fullmatch(r"(\d{4})-(\d{2})", text.strip())
    if not m or not 1 <= int(m.group(2)) <= 12:
        raise ValueError(f"month must be YYYY-MM, got {text!r}")
    return datetime.date(int(m.group(1)), int(m.group(2)), 1)


def name_for(month: datetime.date) -> str:
    return f"{PREFIX}{month:%Y}m{month:%m}"


def bounds(month: datetime.date) -> tuple[datetime.datetime, datetime.datetime]:
    start = datetime.datetime(month.year, month.month, 1, tzinfo=datetime.UTC)
    end_m = next_month(month)
    return start, datetime.datetime(end_m.year, end_m.month, 1, tzinfo=datetime.UTC)


@dataclasses.dataclass(frozen=True)
class Partition:
    name: str
    month: datetime.date


def existing() -> list[Partition]:
    """Attached partitions of audit_event, oldest first."""
    with connection.cursor() as cur:
        cur.execute(
            """SELECT c.relname FROM pg_inherits i
                 JOIN pg_class c ON c.oid = i.inhrelid
                 JOIN pg_class p ON p.oid = i.inhparent
                WHERE p.relname = 'audit_event'"""
        )
        names = [r[0] for r in cur.fetchall()]
    out = []
    for name in names:
        m = _NAME_RE.match(name)
        if m:
            out.append(Partition(name, datetime.date(int(m.group(1)), int(m.group(2)), 1)))
    return sorted(out, key=lambda p: p.month)


def create(month: datetime.date) -> bool:
    """Create the month's partition if missing; True if it was created.

    The append-only trigger is defined on the parent, so Postgres clones it onto every
    new partition.
    """
    name = name_for(month)
    start, end = bounds(month)
    with connection.cursor() as cur:
        cur.execute("SELECT to_regclass(%s)", [name])
        if cur.fetchone()[0] is not None:
            return False
        cur.execute(
            # Literals, not parameters: DDL takes no bind parameters (and these are ours).
            f"CREATE TABLE IF NOT EXISTS {name} PARTITION OF audit_event "
            f"FOR VALUES FROM ('{start.isoformat()}') TO ('{end.isoformat()}')"
        )
    return True


def drop(month: datetime.date) -> None:
    name = name_for(month)
    with connection.cursor() as cur:
        cur.execute(f"ALTER TABLE audit_event DETACH PARTITION {name}")
        cur.execute(f"DROP TABLE {name}")
