"""Pickup latency and Postgres connections, direct vs through PgBouncer (issue 26 item 4).

Two fresh stacks, one after the other, each: ephemeral Postgres, local clamd, `ats web`
(one gunicorn worker, 4 threads), worker-default and worker-untrusted, production polling
interval. In `pgbouncer` mode a local PgBouncer 1.18 in transaction mode (the k8s
component's ini, ats.devtools.pgbouncer_local) carries web and worker-default's task
connections; LISTEN, the watchdog's fence and worker-untrusted stay direct, exactly as
`ATS_PGBOUNCER=1 just up` runs them. Each run uploads `--count` distinct one-page CVs
`--interval` s apart through the upload API and reports:

- end to end (received -> candidate row) and pickup per hop (deferred -> started), from
  procrastinate's events (paced_bench.hops_report);
- server connections: Postgres client backends of the database, sampled every 0.1 s
  (peak during the run, and at rest after it), of which PgBouncer's server connections;
  in pgbouncer mode also its client connections.

    /opt/ats/venv/bin/python bench/pgbouncer_bench.py [--count 20] [--interval 0.4] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import types
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import paced_bench  # noqa: E402 - bench/ is not a package

BACKENDS_SQL = (
    "SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend'"
    " AND datname = current_database() AND pid <> pg_backend_pid()"
)


class Sampler(threading.Thread):
    """Client backends of the database every 0.1 s, on its own direct connection (not
    counted), and how many of them are PgBouncer's server connections. As the cluster's
    superuser: another role's row (the parse role's) hides its backend_type from `ats`."""

    def __init__(self, url: str, pgbouncer: Any) -> None:
        from ats.config.env import with_user

        super().__init__(daemon=True)
        self.url, self.pgbouncer = with_user(url, "postgres"), pgbouncer
        self.samples: list[tuple[int, int, int]] = []  # (backends, pgbouncer servers, pgbouncer clients)
        self.stopped = threading.Event()

    def sample(self, conn: Any) -> tuple[int, int, int]:
        pids = {r[0] for r in conn.execute(BACKENDS_SQL).fetchall()}
        if self.pgbouncer is None:
            return len(pids), 0, 0
        servers = self.pgbouncer.server_pids()
        clients = sum(1 for r in self.pgbouncer.show("CLIENTS") if r["database"] != "pgbouncer")
        return len(pids), len(pids & servers), clients

    def run(self) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            while not self.stopped.wait(0.1):
                self.samples.append(self.sample(conn))

    def report(self) -> dict[str, Any]:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            rest = self.sample(conn)
            rows = conn.execute(
                "SELECT pid, application_name FROM pg_stat_activity WHERE backend_type = 'client backend'"
                " AND datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchall()
        servers = self.pgbouncer.server_pids() if self.pgbouncer is not None else set()
        direct: dict[str, int] = {}
        for pid, app in rows:
            key = "pgbouncer (server)" if pid in servers else app
            direct[key] = direct.get(key, 0) + 1
        return {
            "backends_at_rest_by_process": dict(sorted(direct.items())),
            "backends_peak": max(s[0] for s in self.samples),
            "pgbouncer_servers_peak": max(s[1] for s in self.samples),
            "pgbouncer_clients_peak": max(s[2] for s in self.samples),
            "backends_at_rest": rest[0],
            "pgbouncer_servers_at_rest": rest[1],
            "pgbouncer_clients_at_rest": rest[2],
        }


def run(mode: str, count: int, interval: float) -> dict[str, Any]:
    from tests.chaos.driver import Web

    from ats.devtools import pg_local
    from ats.devtools.clamd_local import ClamdLocal
    from ats.devtools.pgbouncer_local import PgBouncerLocal

    with contextlib.ExitStack() as es:
        state = Path(es.enter_context(tempfile.TemporaryDirectory(prefix="ats-bench-")))
        state.chmod(0o755)
        url = es.enter_context(pg_local.ephemeral())
        clamd = es.enter_context(ClamdLocal(state_dir=state / "clamd"))
        env = {
            **paced_bench.stack_env(url=url, state=state, clamd_port=clamd.port, code_root=REPO),
            "ATS_LOG_LEVEL": "WARNING",
            "ATS_DEV_PLAIN_HTTP": "1",  # web on loopback http, as `just up` runs it
            "DJANGO_SETTINGS_MODULE": "ats.config.settings",
        }
        env.pop("ATS_EXTRA_APPS", None)
        os.environ.update(env)
        for args in (["migrate", "-v0"], ["ensure_admin", "--password-file", str(state / "pw")]):
            subprocess.run([sys.executable, "-m", "ats.cli", *args], env=env, check=True)
        pgb = None
        pooled = dict(env)
        if mode == "pgbouncer":
            pgb = es.enter_context(PgBouncerLocal(state_dir=state / "pgbouncer", server_url=url))
            pooled.update(
                {"DATABASE_URL": pgb.url(url), "ATS_DB_POOLER": "transaction", "ATS_SESSION_DATABASE_URL": url}
            )
        import django

        django.setup()  # this process reads the results, direct
        procs = {}
        for deployable, proc_env in (("default", pooled), ("untrusted", env)):
            log = (state / f"{deployable}.log").open("ab")
            procs[deployable] = subprocess.Popen(
                [sys.executable, "-m", "ats.cli", "worker", f"--deployable={deployable}"],
                env={**proc_env, "ATS_PROCESS_NAME": f"bench-{deployable}"},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        es.callback(paced_bench.stop_processes, list(procs.values()))
        web = Web(pooled, state)
        es.callback(web.stop)
        web.wait_up()
        web.login("admin", (state / "pw").read_text().strip())
        docs = [paced_bench.distinct_cv(i) for i in range(count + 3)]

        def upload(i: int, name: str) -> int:
            doc = types.SimpleNamespace(filename=name, content_type="application/pdf", data=docs[i])
            return int(web.upload(doc, None)["raw_intake_id"])

        from ats.intake import api as intake_api

        def wait(raw_ids: list[int]) -> None:
            paced_bench.wait_terminal([types.SimpleNamespace(pk=r) for r in raw_ids], 180)

        wait([upload(count + k, f"warm{k}.pdf") for k in range(3)])  # imports, first connections
        time.sleep(8)
        sampler = Sampler(url, pgb)
        sampler.start()
        first_job, first_raw = paced_bench.max_ids()
        raws, next_at = [], time.monotonic()
        for i in range(count):
            raws.append(upload(i, f"cv{i}.pdf"))
            next_at += interval
            time.sleep(max(0.0, next_at - time.monotonic()))
        wait(raws)
        paced_bench.wait_drained(first_job, 180)
        sampler.stopped.set()
        sampler.join()
        states = sorted({intake_api.attachment_status(intake_api.raw_intake_attachments(r)[0])["state"] for r in raws})
        report = paced_bench.hops_report(first_job, first_raw)
        report.pop("end_to_end_samples_ms")
        from django.db import connections

        connections.close_all()
        time.sleep(2)
        return {"mode": mode, "count": count, "interval_s": interval, "states": states, **report, **sampler.report()}


def _print(reports: list[dict[str, Any]]) -> None:
    print(f"{'':<58}" + "".join(f"{r['mode']:>20}" for r in reports))

    def row(label: str, values: list[Any]) -> None:
        print(f"{label:<58}" + "".join(f"{v!s:>20}" for v in values))

    row("end to end p50 / p95 ms", [f"{r['end_to_end_ms']['p50']}/{r['end_to_end_ms']['p95']}" for r in reports])
    tasks = sorted(set().union(*(r["hops"] for r in reports)))
    for task in tasks:
        row(f"pickup p50 / p90 ms {task}", [
            f"{r['hops'][task]['pickup_ms']['p50']}/{r['hops'][task]['pickup_ms']['p90']}" if task in r["hops"] else "-"
            for r in reports
        ])  # fmt: skip
    row("pickups >= poll interval", [r["waits_over_poll"] for r in reports])
    row("... of them while fetchable (missed wake-ups)", [r["missed_wakeups"] for r in reports])
    for key in (
        "backends_peak",
        "pgbouncer_servers_peak",
        "pgbouncer_clients_peak",
        "backends_at_rest",
        "pgbouncer_servers_at_rest",
        "pgbouncer_clients_at_rest",
    ):
        row(key.replace("_", " "), [r[key] for r in reports])
    row("terminal states", [",".join(r["states"]) for r in reports])
    for r in reports:
        print(f"{r['mode']}: backends at rest by process: {r['backends_at_rest_by_process']}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--interval", type=float, default=0.4)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--mode", choices=["direct", "pgbouncer"], help="one run only, JSON out")
    args = ap.parse_args()
    if args.mode:
        print(json.dumps(run(args.mode, args.count, args.interval)))
        return
    reports = []
    for mode in ("direct", "pgbouncer"):
        # A process per mode: settings and the cluster are per process.
        argv = [sys.executable, __file__, "--mode", mode, "--count", str(args.count), "--interval", str(args.interval)]
        out = subprocess.run(argv, capture_output=True, text=True, check=True)
        reports.append(json.loads(out.stdout.strip().splitlines()[-1]))
    if args.json:
        print(json.dumps(reports))
        return
    _print(reports)
    print("(one machine; absolute figures move with its load - compare the columns)")


if __name__ == "__main__":
    main()
