"""Forced interleaving with real parallel workers: two documents of the same person
arrive together, and each one's dedupe job runs at the same time in its own worker.

The pause seam (ATS_TEST_DEDUPE_PAUSE_S, a pg_sleep between "is there a pair?" and the
insert, inside the pair's transaction) makes both jobs pass the check before either
inserts - 2 cores rarely interleave by chance. Two guards stand between that and two
pairs: the database constraint (unique per unordered pair) and the row locks (both
candidates locked in id order before the check). Each alone suffices - the losing job
ends as a logged no-op - and the test fails with both removed: the `neither` variant
asserts the two pairs it then gets, so the test is shown able to fail.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection, transaction

from ats.candidates import api as candidates_api
from ats.candidates.models import PAIR_UNIQUE, CandidateMerge, DuplicatePair
from tests.candidates.helpers import VIEWER, attachment_id, extraction
from tests.conftest import start_side_by_side
from tests.jobs.helpers import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PAUSE_S = "1.5"


@pytest.fixture
def constraint_removed() -> Iterator[None]:
    with connection.cursor() as cur:
        cur.execute(f"ALTER TABLE candidate_duplicate_pair DROP CONSTRAINT {PAIR_UNIQUE}")
    try:
        yield
    finally:
        with connection.cursor() as cur:
            cur.execute(
                "DELETE FROM candidate_duplicate_pair p USING candidate_duplicate_pair q"
                " WHERE p.candidate_low_id = q.candidate_low_id AND p.candidate_high_id = q.candidate_high_id"
                " AND p.id > q.id"
            )
            cur.execute(
                f"ALTER TABLE candidate_duplicate_pair ADD CONSTRAINT {PAIR_UNIQUE}"
                " UNIQUE (candidate_low_id, candidate_high_id)"
            )


def _dedupe_jobs(ids: list[int]) -> list[tuple[int, str, int | None]]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT (args->>'candidate_id')::bigint, status::text, worker_id FROM procrastinate_jobs"
            " WHERE task_name = 'candidates.dedupe' AND (args->>'candidate_id')::bigint = ANY(%s) ORDER BY id",
            [ids],
        )
        return list(cur.fetchall())


def _arrive_together(**same: Any) -> tuple[int, int]:
    """Two documents of one person committed in one transaction: both dedupe jobs are
    deferred together, and the two idle workers pick one each."""
    with transaction.atomic():
        a = candidates_api.candidate_apply_document(
            attachment_id=attachment_id(),
            parse_attempt=1,
            extraction=extraction(name="Jane Doe", emails=("jane@work.example",), **same),
        )
        b = candidates_api.candidate_apply_document(
            attachment_id=attachment_id(),
            parse_attempt=1,
            extraction=extraction(name="Jane Doe", emails=("jane.doe@home.example",), **same),
        )
    assert a is not None and b is not None
    return a.id, b.id


def _run(start_worker: Any, env: dict[str, str], **same: Any) -> tuple[int, int, list[Any]]:
    workers = start_side_by_side(start_worker, 2, "default", extra=["--concurrency=1"], env=env)
    a, b = _arrive_together(**same)
    wait_for(
        lambda: [s for _, s, _ in _dedupe_jobs([a, b])] == ["succeeded", "succeeded"],
        60,
        "both dedupe jobs to finish",
    )
    jobs = _dedupe_jobs([a, b])
    # Real parallelism: each job ran in its own worker process.
    assert len({w for _, _, w in jobs}) == 2, jobs
    return a, b, workers


@pytest.mark.parametrize(
    ("constraint", "row_lock"),
    [(True, True), (True, False), (False, True)],
    ids=["constraint+lock", "constraint-only", "lock-only"],
)
def test_two_documents_of_one_person_give_one_pair(
    start_worker: Any, request: pytest.FixtureRequest, constraint: bool, row_lock: bool
) -> None:
    if not constraint:
        request.getfixturevalue("constraint_removed")
    env = {"ATS_TEST_DEDUPE_PAUSE_S": PAUSE_S, "ATS_LOG_LEVEL": "INFO"}
    if not row_lock:
        env["ATS_TEST_DEDUPE_NO_ROW_LOCK"] = "1"
    a, b, workers = _run(start_worker, env, phones=("+442079460123",))
    pairs = list(DuplicatePair.objects.filter(candidate_low_id=a, candidate_high_id=b))
    assert len(pairs) == 1 and pairs[0].kind == "same_person" and "+442079460123" in pairs[0].reason
    logs = "".join(w.tail(20000) for w in workers)
    # The losing job is a logged no-op, not an error.
    expected = "already recorded: no-op" if row_lock else "inserted by a concurrent job"
    assert expected in logs, logs[-3000:]
    assert "Traceback" not in logs


def test_without_constraint_and_lock_the_race_makes_two_pairs(start_worker: Any, constraint_removed: None) -> None:
    env = {"ATS_TEST_DEDUPE_PAUSE_S": PAUSE_S, "ATS_TEST_DEDUPE_NO_ROW_LOCK": "1"}
    a, b, _ = _run(start_worker, env, phones=("+442079460124",))
    assert DuplicatePair.objects.filter(candidate_low_id=a, candidate_high_id=b).count() == 2


def test_same_contact_email_gives_one_candidate(start_worker: Any) -> None:
    env = {"ATS_TEST_DEDUPE_PAUSE_S": PAUSE_S}
    with transaction.atomic():
        ids = []
        for _ in range(2):
            c = candidates_api.candidate_apply_document(
                attachment_id=attachment_id(),
                parse_attempt=1,
                # Contact e-mail AND phone: e-mail alone is a pair for review (issue 21 N3).
                extraction=extraction(
                    name="Jane Doe",
                    emails=("jane@x.example",),
                    contact_emails=("jane@x.example",),
                    phones=("+442079460125",),
                ),
            )
            assert c is not None
            ids.append(c.id)
    workers = start_side_by_side(start_worker, 2, "default", extra=["--concurrency=1"], env=env)
    a, b = ids
    wait_for(lambda: CandidateMerge.objects.filter(survivor_id=a, merged_id=b).exists(), 60, "the automatic merge")
    wait_for(
        lambda: {s for _, s, _ in _dedupe_jobs([a, b])} == {"succeeded"} and len(_dedupe_jobs([a, b])) >= 2,
        60,
        "the dedupe jobs to finish",
    )
    assert CandidateMerge.objects.count() == 1
    da, db = candidates_api.candidate_detail(a, actor=VIEWER), candidates_api.candidate_detail(b, actor=VIEWER)
    assert da is not None and db is not None
    assert da["status"] == "active" and db["status"] == "merged" and len(da["documents"]) == 2
    assert DuplicatePair.objects.filter(candidate_low_id=a, candidate_high_id=b).count() == 1
    assert "Traceback" not in "".join(w.tail(20000) for w in workers)
