"""Issue 26 item 4, ADR 0004 §5 / risk R5: PgBouncer run for real (Debian's 1.18, transaction
mode, the k8s component's ini via ats.devtools.pgbouncer_local) in front of the test
cluster. Web and worker-default's task connections go through it; procrastinate's LISTEN
and the watchdog's fence take the session path (ats.jobs.session); worker-untrusted stays
direct (its row-level security keys on inet_client_addr()).

The polling interval is POLL_S: a document's hops all picked up well inside it prove the
wake-ups came by NOTIFY on the direct LISTEN connection, not by polling."""

from __future__ import annotations

import time
import types
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ats.devtools.pgbouncer_local import PgBouncerLocal, pgbouncer_path
from ats.jobs.watchdog import FENCE_NAMESPACE
from tests.chaos.driver import Web
from tests.conftest import run_ats
from tests.web.helpers import unique_pdf

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(pgbouncer_path() is None, reason="pgbouncer not installed (apt-get install pgbouncer)"),
]

POLL_S = 120.0


@pytest.fixture
def pgbouncer(stack_env: dict[str, str], state_dir: Path) -> Iterator[PgBouncerLocal]:
    with PgBouncerLocal(
        state_dir=state_dir / f"pgbouncer-{uuid.uuid4().hex[:8]}", server_url=stack_env["DATABASE_URL"]
    ) as pgb:
        yield pgb


@pytest.fixture
def pooled_env(stack_env: dict[str, str], pgbouncer: PgBouncerLocal) -> dict[str, str]:
    direct = stack_env["DATABASE_URL"]
    return {
        **stack_env,
        "DATABASE_URL": pgbouncer.url(direct),
        "ATS_DB_POOLER": "transaction",
        "ATS_SESSION_DATABASE_URL": direct,
        "ATS_POLL_INTERVAL_S": str(POLL_S),
    }


def _rows(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute(sql, params)
        return list(cur.fetchall())


def _wait_terminal(attachment_id: int, timeout_s: float) -> dict[str, Any]:
    from ats.intake import api as intake_api

    deadline = time.monotonic() + timeout_s
    while True:
        att = intake_api.Attachment.objects.get(pk=attachment_id)
        status = intake_api.attachment_status(att)
        if status["terminal"] or time.monotonic() > deadline:
            return status
        time.sleep(0.2)


@pytest.mark.django_db(transaction=True)
def test_web_and_tasks_through_pgbouncer_listen_and_fence_direct(
    pgbouncer: PgBouncerLocal, pooled_env: dict[str, str], stack_env: dict[str, str], start_worker: Any
) -> None:
    # PgBouncer first: fixtures tear down in reverse, so the workers stop while their
    # pooler still answers (stopped the other way round, worker-default's stop waited
    # out its 30 s timeout on a dead pooled connection).
    state = Path(stack_env["ATS_STATE_DIR"])
    [(first_job,)] = _rows("SELECT coalesce(max(id), 0) FROM procrastinate_jobs", [])
    default = start_worker("default", env=pooled_env)
    # worker-untrusted as `just up` runs it beside the pooler: direct, never pooled.
    untrusted = start_worker("untrusted", env={"ATS_POLL_INTERVAL_S": str(POLL_S)})
    password = state / f"pw-{uuid.uuid4().hex[:8]}"
    res = run_ats(stack_env, "ensure_admin", "--password-file", str(password))
    assert res.returncode == 0, res.stderr[-2000:]
    web = Web(pooled_env, state)
    try:
        web.wait_up()
        web.login("admin", password.read_text().strip())
        doc = types.SimpleNamespace(filename="pooled.pdf", content_type="application/pdf", data=unique_pdf("Pia Pool"))
        uploaded = web.upload(doc, None)["attachments"][0]
        status = _wait_terminal(uploaded["attachment_id"], timeout_s=POLL_S * 0.75)
        assert status["state"] == "candidate_created", (status, default.tail(), untrusted.tail())

        # Every hop was picked up by a notification: none waited anywhere near a poll.
        pickups = _rows(
            "SELECT j.task_name, EXTRACT(EPOCH FROM min(e.at) FILTER (WHERE e.type = 'started')"
            "  - min(e.at) FILTER (WHERE e.type = 'deferred'))"
            " FROM procrastinate_jobs j JOIN procrastinate_events e ON e.job_id = j.id"
            " WHERE j.id > %s GROUP BY j.id, j.task_name",
            [first_job],
        )
        # (Jobs not started yet - a follow-up deferred for later - have no pickup.)
        pickups = [(task, s) for task, s in pickups if s is not None]
        hops = {task for task, _ in pickups}
        # worker-default's hops on either side of the parse, and the parse itself.
        assert {"intake.ingest_attachment", "intake.parse_attachment", "intake.apply_parse_result"} <= hops, pickups
        assert all(float(s) < POLL_S / 4 for _, s in pickups), pickups

        # The pooled side: web's and worker-default's connections are PgBouncer clients.
        clients = {r["application_name"] for r in pgbouncer.show("CLIENTS") if r["database"] != "pgbouncer"}
        assert {"chaos-web", default.name} <= clients, clients
        assert untrusted.name not in clients, clients

        # The session side, read before the pooler's server list so that no backend opened
        # in between is mistaken for a direct one.
        direct_sql = "SELECT pid, query FROM pg_stat_activity WHERE application_name = %s"
        default_backends = _rows(direct_sql, [default.name])
        untrusted_backends = _rows(direct_sql, [untrusted.name])
        fence = _rows(
            "SELECT l.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
            " WHERE l.locktype = 'advisory' AND l.classid = %s AND l.objsubid = 2 AND l.granted"
            " AND a.application_name = %s",
            [FENCE_NAMESPACE, default.name],
        )
        pooled_pids = pgbouncer.server_pids()
        direct = {pid: query for pid, query in default_backends if pid not in pooled_pids}
        listen = [pid for pid, query in direct.items() if query.upper().startswith("LISTEN")]
        assert len(listen) == 1, direct
        assert len(fence) == 1 and fence[0][0] in direct and fence[0][0] not in pooled_pids, (fence, direct)
        # Exactly the two session-bound connections are direct; everything else is pooled.
        assert set(direct) == {listen[0], fence[0][0]}, direct
        # worker-untrusted holds its own backends, none of them PgBouncer's.
        assert untrusted_backends and not {pid for pid, _ in untrusted_backends} & pooled_pids
    finally:
        web.stop()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("deployable", "drop", "words"),
    [
        ("untrusted", (), "inet_client_addr"),
        ("default", ("ATS_SESSION_DATABASE_URL",), "ATS_SESSION_DATABASE_URL"),
    ],
)
def test_a_worker_that_would_lose_its_guarantees_behind_the_pooler_refuses_to_start(
    start_worker: Any, pooled_env: dict[str, str], deployable: str, drop: tuple[str, ...], words: str
) -> None:
    env = {k: v for k, v in pooled_env.items() if k not in drop}
    if deployable == "untrusted":
        # Its own URL, pooled: what a mistaken deployment would hand it.
        env["ATS_PARSE_DATABASE_URL"] = env["DATABASE_URL"].replace("//ats@", "//ats_parse@", 1)
    worker = start_worker(deployable, env=env, wait=False)
    assert worker.proc.wait(120) != 0
    assert words in worker.tail(), worker.tail()


@pytest.mark.django_db(transaction=True)
def test_the_erasure_vacuum_keeps_its_lock_timeout_on_one_backend_behind_the_pooler(
    pgbouncer: PgBouncerLocal, stack_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`SET lock_timeout; VACUUM FULL; RESET` (ats.retention.compaction) cannot be one
    transaction; pooled, the three statements would each take whichever server connection is
    free. Pooled, they take the session path: one direct backend (not PgBouncer's), on
    which the VACUUM gives up after its lock_timeout while another session holds the table
    (not waiting with every reader queued behind it)."""
    import psycopg

    from ats.jobs import api as jobs_api
    from ats.retention import compaction

    direct = stack_env["DATABASE_URL"]
    monkeypatch.setenv("ATS_DB_POOLER", "transaction")
    monkeypatch.setenv("ATS_SESSION_DATABASE_URL", direct)
    monkeypatch.setattr(compaction, "LOCK_TIMEOUT_MS", 300)
    with jobs_api.session_connection() as conn, conn.cursor() as cur:
        cur.execute("SET lock_timeout = '1234ms'")
        cur.execute("SHOW lock_timeout")
        assert cur.fetchone()[0] == "1234ms"  # one backend for consecutive statements
        cur.execute("SELECT pg_backend_pid()")
        session_pid = cur.fetchone()[0]
    assert session_pid not in pgbouncer.server_pids()
    with psycopg.connect(pgbouncer.url(direct), autocommit=True, prepare_threshold=None) as pooled:
        pooled.execute("CREATE TABLE IF NOT EXISTS ats_pgb_vacuum (x int)")
        # The session connection compact() opens once for all its rewrites.
        with jobs_api.session_connection() as session:
            with psycopg.connect(direct) as holder:
                holder.execute("LOCK TABLE ats_pgb_vacuum IN ACCESS SHARE MODE")
                started = time.monotonic()
                error = compaction._rewrite(session, "ats_pgb_vacuum", time.monotonic() + 2)
                assert error and "lock timeout" in error, error
                assert time.monotonic() - started < 10
            assert compaction._rewrite(session, "ats_pgb_vacuum", time.monotonic() + 30) is None  # free: done
        pooled.execute("DROP TABLE ats_pgb_vacuum")
