"""`just up`: the whole stack in the foreground on the embedded default.

Starts (when not configured otherwise) a project-local Postgres, a local clamd with the
project's test signatures and a fake Microsoft Graph with a demo mailbox (and its mail
channel), migrates, ensures an admin login, then runs web, worker-default and
worker-untrusted. Ctrl-C (or SIGTERM) stops everything: workers get
their SIGTERM grace, then the helpers stop. The embedded Postgres keeps running so
`ats ...` from another shell finds the data; `just down` stops it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

from ats.config import env

COLORS = {"web": "36", "worker-default": "33", "worker-untrusted": "35"}
WATCHDOG_EXITS = (70, 71)  # ats.jobs.watchdog EXIT_OVERRUN, EXIT_FENCE_LOST (devtools: no jobs import)


# worker-untrusted's environment is built from this allowlist, as k8s/base/worker-untrusted.yaml
# builds it (named variables only, no envFrom): what its settings, procrastinate, libpq and
# Python read, nothing else. A secret added to the trusted environment (ATS_TOMBSTONE_HMAC_KEY
# was missed by the old denylist) never reaches it unless it is named here.
UNTRUSTED_ENV_PROCESS = frozenset({"PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "PYTHONPATH", "TERM"})
UNTRUSTED_ENV_ALLOW = UNTRUSTED_ENV_PROCESS | frozenset(
    {
        # Logging and where the checkout's state and code are.
        "ATS_LOG_LEVEL",
        "ATS_LOG_FORMAT",
        "ATS_PROCESS_NAME",
        "ATS_PROCRASTINATE_LOG_LEVEL",
        "ATS_STATE_DIR",
        "ATS_REPO_ROOT",
        "ATS_RUNTIME_DIR",
        # The worker's own knobs (ats.parse_worker.settings, ats.jobs, the sandbox).
        "ATS_HEARTBEAT_INTERVAL_S",
        "ATS_STALLED_WORKER_TIMEOUT_S",
        "ATS_POLL_INTERVAL_S",
        "ATS_RETRY_TIME_SCALE",
        "ATS_PARSE_CONCURRENCY",
        "ATS_SANDBOX_ALLOW_INPROCESS",
        "ATS_SANDBOX_POLICY_DIR",
        "TESSDATA_PREFIX",
        # libpq (TLS and address pinning, as the manifest sets them).
        "PGSSLMODE",
        "PGSSLROOTCERT",
        "PGHOSTADDR",
        "PGCONNECT_TIMEOUT",
    }
)


def untrusted_env(environ: dict[str, str]) -> dict[str, str]:
    """worker-untrusted's environment: the allowlist, its own settings module and the parse
    role's database URL (never the trusted one). Always direct to Postgres, also with
    ATS_PGBOUNCER=1: the parse role's row-level security keys on inet_client_addr()
    (ATS_DB_POOLER is not on the allowlist, and the worker refuses it)."""
    out = {k: v for k, v in environ.items() if k in UNTRUSTED_ENV_ALLOW}
    out["DJANGO_SETTINGS_MODULE"] = "ats.parse_worker.settings"
    out["DATABASE_URL"] = environ.get("ATS_PARSE_DATABASE_URL") or env.with_user(
        env.database_url_from(environ), "ats_parse"
    )
    return out


def private_files(state_dir: Path) -> list[Path]:
    """Make the admin password and the logs `just up` writes under the state directory
    (Postgres's server.log, clamd.log, ...; they may carry the password or CV names)
    readable by their owner only (0600). Returns the files changed."""
    changed = []
    candidates = [state_dir / "admin-password", *state_dir.glob("*.log"), *state_dir.glob("*/*.log")]
    for path in candidates:
        if path.is_file() and not path.is_symlink() and path.stat().st_mode & 0o077:
            path.chmod(0o600)
            changed.append(path)
    return changed


def _pump(name: str, stream: IO[bytes]) -> None:
    color = COLORS.get(name, "0")
    prefix = f"\x1b[{color}m{name:>16}\x1b[0m | " if sys.stdout.isatty() else f"{name:>16} | "
    for raw in iter(stream.readline, b""):
        sys.stdout.write(prefix + raw.decode(errors="replace"))
        sys.stdout.flush()


def _ats(*args: str, environ: dict[str, str]) -> None:
    subprocess.run([sys.executable, "-m", "ats.cli", *args], env=environ, check=True)


def _wait_http(url: str, proc: subprocess.Popen[bytes], *, timeout_s: float) -> bool:
    import urllib.request

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:  # noqa: S310 (our own loopback URL)
                if resp.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.3)
    return False


def start_prometheus(
    stack: contextlib.ExitStack, environ: dict[str, str], metrics_binds: dict[str, str]
) -> tuple[str, int] | None:
    """A real Prometheus on 127.0.0.1:9090 scraping web's and worker-default's exporters,
    evaluating the rules the k8s monitoring component ships; the console reads its alerts
    through ATS_PROMETHEUS_URL. (url, alert rules loaded), or None when not started."""
    from ats.devtools import prometheus_local

    if environ.get("ATS_PROMETHEUS_URL"):
        return None  # someone else's Prometheus: the console reads that one
    if prometheus_local.prometheus_path() is None:
        print("[up] prometheus not installed (scripts/bootstrap.sh installs it): no alerts evaluated", flush=True)
        return None
    port = int(environ.get("ATS_PROMETHEUS_PORT", str(prometheus_local.DEFAULT_PORT)))
    prom = prometheus_local.PrometheusLocal(
        state_dir=env.STATE_DIR / "prometheus",
        port=port,
        targets={"ats-web": metrics_binds["web"], "ats-worker-default": metrics_binds["worker-default"]},
    )
    stack.enter_context(prom)
    loaded = len(prom.loaded_alert_names())
    environ["ATS_PROMETHEUS_URL"] = prom.url
    print(f"[up] Prometheus on {prom.url} ({loaded} alert rules from the k8s PrometheusRule)", flush=True)
    return prom.url, loaded


PGBOUNCER_PORT = 6432


def start_pgbouncer(stack: contextlib.ExitStack, environ: dict[str, str]) -> dict[str, str]:
    """`ATS_PGBOUNCER=1 just up`: a local PgBouncer in transaction mode (the k8s component's
    ini, ats.devtools.pgbouncer_local) in front of the database. Returns the environment
    web and worker-default run with: DATABASE_URL through the pooler, and the direct URL as
    the session path for LISTEN, the watchdog's fence and the erasure's VACUUM
    (ats.jobs.session).
    worker-untrusted, the CLI and migrations stay direct."""
    from ats.devtools import pgbouncer_local

    direct = env.database_url_from(environ)
    pgb = pgbouncer_local.PgBouncerLocal(
        state_dir=env.STATE_DIR / "pgbouncer",
        server_url=direct,
        port=int(environ.get("ATS_PGBOUNCER_PORT", str(PGBOUNCER_PORT))),
    )
    stack.enter_context(pgb)
    print(
        f"[up] PgBouncer (transaction mode) on 127.0.0.1:{pgb.port}: web and worker-default's tasks through it;"
        " LISTEN, the watchdog fence and worker-untrusted direct",
        flush=True,
    )
    return {"DATABASE_URL": pgb.url(direct), "ATS_DB_POOLER": "transaction", "ATS_SESSION_DATABASE_URL": direct}


def banner(url: str, password_file: Path, prometheus: tuple[str, int] | None = None) -> str:
    """The last thing `just up` prints before the services' own lines: where to go next."""
    password = password_file.read_text().strip() if password_file.is_file() else "(set before this checkout's state)"
    lines = [
        "",
        "=" * 72,
        f"  ATS is up:   {url}",
        f"  log in as:   admin / {password}",
        *(
            [f"  Prometheus:  {prometheus[0]}  ({prometheus[1]} alert rules; firing ones on {url}ops/alerts)"]
            if prometheus
            else []
        ),
        "",
        "  Try next, from another shell in this checkout:",
        "    just ats ingest --wait --json ~/cv.pdf     # a CV to a candidate; prints JSON",
        "    just ats status                            # documents per state, jobs per queue",
        "    just ats intake-verify                     # the lost-document detector (0 = none lost)",
        "",
        "  Ctrl-C stops everything (workers finish in-flight jobs, 90 s grace).",
        "=" * 72,
        "",
    ]
    return "\n".join(lines)


COMMANDS = {
    "web": ["web"],
    "worker-default": ["worker", "--deployable=default"],
    "worker-untrusted": ["worker", "--deployable=untrusted"],
}


def main() -> None:
    environ = dict(os.environ)
    # `just up` serves plain http on loopback: the one explicit opt-out of the secure
    # defaults (Secure cookies, proxy scheme header, HSTS).
    environ.setdefault("ATS_DEV_PLAIN_HTTP", "1")
    env.STATE_DIR.mkdir(parents=True, exist_ok=True)
    stack = contextlib.ExitStack()
    demo_mailbox = start_local_services(stack, environ)
    password_file = prepare_database(environ, demo_mailbox)

    # Metrics on their own ports (docs/observability.md): web's exporter and worker-default.
    metrics_binds = {
        "web": environ.get("ATS_WEB_METRICS_BIND", "127.0.0.1:9100"),
        "worker-default": environ.get("ATS_WORKER_METRICS_BIND", "127.0.0.1:9101"),
    }
    environ.setdefault("ATS_LOG_FORMAT", "console")  # humans read this terminal
    pooled_env = start_pgbouncer(stack, environ) if env.flag("ATS_PGBOUNCER", default=False) else {}
    prometheus = start_prometheus(stack, environ, metrics_binds)
    procs = _Processes(environ, metrics_binds, pooled_env)
    for name in COMMANDS:
        procs.launch(name)
    print(
        f"[up] metrics: http://{metrics_binds['web']}/metrics (queues, jobs, tables),"
        f" http://{metrics_binds['worker-default']}/metrics (worker-default)",
        flush=True,
    )
    url = f"http://{environ.get('ATS_WEB_BIND', '127.0.0.1:8000')}/"
    ready = _wait_http(url + "healthz", procs.running["web"], timeout_s=60)
    private_files(env.STATE_DIR)  # the helpers' logs exist by now
    if ready:
        print(banner(url, password_file, prometheus), flush=True)
    else:
        print(f"[up] web did not answer on {url} - see its lines above", flush=True)

    stopping = threading.Event()

    def _stop(signum: int, _frame: object) -> None:
        stopping.set()

    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    try:
        procs.supervise(stopping)
    finally:
        procs.stop_all()
        stack.close()
        print("[up] stopped", flush=True)
    sys.exit(0 if stopping.is_set() else 1)


def start_local_services(stack: contextlib.ExitStack, environ: dict[str, str]) -> str | None:
    """Postgres, clamd and the fake Graph, each unless `environ` already points at one.

    Sets their addresses in `environ`; returns the demo mailbox when the fake Graph runs.
    """
    if not environ.get("DATABASE_URL"):
        from ats.devtools import pg_local

        # Durable: `just up` holds real uploads, and with fsync/synchronous_commit off a crash
        # loses commits already acknowledged to the uploader (the chaos suite saw it). Only
        # throwaway test clusters trade that for speed.
        url = pg_local.start(pg_local.default_datadir(), env.EMBEDDED_PG_PORT, durable=True)
        print(f"[up] embedded Postgres at {url} (stop it with `just down`)", flush=True)
    if not environ.get("ATS_CLAMD_HOST"):
        from ats.devtools.clamd_local import ClamdLocal

        clamd = stack.enter_context(
            ClamdLocal(state_dir=env.STATE_DIR / "clamd", port=int(environ.get("ATS_CLAMD_PORT", "3311")))
        )
        environ["ATS_CLAMD_HOST"], environ["ATS_CLAMD_PORT"] = "127.0.0.1", str(clamd.port)
        print(f"[up] clamd on 127.0.0.1:{clamd.port} (project test signatures only)", flush=True)
    if environ.get("ATS_GRAPH_BASE_URL"):
        return None
    from ats.devtools.fake_graph import DEMO_MAILBOX, FakeGraph, seed_demo

    # In-memory mailbox: every `just up` delivers the demo mail afresh (new message
    # ids), so repeated runs show the same CVs again as intake duplicates.
    fake = stack.enter_context(FakeGraph(state_dir=env.STATE_DIR / "fake-graph"))
    seed_demo(fake, DEMO_MAILBOX)
    environ.update(fake.ats_env())
    print(f"[up] fake Microsoft Graph on {fake.base_url}, demo mail in {DEMO_MAILBOX}", flush=True)
    return DEMO_MAILBOX


def prepare_database(environ: dict[str, str], demo_mailbox: str | None) -> Path:
    """Migrate, ensure the admin login and the demo channel; returns the password file."""
    _ats("migrate", "--no-input", "-v", "0", environ=environ)
    # worker-untrusted connects as the least-privilege parse role the migration set up.
    environ.setdefault("ATS_PARSE_DATABASE_URL", env.with_user(env.database_url_from(environ), "ats_parse"))
    password_file = env.STATE_DIR / "admin-password"
    _ats("ensure_admin", "--password-file", str(password_file), environ=environ)
    private_files(env.STATE_DIR)
    if demo_mailbox:
        _ats("channel-add", "--mailbox", demo_mailbox, "--poll", environ=environ)
    return password_file


class _Processes:
    """web and the workers as child process groups, their output pumped to this terminal."""

    def __init__(
        self, environ: dict[str, str], metrics_binds: dict[str, str], pooled_env: dict[str, str] | None = None
    ) -> None:
        self.environ = environ
        self.metrics_binds = metrics_binds
        # ATS_PGBOUNCER=1: web's and worker-default's DATABASE_URL through the pooler.
        self.pooled_env = pooled_env or {}
        self.running: dict[str, subprocess.Popen[bytes]] = {}

    def launch(self, name: str) -> None:
        proc_env = dict(self.environ)
        if name in self.metrics_binds:
            proc_env["ATS_METRICS_BIND"] = self.metrics_binds[name]
        if name in {"web", "worker-default"}:
            proc_env.update(self.pooled_env)
        if name == "worker-untrusted":
            proc_env = untrusted_env(proc_env)
        p = subprocess.Popen(
            [sys.executable, "-m", "ats.cli", *COMMANDS[name]],
            env=proc_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.running[name] = p
        assert p.stdout is not None
        threading.Thread(target=_pump, args=(name, p.stdout), daemon=True).start()

    def supervise(self, stopping: threading.Event) -> None:
        """Until `stopping` is set or a process exits for good."""
        while not stopping.is_set():
            # A worker's watchdog ends its process by design (a job overran its hard timeout,
            # or its fence connection broke; docs/reliability.md): restart it, as k8s would.
            for n, p in list(self.running.items()):
                if n.startswith("worker-") and p.poll() in WATCHDOG_EXITS:
                    print(f"[up] {n} exited {p.returncode} (watchdog); restarting it", flush=True)
                    self.launch(n)
            dead = [n for n, p in self.running.items() if p.poll() is not None]
            if dead:
                print(f"[up] {', '.join(dead)} exited; stopping the stack", flush=True)
                return
            time.sleep(0.5)

    def stop_all(self) -> None:
        for p in self.running.values():
            if p.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, signal.SIGTERM)
        deadline = time.monotonic() + 100  # ADR §6: 90 s grace for in-flight jobs
        for p in self.running.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(max(0.1, deadline - time.monotonic()))
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)


if __name__ == "__main__":
    main()
