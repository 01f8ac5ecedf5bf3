"""Hard wall timeouts outside the sandbox, and a fence so no job ever runs twice at once.

A sync task runs in a thread that cannot be interrupted (procrastinate 3.10, measured), so
a task stuck in plain Python past its policy's wall timeout kept running, and the rescue
re-queued it after 3x the timeout + 90 s *while the stuck thread could still finish*: the
same job twice at once. Two mechanisms close that, in every worker process:

1. **The fence.** The worker holds a session-level advisory lock keyed on its
   `procrastinate_workers` id, on a connection of its own, for its whole life. The
   rescue (ats.jobs.maintenance) re-queues a `doing` job only when it can take that key
   itself (`pg_try_advisory_xact_lock`): the process that ran the job is dead, because
   Postgres drops a session's locks only when the session ends. A job whose worker row is
   gone (pruned, or unregistered just below) is re-queued only while no live session holds
   a fence key without a worker row. Frozen processes (SIGSTOP, a C call holding the GIL,
   heartbeat stale) therefore block the rescue until they are killed - never a double run.
2. **The watchdog** (a daemon thread, so it runs while the event loop or a task thread
   is busy). When a job runs past its policy `timeout_s` + `ATS_WATCHDOG_SLACK_S`, the
   worker stops fetching, lets the *other* in-flight jobs finish for up to
   `ATS_WATCHDOG_GRACE_S` (the ADR's 90 s deploy grace; a job still running then is cut
   off exactly as a deploy's SIGKILL would cut it, and rescued), deletes its worker row and
   exits with EXIT_OVERRUN. The supervisor (k8s, `ats.devtools.up`, the chaos driver)
   starts a new process; the exit released the fence, so the next rescue run re-queues the
   overrun job (counting the lost run as an attempt) at once.

   The fence protects only while its connection lives. If it breaks (a Postgres restart,
   a network cut) while jobs are in flight, the process exits at once (EXIT_FENCE_LOST):
   the rescue also needs a stale heartbeat (`stalled_worker_timeout`, 30 s) before it
   touches a job whose fence is free, and the watchdog notices within
   `ATS_WATCHDOG_INTERVAL_S` (1 s) - that margin, not a proof, covers the moment between
   the lock's release and the exit. A worker whose row was deleted by another worker
   (declared dead after a freeze) finishes its in-flight jobs - it still holds the fence,
   so nobody re-runs them meanwhile - and exits too.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import logging
import os
import sys
import threading
import time
from typing import Any

logger = logging.getLogger(__name__)

FENCE_NAMESPACE = 0x61747366  # "atsf": apart from intake's content locks ("ats1")
EXIT_OVERRUN = 70  # EX_SOFTWARE: a job overran its hard timeout
EXIT_FENCE_LOST = 71  # the fence connection broke (or the row was deleted) mid-job

# sha256 of the source of the procrastinate 3.10 Worker methods this module overrides
# (`_run_loop`, `_shutdown`) or relies on (`run` sets `_loop` and `worker_id` before the
# loop starts; `_running_jobs` is kept by `_fetch_and_process_jobs`, which ats.jobs.wakeup
# guards). A changed hash means an upgrade changed what the watchdog wraps: the guard
# test (tests/jobs/test_watchdog_guard.py) and tests/upstream fail and name the method.
UPSTREAM_SOURCE_SHA256 = {
    "_run_loop": "c92ccad5fa07f7a1dfd89ea0dd96fb41cebc7fe39f9d538d4ea28a97a735ec7c",
    "_shutdown": "7e40cbd5efe3acf5e3df6643261ce7e753562747de0db0a7ee88c94373c6e0c7",
    "run": "9a7c6a1ab8301be0c9c8acec8e521bf17cb20ad4f2e3be3ebe82fab2d9946556",
}


def fence_key(worker_id: int) -> int:
    """Second half of the two-int advisory key (int4); ids beyond 2^31 wrap, which can only
    make the rescue wait (a false 'alive'), never re-queue early."""
    return int(worker_id) % 2**31


def _number(name: str, default: float) -> float:
    raw = os.environ.get(name)
    return float(raw) if raw not in (None, "") else default


def slack_s() -> float:
    return _number("ATS_WATCHDOG_SLACK_S", 10.0)


def grace_s() -> float:
    return _number("ATS_WATCHDOG_GRACE_S", 90.0)


def interval_s() -> float:
    return _number("ATS_WATCHDOG_INTERVAL_S", 1.0)


def hard_limit_s(task_name: str) -> float | None:
    """Wall seconds after which a run of `task_name` ends its process (None: no policy row)."""
    from ats.jobs.policy import policy_for

    try:
        return policy_for(task_name).timeout_s + slack_s()
    except LookupError:
        return None


class Fence:
    """The worker's own connection and the advisory lock it holds on it."""

    def __init__(self, worker_id: int) -> None:
        self.worker_id = worker_id
        self._lock = threading.Lock()
        self._conn: Any = None

    def _connect(self) -> None:
        import psycopg

        from ats.jobs.session import session_params

        # The session path: a session advisory lock through a transaction-mode pooler
        # would sit on a shared backend, not die with this process (ats.jobs.session).
        params = session_params()
        params.pop("prepare_threshold", None)
        # Detect a dead peer within seconds, not the kernel's two hours.
        params.setdefault("keepalives", 1)
        params.setdefault("keepalives_idle", 5)
        params.setdefault("keepalives_interval", 2)
        params.setdefault("keepalives_count", 2)
        params.setdefault("connect_timeout", 5)
        conn = psycopg.connect(autocommit=True, **params)
        row = conn.execute(
            "SELECT pg_try_advisory_lock(%s, %s)", [FENCE_NAMESPACE, fence_key(self.worker_id)]
        ).fetchone()
        if not row or not row[0]:
            conn.close()
            raise RuntimeError(f"fence of worker {self.worker_id} is held by another session")
        self._conn = conn

    def hold(self) -> None:
        with self._lock:
            self._connect()

    def state(self) -> str:
        """'ok', 'lost' (connection broke: the lock is gone) or 'evicted' (row deleted)."""
        with self._lock:
            if self._conn is None:
                return "lost"
            try:
                row = self._conn.execute(
                    "SELECT EXISTS (SELECT 1 FROM procrastinate_workers WHERE id = %s)", [self.worker_id]
                ).fetchone()
            except Exception:
                self._close()
                return "lost"
            return "ok" if row and row[0] else "evicted"

    def reconnect(self) -> bool:
        with self._lock:
            try:
                self._connect()
            except Exception:
                return False
            return True

    def unregister_worker(self) -> None:
        """Delete our worker row (its doing jobs' worker_id becomes NULL): the rescue may
        re-queue them the moment this process, still holding the fence, has exited."""
        with self._lock:
            if self._conn is not None:
                self._conn.execute("SELECT procrastinate_unregister_worker_v1(%s)", [self.worker_id])

    def _close(self) -> None:
        try:
            if self._conn is not None:
                self._conn.close()
        except Exception:  # noqa: S110 - closing a broken connection may fail too
            pass
        self._conn = None


def _running(worker: Any) -> list[tuple[int, str, float]]:
    """(job id, task name, start time) of the jobs in flight; read from another thread."""
    for _ in range(5):
        try:
            contexts = list(worker._running_jobs.values())
        except RuntimeError:  # the loop resized the dict meanwhile
            continue
        return [(c.job.id, c.job.task_name, c.start_timestamp) for c in contexts]
    return []


def _exit(code: int, message: str) -> None:
    logger.critical(message)
    sys.stderr.write(f"ats watchdog: {message}\n")
    sys.stderr.flush()
    for handler in logging.getLogger().handlers:
        with contextlib.suppress(Exception):  # exiting anyway
            handler.flush()
    os._exit(code)


class Watchdog(threading.Thread):
    def __init__(self, worker: Any, fence: Fence) -> None:
        super().__init__(name="ats-watchdog", daemon=True)
        self.worker = worker
        self.fence = fence
        self.draining_since: float | None = None
        self.overrun: set[int] = set()
        self.evicted = False
        self._stopped = threading.Event()

    def stop(self) -> None:
        self._stopped.set()

    def run(self) -> None:
        while not self._stopped.wait(interval_s()):
            try:
                self.tick()
            except Exception:
                logger.exception("watchdog tick failed")

    def tick(self) -> None:
        running = _running(self.worker)
        state = self.fence.state()
        shutting_down = getattr(self.worker, "_ats_shutting_down", False)
        if state == "lost" and running:
            _exit(
                EXIT_FENCE_LOST,
                f"fence connection lost with jobs {[j for j, _, _ in running]} in flight: exiting so "
                "that their rescue cannot run beside them",
            )
        if state == "lost" and not self.fence.reconnect():
            return  # no job in flight: retry the connection next tick
        if state == "evicted" and not shutting_down and not self.evicted:
            # Declared dead by another worker (stale heartbeat: we were frozen). We still
            # hold the fence, so nobody re-runs our jobs while we live: let them finish,
            # fetch nothing more (our worker id is gone) and exit.
            self.evicted = True
            logger.error(
                "worker row %s was deleted (declared dead): finishing in-flight jobs, then exiting",
                self.fence.worker_id,
            )
        now = time.time()
        for job_id, task_name, started in running:
            limit = hard_limit_s(task_name)
            if limit is not None and now - started > limit and job_id not in self.overrun:
                self.overrun.add(job_id)
                logger.error(
                    "job %s (%s) overran its hard timeout (%.0f s): worker stops fetching and exits",
                    job_id,
                    task_name,
                    limit,
                )
        if (self.overrun or self.evicted) and self.draining_since is None:
            self.draining_since = time.monotonic()
            self._stop_fetching()
        if self.draining_since is None:
            return
        others = [j for j, _, _ in running if j not in self.overrun]
        waited = time.monotonic() - self.draining_since
        if others and waited < grace_s():
            return
        try:
            self.fence.unregister_worker()
        except Exception:
            logger.exception("could not delete the worker row; the rescue waits for its heartbeat to go stale")
        cut = f"; cut off after the {grace_s():g} s grace: {others}" if others else ""
        if not self.overrun:
            _exit(EXIT_FENCE_LOST, f"worker row was deleted; in-flight jobs finished{cut}; exiting")
        _exit(
            EXIT_OVERRUN,
            f"jobs {sorted(self.overrun)} overran their hard timeout; other jobs finished{cut}; exiting "
            "(the rescue re-queues the overrun jobs)",
        )

    def _stop_fetching(self) -> None:
        worker = self.worker
        worker._ats_draining = True
        if not getattr(worker, "_ats_fetch_loop_drains", False):
            # Upstream's fetch loop: its own stop (fetching ends; the heartbeat stops too).
            loop = getattr(worker, "_loop", None)
            if loop is not None:
                loop.call_soon_threadsafe(worker.stop)


def upstream_worker_class() -> type:
    """procrastinate's own Worker, under whatever subclasses this process installed."""
    from procrastinate import worker as procrastinate_worker

    for cls in procrastinate_worker.Worker.__mro__:
        if cls.__module__ == "procrastinate.worker" and cls.__qualname__ == "Worker":
            return cls
    raise LookupError("procrastinate.worker.Worker is not in the installed class's MRO")


def upstream_source_sha256() -> dict[str, str]:
    upstream = upstream_worker_class()
    return {
        name: hashlib.sha256(inspect.getsource(getattr(upstream, name)).encode()).hexdigest()
        for name in UPSTREAM_SOURCE_SHA256
    }


def changed_upstream_methods() -> list[str]:
    actual = upstream_source_sha256()
    return sorted(name for name, digest in UPSTREAM_SOURCE_SHA256.items() if actual[name] != digest)


def start(worker: Any) -> Watchdog:
    """Hold the worker's fence and start its watchdog (called once the worker registered)."""
    fence = Fence(worker.worker_id)
    fence.hold()
    dog = Watchdog(worker, fence)
    dog.start()
    return dog


class WatchdogWorker:
    """Mixed in front of the installed Worker class: the fence and the watchdog start once
    the worker has registered (its id keys the fence) and stop with it."""

    _ats_watchdog = True

    async def _run_loop(self) -> None:
        self._ats_shutting_down = False
        dog = start(self)
        try:
            await super()._run_loop()  # type: ignore[misc]
        finally:
            dog.stop()

    async def _shutdown(self, side_tasks: list[Any]) -> None:
        # procrastinate deletes our worker row at the end of a graceful stop: not an eviction.
        self._ats_shutting_down = True
        await super()._shutdown(side_tasks)  # type: ignore[misc]


def worker_class(base: type) -> type:
    """`base` with the fence and the watchdog in front (what install() puts in place)."""
    return type("Worker", (WatchdogWorker, base), {})


def install() -> None:
    """Every worker this process starts gets the fence and the watchdog. Idempotent; call
    after ats.jobs.wakeup.install() (it wraps whichever Worker class is installed).

    Unlike the wake-up fix, it installs even when upstream's methods changed: without the
    fence a rescued job could run beside its first run, which is worse than a wrapper
    around a changed method. The warning and the guard test say to re-check."""
    from procrastinate import worker as procrastinate_worker

    base = procrastinate_worker.Worker
    if getattr(base, "_ats_watchdog", False):
        return
    changed = changed_upstream_methods()
    if changed:
        logger.warning(
            "procrastinate's Worker changed (%s): the watchdog still wraps it; re-check ats.jobs.watchdog "
            "against the new version",
            ", ".join(changed),
        )
    procrastinate_worker.Worker = worker_class(base)  # type: ignore[misc, assignment]
