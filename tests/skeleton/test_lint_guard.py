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


# on_commit is allowed for one thing only: a metrics callback (observability_api.record_*),
# which defers no job, so no job can be lost with it; the call must name it within 3 lines.
METRICS_CALLBACK = re.compile(r"\bobservability_api\.record_\w+")


def violations(source: str) -> list[str]:
    found = []
    lines = source.splitlines()
    for lineno, line in enumerate(lines, 1):
        code = line.split("#", 1)[0]
        for pattern, why in FORBIDDEN:
            if pattern.search(code):
                if why == FORBIDDEN[0][1] and METRICS_CALLBACK.search(" ".join(lines[lineno - 1 : lineno + 3])):
                    continue
                found.append(f"{lineno}: {why}: {line.strip()}")
    return found


def test_guard_catches_the_patterns_it_names() -> None:
    assert violations("transaction.on_commit(lambda: task.defer(id=1))")
    assert violations("transaction.on_commit(\n    functools.partial(jobs_api.defer, INGEST)\n)")
    assert not violations("transaction.on_commit(\n  functools.partial(\n    observability_api.record_parse_report,")
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
