"""Shared fixtures: a real Postgres (via ats.devtools.pytest_plugin), real clamd, real
worker processes (`ats worker --deployable ...`) talking to the test database."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ats.config.env import with_user
from tests import durations

REPO = Path(__file__).resolve().parents[1]
ATS = [sys.executable, "-m", "ats.cli"]

# The test process must run the code of the checkout its subprocesses run (they get
# PYTHONPATH=REPO/shared): the shared venv's editable install points at whichever checkout
# last ran `uv sync`, and a test process importing another checkout's `ats` signed links
# with that checkout's dev key, which this checkout's web server then refused.
_IMPORTED = Path(sys.modules["ats"].__file__ or "").resolve().parent
if not _IMPORTED.is_relative_to(REPO / "shared"):
    pytest.exit(
        f"these tests would run the ats package in {_IMPORTED}, not this checkout's {REPO / 'shared' / 'ats'} "
        f"(the venv's editable install points at another checkout): run them through `just test` or "
        f"`just test-fast`, or set PYTHONPATH={REPO / 'shared'}",
        returncode=4,
    )

# Short intervals keep the suite fast; production values live in settings defaults.
FAST_ENV = {
    "ATS_HEARTBEAT_INTERVAL_S": "1",
    "ATS_STALLED_WORKER_TIMEOUT_S": "4",
    "ATS_POLL_INTERVAL_S": "0.5",
    "ATS_RETRY_TIME_SCALE": "0.001",
    # Rescue every 2 s so a killed worker's job is retried within seconds in tests.
    "ATS_RESCUE_CRON": "* * * * * */2",
    # An erasure's compaction waits this long for older snapshots, then for the cancelled
    # ones (production 15 s and 5 s): tests check who is cancelled and terminated, in order.
    "ATS_COMPACTION_SNAPSHOT_WAIT_S": "3",
    "ATS_COMPACTION_CANCEL_GRACE_S": "1",
    # The inbox's and the ops console's in-place refresh (production 10 s): the browser
    # journeys wait for refreshes, and prove a paused page does not refresh over several.
    "ATS_WEB_LIVE_REFRESH_S": "2",
}


def _db_url() -> str:
    from django.db import connection

    s = connection.settings_dict
    auth = s["USER"] + (f":{s['PASSWORD']}" if s["PASSWORD"] else "")
    return f"postgresql://{auth}@{s['HOST']}:{s['PORT']}/{s['NAME']}"


@pytest.fixture(scope="session")
def state_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="ats-test-") as d:
        Path(d).chmod(0o755)
        yield Path(d)


@pytest.fixture(scope="session")
def clamd(state_dir: Path) -> Iterator[Any]:
    from ats.devtools.clamd_local import ClamdLocal

    with ClamdLocal(state_dir=state_dir / "clamd") as daemon:
        yield daemon


@pytest.fixture(scope="session")
def stack_env(django_db_setup: Any, django_db_blocker: Any, state_dir: Path, clamd: Any) -> dict[str, str]:
    """Environment for subprocesses (workers, CLI) so they use the test database."""
    with django_db_blocker.unblock():
        url = _db_url()
    env = {
        **os.environ,
        **FAST_ENV,
        "DATABASE_URL": url,
        # worker-untrusted connects as the least-privilege parse role.
        "ATS_PARSE_DATABASE_URL": with_user(url, "ats_parse"),
        "ATS_EXTRA_APPS": "tests.testapp",
        "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'shared'}",
        "ATS_STATE_DIR": str(state_dir),
        # Worker status files live per test session: two sessions on one machine (helpers,
        # CI jobs) name their workers alike (test-default-1), and one's status file
        # replace raced the other's, stopping a worker mid-run (seen in tests/thirdparty).
        "ATS_RUNTIME_DIR": str(state_dir / "run"),
        "ATS_STORAGE_LOCAL_ROOT": str(state_dir / "blobs"),
        "ATS_CLAMD_HOST": "127.0.0.1",
        "ATS_CLAMD_PORT": str(clamd.port),
        "ATS_PROCRASTINATE_LOG_LEVEL": "WARNING",
    }
    return env


@pytest.fixture(autouse=True, scope="session")
def _settings_for_in_process_calls(state_dir: Path, clamd: Any) -> None:
    """The test process itself (facade calls) must use the same storage and clamd."""
    from django.conf import settings

    settings.ATS["STORAGE_LOCAL_ROOT"] = state_dir / "blobs"
    settings.ATS["CLAMD_PORT"] = clamd.port
    settings.ATS["RETRY_TIME_SCALE"] = float(FAST_ENV["ATS_RETRY_TIME_SCALE"])
    settings.ATS["COMPACTION_SNAPSHOT_WAIT_S"] = float(FAST_ENV["ATS_COMPACTION_SNAPSHOT_WAIT_S"])
    settings.ATS["COMPACTION_CANCEL_GRACE_S"] = float(FAST_ENV["ATS_COMPACTION_CANCEL_GRACE_S"])
    # Where this session's workers write their status files (stack_env): read them there.
    os.environ["ATS_RUNTIME_DIR"] = str(state_dir / "run")


class Worker:
    def __init__(self, deployable: str, env: dict[str, str], name: str, extra: list[str]) -> None:
        self.deployable = deployable
        self.name = name
        self.log = Path(env["ATS_STATE_DIR"]) / f"{name}.log"
        self._terminated = False
        self._fh = self.log.open("ab")
        env = {**env, "ATS_PROCESS_NAME": name}
        if deployable == "untrusted":
            # As its image, compose and Kubernetes set it (`ats worker` forces it as well).
            env["DJANGO_SETTINGS_MODULE"] = "ats.parse_worker.settings"
        self.proc = subprocess.Popen(
            [*ATS, "worker", f"--deployable={deployable}", f"--name={name}", *extra],
            env=env,
            stdout=self._fh,
            stderr=subprocess.STDOUT,
            cwd=REPO,
            start_new_session=True,
        )

    def wait_registered(self, timeout: float = 30.0) -> None:
        from django.db import connection

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"worker {self.name} exited: {self.tail()}")
            with connection.cursor() as cur:
                # procrastinate_workers rows carry no name; the worker's connections do
                # (application_name), and a query on procrastinate's tables means its loop runs.
                # Another role's query text reads '<insufficient privilege>' (the parse role).
                cur.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s"
                    " AND (query ILIKE %s OR (usename <> current_user AND query = '<insufficient privilege>'))",
                    [self.name, "%procrastinate%"],
                )
                if cur.fetchone()[0]:
                    return
            time.sleep(0.1)
        raise TimeoutError(f"worker {self.name} did not register: {self.tail()}")

    def tail(self, n: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-n:]

    def signal(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, sig)

    def terminate(self) -> None:
        """Ask for a graceful stop (SIGTERM) once, without waiting: stop() waits. A second
        SIGTERM would not be a repeat - procrastinate takes it as "abort what you run"."""
        if self.proc.poll() is None and not self._terminated:
            self._terminated = True
            self.signal(signal.SIGTERM)

    def stop(self, timeout: float = 30.0) -> int | None:
        if self.proc.poll() is None:
            if not self._terminated:
                self.signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.signal(signal.SIGKILL)
                self.proc.wait(10)
        self._fh.close()
        return self.proc.returncode


_worker_numbers = iter(range(1, 100_000))


def stop_all(workers: list[Worker]) -> None:
    """Stop workers side by side: every SIGTERM first, then the waits (each graceful stop
    is seconds of shutdown, and the sandbox's zygotes with it; one after the other they
    added up in every test with a stack)."""
    for w in workers:
        w.terminate()
    for w in workers:
        w.stop()


def _starter(stack_env: dict[str, str], django_db_blocker: Any, started: list[Worker]) -> Callable[..., Worker]:
    def start(
        deployable: str = "default",
        *,
        extra: list[str] | None = None,
        env: dict[str, str] | None = None,
        wait: bool = True,
    ) -> Worker:
        w = Worker(deployable, {**stack_env, **(env or {})}, f"test-{deployable}-{next(_worker_numbers)}", extra or [])
        started.append(w)
        if wait:
            with django_db_blocker.unblock():
                w.wait_registered()
        return w

    return start


@pytest.fixture
def start_worker(
    stack_env: dict[str, str], django_db_blocker: Any, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Worker]]:
    """Workers for one test, stopped when it ends (so no other test's jobs reach them)."""
    started: list[Worker] = []
    request.node.stash[_STARTED_WORKERS] = started  # a failure's report shows them
    yield _starter(stack_env, django_db_blocker, started)
    stop_all(started)


@pytest.fixture
def stack(stack_env: dict[str, str], django_db_blocker: Any) -> Iterator[dict[str, Worker]]:
    """A worker-default and a worker-untrusted for one test (isolated from other tests)."""
    started: list[Worker] = []
    start = _starter(stack_env, django_db_blocker, started)
    # Both start side by side (each a Python + Django start; the untrusted one warms its
    # sandbox too), then both are waited for.
    workers = {"default": start("default", wait=False), "untrusted": start("untrusted", wait=False)}
    with django_db_blocker.unblock():
        for w in workers.values():
            w.wait_registered()
    yield workers
    stop_all(started)


def start_side_by_side(start_worker: Callable[..., Worker], count: int, *args: Any, **kw: Any) -> list[Worker]:
    """`count` workers of one kind (start_worker's arguments), all launched before any is
    waited for: each boots Python, Django and procrastinate (1-2 s quiet, many under load),
    which one after the other added up in every test that needs two. Call it where the
    test may touch the database (it waits for each worker's registration there)."""
    workers = [start_worker(*args, **{**kw, "wait": False}) for _ in range(count)]
    for w in workers:
        w.wait_registered()
    return workers


def run_ats(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ATS, *args], env=env, cwd=REPO, text=True, capture_output=True, timeout=timeout)


@pytest.fixture
def ats_cli(stack_env: dict[str, str]) -> Callable[..., subprocess.CompletedProcess[str]]:
    return lambda *args, **kw: run_ats(stack_env, *args, **kw)


def run_ats_in_process(*args: str) -> subprocess.CompletedProcess[str]:
    """`ats ARGS` (a management command) in the test process: the same command, output and
    exit code as run_ats, without a Python + Django start per call (2-3 s on a quiet
    machine, 15 s and more on a loaded one). For tests of what a command does; what only
    the process shows (entry point, environment, signals, workers) goes through run_ats.
    call_command, not ats.cli.main: main's django.setup() would re-configure logging
    under pytest's capture."""
    from django.core.management import CommandError, call_command

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            call_command(args[0].replace("-", "_"), *args[1:])
        except CommandError as exc:
            # As BaseCommand.run_from_argv reports it to a shell.
            err.write(f"CommandError: {exc}\n")
            code = exc.returncode
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if isinstance(exc.code, str):
                err.write(exc.code)
    return subprocess.CompletedProcess(["ats", *args], code, out.getvalue(), err.getvalue())


# --- markers: unit / integration / slow (`just test-fast` runs `-m "not slow"`) ----------
# A test is `integration` when it touches a real service or process: the database, clamd,
# Azurite, the fake Graph server, sandbox children or worker processes. Derived from what a
# test uses, so a new test is classified without anyone remembering to mark it.
_INTEGRATION_FIXTURES = frozenset(
    {
        "db",
        "transactional_db",
        "django_db_setup",
        "django_db_blocker",
        "live_server",
        "stack_env",
        "stack",
        "start_worker",
        "ats_cli",
        "clamd",
        "clamd_daemon",
        "endpoint",
        "azurite",
        "fake",
        "graph",
        "graph_env",
        "probe_sandbox",
        "probes",
        "documents",
        "short_policy",
    }
)
# Whole areas that run external programs or sandbox children in every test.
_INTEGRATION_DIRS = frozenset({"deploy", "sandbox", "parse_role", "e2e", "channels"})
# Modules that spend seconds per test waiting on real timers (sandbox wall/CPU caps, worker
# heartbeats and rescue, OCR, fork-server churn): part of `just test`, not of the fast loop.
_SLOW_MODULES = frozenset(
    {
        "tests/sandbox/test_escape.py",
        "tests/sandbox/test_container_mode.py",
        "tests/sandbox/test_documents.py",
        "tests/jobs/test_lost_document_detector.py",
        "tests/jobs/test_wakeup.py",
        "tests/parsing/test_ocr.py",
        "tests/parsing/test_prewarm.py",
        "tests/parsing/test_mutations.py",
        "tests/skeleton/test_pg_local.py",
        "tests/skeleton/test_deployables.py",
        "tests/storage/test_backends.py",
        # OCR of whole pages in the production sandbox: 2-7 CPU s a test.
        "tests/extraction/test_ocr_bands.py",
        "tests/parsing/test_ocr_geometry.py",
    }
)
# Single tests of otherwise quick modules that run an external program or OCR for seconds
# of CPU (measured with ATS_TEST_CPU_LOG, docs/testing.md): the module's other tests stay
# in the fast loop, so the package's logic is still covered there.
_SLOW_TESTS = frozenset(
    {
        # promtool evaluates 2-25 h of one-minute steps: ~30 CPU s, the fast loop's largest.
        "tests/observability/test_rules.py::test_promtool_rule_unit_tests_pass",
        # A real Prometheus process scraping and evaluating rules.
        "tests/observability/test_prometheus_local.py::test_the_console_shows_alerts_firing_in_prometheus",
        "tests/observability/test_prometheus_local.py::"
        "test_prometheus_as_just_up_starts_it_has_every_shipped_alert_rule_loaded",
        # `ats audit ...` as real processes (the exit code, a SIGKILL mid-run).
        "tests/audit/test_export_cli.py::test_cli_verify_contract_and_exit_code",
        "tests/audit/test_export_cli.py::test_sigkill_during_export_loses_nothing",
        "tests/audit/test_export_cli.py::test_sigkill_during_verification_loses_nothing",
        # OCR re-reads in the production sandbox; the address logic's unit tests stay fast.
        "tests/parsing/test_ocr_email.py::test_a_misread_address_is_read_again",
        "tests/parsing/test_ocr_email.py::test_without_the_re_read_the_address_is_wrong",
        "tests/parsing/test_ocr_email.py::test_the_e_mail_re_read_runs_inside_the_production_sandbox",
        # Multi-page OCR against the page budget (4-8 CPU s each); the budget's own check stays.
        "tests/parsing/test_ocr_budget.py::test_a_spent_budget_stops_further_pages_and_says_so",
        "tests/parsing/test_ocr_budget.py::test_within_the_budget_every_page_is_read",
    }
)
# Fixtures that start real processes for the test: worker processes (a Python + Django
# start each, the untrusted one warms its sandbox), the metrics exporter, an `ats` CLI
# subprocess. 1-8 CPU s a test and tens of seconds of wall under load: `just test` runs
# them, the fast loop does not (the logic they drive has in-process tests there).
_SLOW_FIXTURES = frozenset({"stack", "start_worker", "start_exporter", "ats_cli"})


def _requested_fixtures(item: pytest.Item) -> set[str]:
    """The fixtures a test asks for, with their dependencies - not the session-wide autouse
    ones (every test gets clamd through those, whether it scans or not)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return set()
    seen: set[str] = set()
    todo = list(info.argnames)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for fixturedef in info.name2fixturedefs.get(name, ()):
            todo.extend(fixturedef.argnames)
    return seen


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    costs = durations.load()
    for item in items:
        rel = Path(str(item.fspath)).relative_to(REPO)
        area = rel.parts[1]
        uses = _requested_fixtures(item)
        if (
            rel.as_posix() in _SLOW_MODULES
            or item.nodeid.split("[", 1)[0] in _SLOW_TESTS
            or uses & _SLOW_FIXTURES
            or durations.is_dear(item.nodeid, costs)
        ):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("unit") or item.get_closest_marker("integration"):
            pass  # marked by hand
        elif item.get_closest_marker("django_db") or uses & _INTEGRATION_FIXTURES or area in _INTEGRATION_DIRS:
            item.add_marker(pytest.mark.integration)
        else:
            item.add_marker(pytest.mark.unit)
    # The dearest modules first (tests/durations.py): the minute-long tests start at once
    # instead of ending the run. Every xdist worker sorts the same file the same way.
    if costs:
        items[:] = [items[i] for i in durations.dearest_first([item.nodeid for item in items], costs)]


def pytest_configure(config: pytest.Config) -> None:
    record = os.environ.get("ATS_TEST_DURATIONS_RECORD")
    if record and not hasattr(config, "workerinput"):
        config.pluginmanager.register(durations.Recorder(Path(record)), "ats-durations-recorder")


# --- a failed test with workers: what they were doing ---------------------------------------
# A job that never ran (issue 22's flake hunt) is diagnosable only while its workers live:
# their log tails, every thread's stack (SIGUSR1: `ats worker` registers faulthandler) and
# the unfinished job rows, attached to the failure's report before the fixtures stop them.
_DIAGNOSED_FIXTURES = ("stack", "start_worker")


def _worker_diagnosis(workers: list[Worker]) -> str:
    live = [w for w in workers if w.proc.poll() is None]
    for w in live:
        with contextlib.suppress(ProcessLookupError):
            os.kill(w.proc.pid, signal.SIGUSR1)  # the worker only: its sandbox children stay out
    if live:
        time.sleep(1.0)  # faulthandler writes from a signal handler; let it land in the log
    parts = []
    try:
        from django.db import connection

        with connection.cursor() as cur:
            cur.execute(
                "SELECT id, status, queue_name, task_name, lock, scheduled_at, attempts, worker_id"
                " FROM procrastinate_jobs WHERE status IN ('todo', 'doing') ORDER BY id"
            )
            parts.append("unfinished jobs (id, status, queue, task, lock, scheduled_at, attempts, worker):")
            parts += [f"  {row}" for row in cur.fetchall()]
            cur.execute(
                "SELECT id, now() - last_heartbeat FROM procrastinate_workers ORDER BY id",
            )
            parts.append("workers (id, heartbeat age): " + ", ".join(f"{i}: {age}" for i, age in cur.fetchall()))
            # The parse role has a per-cluster CONNECTION LIMIT: who holds what, and in which state.
            cur.execute(
                "SELECT usename, application_name, state, count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
            )
            parts.append("connections (role, application, state, count):")
            parts += [f"  {row}" for row in cur.fetchall()]
    except Exception as exc:  # the database may be what failed
        parts.append(f"(job rows not read: {type(exc).__name__}: {exc})")
    for w in workers:
        state = "running" if w.proc.poll() is None else f"exited {w.proc.returncode}"
        parts.append(f"--- {w.name} (pid {w.proc.pid}, {state}), log {w.log}:\n{w.tail(12000)}")
    return "\n".join(parts)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    funcargs = getattr(item, "funcargs", {})
    workers: list[Worker] = []
    for name in _DIAGNOSED_FIXTURES:
        value = funcargs.get(name)
        if isinstance(value, dict):
            workers += [w for w in value.values() if isinstance(w, Worker)]
    workers += item.stash.get(_STARTED_WORKERS, [])
    if workers:
        report.sections.append(("workers at the failure", _worker_diagnosis(list(dict.fromkeys(workers)))))


_STARTED_WORKERS = pytest.StashKey["list[Worker]"]()


# --- CPU seconds per test (`ATS_TEST_CPU_LOG=run.jsonl`; `python -m tests.cpu_usage run.jsonl`) --
# On a shared machine wall time measures the neighbours; CPU time, self plus every process
# the test starts plus this worker's Postgres, is what bounds the stage on 2 cores.
_CPU_LOG = os.environ.get("ATS_TEST_CPU_LOG")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    if not _CPU_LOG:
        yield
        return
    from tests.cpu_usage import Recorder

    recorder = item.config.stash.setdefault(_CPU_RECORDER, Recorder(_CPU_LOG))
    began = recorder.start()
    yield
    recorder.finish(item.nodeid, began)


_CPU_RECORDER = pytest.StashKey["Any"]()
