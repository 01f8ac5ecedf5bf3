"""ADR risk R1: nobody defers outside `ats.jobs`, and nobody uses transaction.on_commit."""

from __future__ import annotations

import re
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "ats"
JOBS = SHARED / "jobs"
FORBIDDEN = [
    (re.compile(r"\bon_commit\s*\("), "transaction.on_commit reopens the lost-job window"),
    # `jobs_api.defer(...)` is the facade itself (`jobs_ops.defer`, the operators' "run now",
    # is the same function); any other `.defer(` bypasses it.
    (re.compile(r"(?<!jobs_api)(?<!jobs_ops)\.defer(_async)?\s*\("), "defer only through ats.jobs.api.defer"),
    (re.compile(r"\.batch_defer(_async)?\s*\("), "defer only through ats.jobs.api.defer"),
]


def violations(source: str) -> list[str]:
    found = []
    lines = source.splitlines()
    for lineno, line in enumerate(lines, 1):
        code = line.split("#", 1)[0]
        for pattern, why in FORBIDDEN:
            if pattern.search(code):
                found.append(f"{lineno}: {why}: {line.strip()}")
    return found


def test_guard_catches_the_patterns_it_names() -> None:
    assert violations("transaction.on_commit(lambda: task.defer(id=1))")
    assert violations("transaction.on_commit(\n    functools.partial(jobs_api.defer, INGEST)\n)")
    # No exception, not even for a metrics callback: metrics recorded after a commit are
    # recorded by the caller after its atomic block (ats.pipeline's apply_parse_result).
    assert violations("transaction.on_commit(\n  functools.partial(\n    observability_api.record_parse_report,")
    assert violations("ingest_task.defer(attachment_id=att.pk)")
    assert violations("await t.defer_async(x=1)")
    assert not violations("jobs_api.defer(INGEST, payload={})  # the facade; .defer( in a comment")
    assert not violations('jobs_ops.defer("retention.purge", payload={})')  # the operators' facade


def test_no_defer_or_on_commit_outside_jobs() -> None:
    offenders = {}
    for path in SHARED.rglob("*.py"):
        if JOBS in path.parents:
            continue
        found = violations(path.read_text())
        if found:
            offenders[str(path.relative_to(SHARED))] = found
    assert offenders == {}
