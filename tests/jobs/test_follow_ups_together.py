"""FollowUps `together` (issue 26): jobs a batch holds are the same jobs, sent with the
batch's own in one statement when the batch ends, and dropped with a rollback before."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from ats.jobs import api as jobs_api
from tests.jobs.helpers import token

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("_no_jobs_left")]

STEP = "candidates.dedupe"  # a step the batch collects
HELD = "tests.interactive"  # no queueing lock, no delay: held
BATCH = "candidates.follow_ups"


_used: list[int] = []


def _token() -> int:
    _used.append(token())
    return _used[-1]


@pytest.fixture
def _no_jobs_left() -> Iterator[None]:
    """Nothing here runs a worker: this test's jobs go, so no other test's worker runs them."""
    yield
    with connection.cursor() as cur:
        cur.execute(
            "DELETE FROM procrastinate_jobs WHERE task_name IN (%s, %s)"
            " AND coalesce(args->>'token', args->>'candidate_id')::bigint = ANY(%s)",
            [HELD, BATCH, _used],
        )
    _used.clear()


def _jobs(task_name: str, tok: int) -> list[str]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT status::text FROM procrastinate_jobs WHERE task_name = %s AND args->>'token' = %s",
            [task_name, str(tok)],
        )
        return [r[0] for r in cur.fetchall()]


def _batches(candidate_id: int) -> int:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM procrastinate_jobs WHERE task_name = %s AND (args->>'candidate_id')::bigint = %s",
            [BATCH, candidate_id],
        )
        return int(cur.fetchone()[0])


def test_held_jobs_go_out_with_the_batch_in_one_statement() -> None:
    tok, tok2, cid = _token(), _token(), _token()
    with (
        transaction.atomic(),
        CaptureQueriesContext(connection) as q,
        jobs_api.follow_ups(STEP, together=[HELD]) as batch,
    ):
        assert jobs_api.defer(STEP, payload={"candidate_id": cid}) is None
        assert jobs_api.defer(HELD, payload={"token": tok}) is None
        assert jobs_api.defer(HELD, payload={"token": tok2}) is None
        assert _jobs(HELD, tok) == []  # held, not sent yet
        batch.defer_as_one(BATCH, candidate_id=cid)
    assert sum("procrastinate_defer_jobs" in x["sql"] for x in q.captured_queries) == 1
    assert _jobs(HELD, tok) == ["todo"] and _jobs(HELD, tok2) == ["todo"]
    assert _batches(cid) == 1


def test_held_jobs_go_out_when_the_steps_are_deferred_alone_or_there_are_none() -> None:
    tok, cid = _token(), _token()
    with transaction.atomic(), jobs_api.follow_ups(STEP, together=[HELD]) as batch:
        jobs_api.defer(HELD, payload={"token": tok})
        batch.defer_as_one(BATCH, candidate_id=cid)  # no step collected: no batch job
    assert _jobs(HELD, tok) == ["todo"] and _batches(cid) == 0
    tok = _token()
    with transaction.atomic(), jobs_api.follow_ups(STEP, together=[HELD]) as batch:
        jobs_api.defer(HELD, payload={"token": tok})
        batch.defer_alone()
    assert _jobs(HELD, tok) == ["todo"]


def test_held_jobs_roll_back_with_the_work_that_deferred_them() -> None:
    tok, cid = _token(), _token()
    with pytest.raises(RuntimeError), transaction.atomic(), jobs_api.follow_ups(STEP, together=[HELD]):
        jobs_api.defer(HELD, payload={"token": tok})
        raise RuntimeError("the step failed")
    assert _jobs(HELD, tok) == [] and _batches(cid) == 0
    # Outside a batch the same defer is sent at once, as before.
    with transaction.atomic():
        assert jobs_api.defer(HELD, payload={"token": tok}) is not None
    assert _jobs(HELD, tok) == ["todo"]


def test_a_batch_left_with_held_jobs_unsent_raises_and_rolls_back() -> None:
    # Never a silent loss: a caller that forgets to end the batch fails its transaction.
    tok = _token()
    with (
        pytest.raises(RuntimeError, match="not sent"),
        transaction.atomic(),
        jobs_api.follow_ups(STEP, together=[HELD]),
    ):
        jobs_api.defer(HELD, payload={"token": tok})
    assert _jobs(HELD, tok) == []
