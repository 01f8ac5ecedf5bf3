"""Paced intake latency: documents arriving one at a time, per hop from the job events.

Starts its own stack (ephemeral Postgres, local clamd, worker-default, worker-untrusted as
subprocesses, production polling interval), ingests N distinct one-page text-PDF CVs
`--interval` seconds apart through the intake facade (the same transactional path as the
upload API), waits until every one is terminal, then reports:

- end to end: intake received -> candidate row created (p50/p95/p99/max);
- per hop, from `procrastinate_events`: pickup (deferred -> started) and work
  (started -> succeeded) per task;
- how many pickups waited at least one polling interval (a missed wake-up).

    /opt/ats/venv/bin/python bench/paced_bench.py [--count 60] [--interval 0.4] [--json]

The `deferred` event is stamped with the deferring transaction's start (Postgres now()),
so a job deferred inside another task's transaction shows that task's remaining work in
its pickup time. The report says so beside the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

HOPS_SQL = """
SELECT j.task_name,
       EXTRACT(EPOCH FROM max(e.at) FILTER (WHERE e.type = 'started')
                        - min(e.at) FILTER (WHERE e.type = 'deferred')) * 1000 AS pickup_ms,
       EXTRACT(EPOCH FROM max(e.at) FILTER (WHERE e.type = 'succeeded')
                        - max(e.at) FILTER (WHERE e.type = 'started')) * 1000 AS work_ms
  FROM procrastinate_jobs j JOIN procrastinate_events e ON e.job_id = j.id
 WHERE j.id > %s AND j.queue_name IN ('ingest', 'parse')
 GROUP BY j.id, j.task_name
HAVING count(*) FILTER (WHERE e.type = 'succeeded') > 0
"""

E2E_SQL = """
SELECT EXTRACT(EPOCH FROM (c.created_at - r.received_at)) * 1000
  FROM intake_raw_intake r
  JOIN intake_attachment a ON a.raw_intake_id = r.id
  JOIN candidates_candidate c ON c.id = a.candidate_id
 WHERE r.id > %s
"""


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


def summary(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50": round(statistics.median(values), 1) if values else float("nan"),
        "p90": round(pct(values, 90), 1),
        "p95": round(pct(values, 95), 1),
        "p99": round(pct(values, 99), 1),
        "max": round(max(values), 1) if values else float("nan"),
    }


def distinct_cv(i: int) -> bytes:
    """A one-page text CV, byte-distinct per i (identical bytes would end as duplicates)."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    lines = [f"Candidate Number{i}", f"candidate{i}@example.org", "+44 20 7946 0958", "Python, PostgreSQL"]
    for n, line in enumerate(lines):
        page.insert_text((72, 72 + 20 * n), line, fontsize=12)
    return doc.tobytes(deflate=True, garbage=3)


def run(args: argparse.Namespace, *, fix: bool) -> dict[str, Any]:
    """One stack, one paced run; `fix=False` runs the workers on upstream's fetch loop."""
    from ats.devtools import pg_local
    from ats.devtools.clamd_local import ClamdLocal

    with contextlib.ExitStack() as stack:
        if args.keep:
            state = Path(tempfile.mkdtemp(prefix="ats-bench-"))
            print(f"state and worker logs kept in {state}", file=sys.stderr)
        else:
            state = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="ats-bench-")))
        state.chmod(0o755)
        url = stack.enter_context(pg_local.ephemeral())
        clamd = stack.enter_context(ClamdLocal(state_dir=state / "clamd"))
        from ats.config.env import with_user

        env = {
            **os.environ,
            "DATABASE_URL": url,
            "ATS_PARSE_DATABASE_URL": with_user(url, "ats_parse"),
            "PYTHONPATH": f"{REPO / 'shared'}{os.pathsep}{REPO}",
            "ATS_STATE_DIR": str(state),
            "ATS_STORAGE_LOCAL_ROOT": str(state / "blobs"),
            "ATS_CLAMD_HOST": "127.0.0.1",
            "ATS_CLAMD_PORT": str(clamd.port),
            "ATS_PROCRASTINATE_LOG_LEVEL": os.environ.get("ATS_PROCRASTINATE_LOG_LEVEL", "WARNING"),
            "DJANGO_SETTINGS_MODULE": "ats.config.settings",
            "ATS_WORKER_WAKEUP_FIX": "1" if fix else "0",
        }
        os.environ.update(env)
        subprocess.run([sys.executable, "-m", "ats.cli", "migrate", "-v0"], env=env, check=True)
        import django

        django.setup()
        from django.conf import settings
        from django.db import connection, connections

        from ats.intake import api as intake_api

        settings.ATS["STORAGE_LOCAL_ROOT"] = state / "blobs"
        settings.ATS["CLAMD_PORT"] = clamd.port

        procs = []
        for deployable in ("default", "untrusted"):
            log = (state / f"{deployable}.log").open("ab")
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "ats.cli", "worker", f"--deployable={deployable}"],
                    env={**env, "ATS_PROCESS_NAME": f"bench-{deployable}"},
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )

        def stop_workers() -> None:
            for p in procs:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, signal.SIGTERM)
            for p in procs:
                try:
                    p.wait(100)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)

        stack.callback(stop_workers)
        with connection.cursor() as cur:
            cur.execute("SELECT coalesce(max(id), 0) FROM procrastinate_jobs")
            first_job = cur.fetchone()[0]
            cur.execute("SELECT coalesce(max(id), 0) FROM intake_raw_intake")
            first_raw = cur.fetchone()[0]
        docs = [distinct_cv(i) for i in range(args.count + 3)]
        # Warm-up (workers' first jobs import and open pools), not measured.
        for i in range(3):
            intake_api.intake_receive(
                channel=intake_api.Channel.CLI,
                files=[intake_api.IncomingFile(filename=f"warm{i}.pdf", data=docs[args.count + i])],
                source_ref=f"bench:warm:{i}",
            )
        time.sleep(8)
        with connection.cursor() as cur:
            cur.execute("SELECT coalesce(max(id), 0) FROM procrastinate_jobs")
            first_job = cur.fetchone()[0]
            cur.execute("SELECT coalesce(max(id), 0) FROM intake_raw_intake")
            first_raw = cur.fetchone()[0]
        raws = []
        next_at = time.monotonic()
        for i in range(args.count):
            raws.append(
                intake_api.intake_receive(
                    channel=intake_api.Channel.CLI,
                    files=[intake_api.IncomingFile(filename=f"cv{i}.pdf", data=docs[i])],
                    source_ref=f"bench:{i}",
                )
            )
            next_at += args.interval
            time.sleep(max(0.0, next_at - time.monotonic()))
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            states = [intake_api.attachment_status(intake_api.raw_intake_attachments(r.pk)[0]) for r in raws]
            if all(s["terminal"] for s in states):
                break
            time.sleep(0.2)
        time.sleep(1)  # let the last jobs' succeeded events land
        with connection.cursor() as cur:
            cur.execute(HOPS_SQL, [first_job])
            hop_rows = cur.fetchall()
            cur.execute(E2E_SQL, [first_raw])
            e2e = [float(r[0]) for r in cur.fetchall()]
        poll_s = float(os.environ.get("ATS_POLL_INTERVAL_S", "5"))
        hops: dict[str, dict[str, list[float]]] = {}
        for task, pickup, work in hop_rows:
            h = hops.setdefault(task, {"pickup": [], "work": []})
            h["pickup"].append(float(pickup))
            h["work"].append(float(work))
        report: dict[str, Any] = {
            "count": args.count,
            "interval_s": args.interval,
            "terminal_states": sorted({s["state"] for s in states}),
            "end_to_end_ms": summary(e2e),
            "hops": {
                task: {
                    "pickup_ms": summary(h["pickup"]),
                    "work_ms": summary(h["work"]),
                    "pickups_over_1s": sum(1 for v in h["pickup"] if v > 1000),
                }
                for task, h in sorted(hops.items())
            },
            "missed_wakeups": sum(1 for h in hops.values() for v in h["pickup"] if v >= poll_s * 1000 * 0.9),
        }
        connections.close_all()
        return report


def _print(report: dict[str, Any], title: str) -> None:
    print(f"{title}: {report['count']} documents, {report['interval_s']} s apart; states {report['terminal_states']}")
    e = report["end_to_end_ms"]
    print(f"  end to end (received -> candidate) ms: p50 {e['p50']}  p95 {e['p95']}  p99 {e['p99']}  max {e['max']}")
    print(f"  {'task':<36}{'pickup p50':>11}{'p90':>8}{'max':>9}{'work p50':>10}")
    for task, h in report["hops"].items():
        p, w = h["pickup_ms"], h["work_ms"]
        print(f"  {task:<36}{p['p50']:>11}{p['p90']:>8}{p['max']:>9}{w['p50']:>10}")
    print(f"  pickups of a polling interval or more (missed wake-ups): {report['missed_wakeups']}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=60)
    ap.add_argument("--interval", type=float, default=0.4)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the state directory (worker logs)")
    ap.add_argument("--mode", choices=["upstream", "fixed"], help="one run only, JSON out (used by the comparison)")
    args = ap.parse_args()
    if args.mode:
        print(json.dumps(run(args, fix=args.mode == "fixed")))
        return

    def one(mode: str) -> dict[str, Any]:
        # A process per mode: settings, storage and the cluster are per process.
        argv = [sys.executable, __file__, "--mode", mode, "--count", str(args.count), "--interval", str(args.interval)]
        out = subprocess.run(argv + (["--keep"] if args.keep else []), capture_output=True, text=True, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])

    upstream = one("upstream")
    fixed = one("fixed")
    ratio = upstream["end_to_end_ms"]["p50"] / fixed["end_to_end_ms"]["p50"]
    if args.json:
        print(json.dumps({"upstream_loop": upstream, "ats_wakeup": fixed, "p50_ratio": round(ratio, 2)}))
        return
    _print(upstream, "upstream fetch loop (baseline)")
    _print(fixed, "ats.jobs.wakeup fetch loop")
    print(f"end-to-end p50, baseline / fixed: {ratio:.2f}x")
    print("(pickup = deferred -> started; 'deferred' is stamped at the deferring transaction's start)")


if __name__ == "__main__":
    main()
