"""The parse role's two database calls: read a hand-off row, report through ats_parse_submit().

Plain SQL on Django's connection: the intake models are not installed in this process
(policy/db-role.sql grants the role exactly these two things on the domain side).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from django.db import IntegrityError, connection

from ats.errors import AtsError, Refused


class ParseWorkerError(AtsError):
    """Base of the errors worker-untrusted's package raises on purpose."""


class ReportRefused(ParseWorkerError, Refused):
    """ats_parse_submit() refused the report's content (check_violation): final for it."""


@dataclasses.dataclass(frozen=True)
class Handoff:
    kind: str
    data: bytes


def handoff_get(*, attachment_id: int, attempt_no: int) -> Handoff | None:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT kind, data FROM intake_parse_handoff WHERE attachment_id = %s AND attempt_no = %s",
            [attachment_id, attempt_no],
        )
        row = cur.fetchone()
    return None if row is None else Handoff(kind=str(row[0]), data=bytes(row[1]))


def result_submit(
    *,
    job_id: int,
    attachment_id: int,
    attempt_no: int,
    ok: bool,
    code: str | None,
    detail: str,
    text: str,
    page_count: int | None,
    result: dict[str, Any],
    policy_hash: str,
    result_json: str | None = None,
) -> bool:
    """Report a parse outcome through ats_parse_submit() (the role's only write).

    The function checks that this worker holds the job, validates the report, records it
    and defers `intake.apply_parse_result` in this transaction. False when this attempt
    was already reported. `result_json`: `result` already encoded by the caller (the
    runner encodes the report once, to check its size, and sends that text).
    """
    try:
        # One statement is its own transaction (autocommit): BEGIN/COMMIT around it were two
        # round trips more per report, and atomicity is the function's, not the block's.
        with connection.cursor() as cur:
            args = [job_id, attachment_id, attempt_no, ok, code, detail, text, page_count]
            args.append(json.dumps(result) if result_json is None else result_json)
            cur.execute("SELECT ats_parse_submit(%s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s)", [*args, policy_hash])
            return bool(cur.fetchone()[0])
    except IntegrityError as exc:  # check_violation: the content, not the moment, is wrong
        raise ReportRefused(str(exc).splitlines()[0]) from exc


def page_submit(
    *,
    job_id: int,
    attachment_id: int,
    attempt_no: int,
    page_no: int,
    width: int,
    height: int,
    unit_width: float,
    unit_height: float,
    data: bytes,
    last: bool = False,
) -> bool:
    """One rendered page through ats_parse_page_submit() (policy/page-images.sql): its own
    row and byte limit, one short statement, never part of the parse report.

    `last`: the document's last page - the same statement then calls
    ats_parse_pages_done() too, in the same (implicit) transaction: one round trip, and
    the trusted step is deferred exactly when the last page is in (issue 26). If it
    fails, the page is not in and nothing is deferred; the caller then reports pages_done
    alone, as after any page that failed."""
    args: list[Any] = [job_id, attachment_id, attempt_no, page_no, width, height, unit_width, unit_height, data]
    sql = "SELECT ats_parse_page_submit(%s, %s, %s, %s, %s, %s, %s, %s, %s)"
    if last:
        sql += ", ats_parse_pages_done(%s, %s, %s)"
        args += [job_id, attachment_id, attempt_no]
    with connection.cursor() as cur:  # one statement: its own transaction (autocommit)
        cur.execute(sql, args)
        return bool(cur.fetchone()[0])


def pages_done(*, job_id: int, attachment_id: int, attempt_no: int) -> None:
    """Every page is in: ats_parse_pages_done() defers the trusted step that checks and stores them."""
    with connection.cursor() as cur:  # one statement: its own transaction (autocommit)
        cur.execute("SELECT ats_parse_pages_done(%s, %s, %s)", [job_id, attachment_id, attempt_no])
