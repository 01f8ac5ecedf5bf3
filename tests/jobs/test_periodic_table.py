"""ADR 0004 §4's periodic table, as code: every row is a registered, locked periodic job
(or explicitly pending), and `ats policy --json` says which policy rows have a task."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ats.jobs import api as jobs_api
from ats.jobs import ops_api as jobs_ops
from ats.parse_worker import api as parse_worker_api

_HERE = Path(__file__).resolve()
ADR_CANDIDATES = [
    _HERE.parents[3] / "shared" / "seed" / "0004-background-job-queue.md",
    Path("/work/shared/seed/0004-background-job-queue.md"),
]
ADR = next((p for p in ADR_CANDIDATES if p.exists()), ADR_CANDIDATES[0])

# ADR §4 transcribed: (schedule, task wording) - one entry per task named in a cell.
ADR_ROWS = {
    ("every 2 min", "Graph mail poll per active channel"),
    ("every 15 min", "Circuit-breaker health probe"),
    ("every 15 min", "requeue `scheduled` retries"),
    ("hourly", "Search-index refresh sweep for rows whose triggers deferred work"),
    ("nightly", "Retention purge"),
    ("nightly", "orphan-blob reconciliation"),
    ("nightly", "`retention_due_on` recompute"),
    ("nightly", "audit hash-chain verification"),
    ("daily", "Export the closed audit partition to the immutable archive (ADR 0003)"),
    ("monthly", "Create next month's audit partitions (and drop/detach at 13 months)"),
    ("Phase 3, weekly", "Fairness / disparate-impact evaluation"),
}

# Periodic jobs another issue implements. Each later issue removes its row from here;
# the test below fails as soon as a listed job is registered, so the list only shrinks.
PENDING_PERIODIC: set[str] = set()  # fairness.evaluate landed with issue 27

# Policy rows whose task is not written yet (same rule: shrink only).
PENDING_TASKS: set[str] = set()


def _adr_section() -> set[tuple[str, str]]:
    text = ADR.read_text()
    section = text.split("### 4. Periodic tasks", 1)[1].split("###", 1)[0]
    rows = set()
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or cells[0] in {"Schedule", ""} or set(cells[0]) <= {"-"}:
            continue
        # "Retention purge; orphan-blob reconciliation; ..." -> one row per task
        for task in re.split(r";\s*", cells[1]):
            rows.add((cells[0], task.strip()))
    return rows


@pytest.mark.skipif(not ADR.exists(), reason="ADR not beside the checkout; the transcription still ran")
def test_transcription_equals_the_adr_document() -> None:
    assert _adr_section() == ADR_ROWS


def test_every_adr_row_is_in_the_periodic_table() -> None:
    table = {(p.adr_schedule, p.adr_task) for p in jobs_ops.PERIODIC if p.adr_schedule}
    assert table == ADR_ROWS


# The rescue must not hold a lock: a rescue run killed mid-way stays `doing` until a rescue
# re-queues it, and with a lock no later rescue could be fetched (tests/jobs/
# test_hard_timeout.py). Two rescues side by side are safe: both take rows SKIP LOCKED.
UNLOCKED_PERIODIC = {"jobs.rescue_and_sweep"}


def test_every_periodic_row_is_a_registered_locked_job_or_pending() -> None:
    parse_worker_api.import_tasks()
    registered = jobs_ops.registered_periodic()
    for row in jobs_ops.PERIODIC:
        if row.task_name in PENDING_PERIODIC:
            assert row.pending, row.task_name
            assert row.task_name not in registered, f"{row.task_name} is implemented: remove it from the pending list"
            continue
        assert not row.pending, row.task_name
        assert registered.get(row.task_name) == row.effective_cron(), row.task_name
        policy = jobs_api.policy_for(row.task_name)
        if row.task_name in UNLOCKED_PERIODIC:
            assert policy.lock is None, row.task_name
            continue
        # A fixed lock: two ticks of one schedule never run side by side.
        assert policy.lock and "{" not in policy.lock, row.task_name
    # ...and nothing is scheduled that the table does not list.
    assert set(registered) <= {r.task_name for r in jobs_ops.PERIODIC}


def test_every_policy_row_has_a_task_or_is_pending() -> None:
    parse_worker_api.import_tasks()
    registered = jobs_ops.registered_task_names()
    missing = {p.task_name for p in jobs_ops.POLICIES if p.task_name not in registered}
    assert missing == PENDING_TASKS, (
        f"no task for {sorted(missing - PENDING_TASKS)}; now implemented: {sorted(PENDING_TASKS - missing)}"
    )


def test_ats_policy_json_marks_task_registered(ats_cli) -> None:  # type: ignore[no-untyped-def]
    res = ats_cli("policy", "--json")
    assert res.returncode == 0, res.stderr
    rows = {r["task_name"]: r for r in map(json.loads, res.stdout.splitlines())}
    assert {name for name, r in rows.items() if not r["task_registered"]} == PENDING_TASKS
    assert rows["audit.verify"]["task_registered"] is True
    assert rows["audit.verify"]["periodic"] == "15 3 * * *"
    assert (
        rows["intake.parse_attachment"]["task_registered"] is True
    )  # ats.parse_worker.tasks counts (an app the trusted settings do not install)
