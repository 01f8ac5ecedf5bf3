"""Paced intake latency: documents arriving one at a time, per hop from the job events.

Starts its own stack (ephemeral Postgres, local clamd, worker-default, worker-untrusted as
subprocesses, production polling interval), ingests N distinct one-page text-PDF CVs
`--interval` seconds apart through the intake facade (the same transactional path as the
upload API), waits until every one is terminal, then reports:

- end to end: intake received -> candidate row created (p50/p95/p99/max);
- per hop, from `procrastinate_events`: pickup (deferred -> started) and work
  (started -> succeeded) per task;
- how many pickups waited at least one polling interval, and how many of those waited
  while the job could have been fetched (a missed wake-up, rescued by a poll) rather than
  behind its queue's global cap or its lock (a backlog: nothing to wake).

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
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
# The `ats` code the stack runs: this tree, or a baseline release's `shared/` that
# e2e_bench.py extracted (the bench scripts themselves always come from this tree).
CODE_ROOT = Path(os.environ.get("ATS_BENCH_CODE_ROOT") or REPO)

HOPS_SQL = """
SELECT j.task_name,
       EXTRACT(EPOCH FROM max(e.at) FILTER (WHERE e.type = 'started')
                        - min(e.at) FILTER (WHERE e.type = 'deferred')) * 1000 AS pickup_ms,
       EXTRACT(EPOCH FROM max(e.at) FILTER (WHERE e.type = 'succeeded')
                        - max(e.at) FILTER (WHERE e.type = 'started')) * 1000 AS work_ms
  FROM procrastinate_jobs j JOIN procrastinate_events e ON e.job_id = j.id
 WHERE j.id > %s
 GROUP BY j.id, j.task_name
HAVING count(*) FILTER (WHERE e.type = 'succeeded') > 0
"""

JOBS_SQL = """
SELECT j.id, j.queue_name, j.lock, j.priority,
       min(e.at) FILTER (WHERE e.type = 'deferred'),
       max(e.at) FILTER (WHERE e.type = 'started'),
       max(e.at) FILTER (WHERE e.type IN ('succeeded', 'failed', 'deferred_for_retry', 'cancelled', 'aborted'))
  FROM procrastinate_jobs j JOIN procrastinate_events e ON e.job_id = j.id
 WHERE j.id > %s
 GROUP BY j.id
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


_FIRST = [
    "Aisha",
    "Ben",
    "Carlos",
    "Dana",
    "Elif",
    "Farid",
    "Grace",
    "Hugo",
    "Ines",
    "Jonas",
    "Kofi",
    "Lena",
    "Mateo",
    "Nadia",
    "Omar",
    "Priya",
    "Quentin",
    "Rosa",
    "Sven",
    "Tara",
    "Umar",
    "Vera",
    "Wei",
    "Ximena",
    "Yusuf",
    "Zofia",
    "Arjun",
    "Bea",
    "Chidi",
    "Dmitri",
]
_LAST = [
    "Okafor",
    "Lindqvist",
    "Moreau",
    "Tanaka",
    "Haddad",
    "Kowalski",
    "Fernandes",
    "Nguyen",
    "Adeyemi",
    "Schmidt",
    "Rossi",
    "Novak",
    "Dubois",
    "Kaur",
    "Petrov",
    "Mensah",
    "Larsen",
    "Costa",
    "Yilmaz",
    "Murphy",
    "Horvat",
    "Sato",
    "Alvarez",
    "Ncube",
    "Brennan",
    "Varga",
    "Hughes",
    "Iqbal",
    "Jensen",
    "Keller",
]
_DOMAINS = ("gmail.com", "outlook.com", "yahoo.co.uk", "proton.me", "hotmail.com")
_SKILLS = ("Python", "PostgreSQL", "Django", "Kubernetes", "React", "Go", "Terraform", "SQL", "Java", "AWS")


def distinct_cv(i: int) -> bytes:
    """A one-page text CV of a distinct person per i: own name, e-mail, phone and skills.

    Realistic intake is mostly distinct people; identical bytes would end as duplicates,
    and a shared phone or name on every CV would make each one a duplicate pair of all
    the others (dedupe then does O(documents) pair writes per document).
    """
    import pymupdf

    first, last = _FIRST[i % len(_FIRST)], _LAST[(i // len(_FIRST)) % len(_LAST)]
    if i >= len(_FIRST) * len(_LAST):
        last = f"{last}-{_LAST[(i * 7) % len(_LAST)]}"
    skills = ", ".join(_SKILLS[(i + k * 3) % len(_SKILLS)] for k in range(3))
    lines = [
        f"{first} {last}",
        f"{first.lower()}.{last.lower()}{i}@{_DOMAINS[i % len(_DOMAINS)]}",
        f"+44 20 7{i // 10000 % 10}{i // 1000 % 10}{i // 100 % 10} {i % 100:02d}{(i * 37) % 100:02d}",
        "Experience",
        f"Software Engineer, Example Ltd {2015 + i % 8} - Present",
        "Skills",
        skills,
    ]
    doc = pymupdf.open()
    page = doc.new_page()
    for n, line in enumerate(lines):
        page.insert_text((72, 72 + 20 * n), line, fontsize=12)
    return doc.tobytes(deflate=True, garbage=3)


def stack_env(*, url: str, state: Path, clamd_port: int, code_root: Path | None = None) -> dict[str, str]:
    """The environment every bench stack's processes share (this tree's code, the ephemeral
    cluster with its parse role, local blobs and clamd)."""
    from ats.config.env import with_user

    return {
        **os.environ,
        "DATABASE_URL": url,
        "ATS_PARSE_DATABASE_URL": with_user(url, "ats_parse"),
        "PYTHONPATH": f"{(code_root or CODE_ROOT) / 'shared'}{os.pathsep}{REPO}",
        "ATS_STATE_DIR": str(state),
        "ATS_STORAGE_LOCAL_ROOT": str(state / "blobs"),
        "ATS_CLAMD_HOST": "127.0.0.1",
        "ATS_CLAMD_PORT": str(clamd_port),
    }


@contextlib.contextmanager
def stack(
    *,
    fix: bool = True,
    keep: bool = False,
    extra_env: dict[str, str] | None = None,
    web: bool = False,
    pg_setup: Callable[[str], None] | None = None,
) -> Iterator[dict[str, Any]]:
    """Ephemeral Postgres + local clamd + worker-default + worker-untrusted (+ web), migrated,
    with Django set up in this process against it. Yields {"env", "state", "procs"}:
    procs maps deployable -> Popen (each in its own session, for the memory census).
    `pg_setup(url)` runs on the fresh cluster before the migration (e.g. statement stats)."""
    from ats.devtools import pg_local
    from ats.devtools.clamd_local import ClamdLocal

    with contextlib.ExitStack() as es:
        if keep:
            state = Path(tempfile.mkdtemp(prefix="ats-bench-"))
            print(f"state and worker logs kept in {state}", file=sys.stderr)
        else:
            state = Path(es.enter_context(tempfile.TemporaryDirectory(prefix="ats-bench-")))
        state.chmod(0o755)
        url = es.enter_context(pg_local.ephemeral())
        if pg_setup is not None:
            pg_setup(url)
        clamd = es.enter_context(ClamdLocal(state_dir=state / "clamd"))
        env = {
            **stack_env(url=url, state=state, clamd_port=clamd.port),
            "ATS_PROCRASTINATE_LOG_LEVEL": os.environ.get("ATS_PROCRASTINATE_LOG_LEVEL", "WARNING"),
            "DJANGO_SETTINGS_MODULE": "ats.config.settings",
            "ATS_WORKER_WAKEUP_FIX": "1" if fix else "0",
            **(extra_env or {}),
        }
        os.environ.update(env)
        subprocess.run([sys.executable, "-m", "ats.cli", "migrate", "-v0"], env=env, check=True)
        import django

        django.setup()
        from django.conf import settings
        from django.db import connections

        settings.ATS["STORAGE_LOCAL_ROOT"] = state / "blobs"
        settings.ATS["CLAMD_PORT"] = clamd.port

        procs: dict[str, subprocess.Popen[bytes]] = {}
        commands = {d: ["worker", f"--deployable={d}"] for d in ("default", "untrusted")}
        # Issue 26 item 2: more than one worker-default process (ADR §1's per-queue caps
        # hold across processes: ats.jobs.concurrency). The first stays "default".
        for extra in range(2, 1 + int(os.environ.get("ATS_BENCH_DEFAULT_WORKERS", "1"))):
            commands[f"default{extra}"] = ["worker", "--deployable=default"]
        if web:
            commands["web"] = ["web"]
        for deployable, argv in commands.items():
            log = (state / f"{deployable}.log").open("ab")
            procs[deployable] = subprocess.Popen(
                [sys.executable, "-m", "ats.cli", *argv],
                env={**env, "ATS_PROCESS_NAME": f"bench-{deployable}"},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        es.callback(connections.close_all)
        es.callback(stop_processes, list(procs.values()))
        yield {"env": env, "state": state, "procs": procs}


def stop_processes(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGTERM)
    for p in procs:
        try:
            p.wait(100)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)


def max_ids() -> tuple[int, int]:
    """(last job id, last raw intake id): what a measurement after this point reads."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT coalesce(max(id), 0) FROM procrastinate_jobs")
        first_job = cur.fetchone()[0]
        cur.execute("SELECT coalesce(max(id), 0) FROM intake_raw_intake")
        first_raw = cur.fetchone()[0]
    return int(first_job), int(first_raw)


def receive(doc: bytes, name: str, metadata: dict[str, Any] | None = None) -> Any:
    from ats.intake import api as intake_api

    return intake_api.intake_receive(
        channel=intake_api.Channel.CLI,
        files=[intake_api.IncomingFile(filename=name, data=doc)],
        source_ref=f"bench:{name}",
        metadata=metadata,
    )


def wait_terminal(raws: list[Any], timeout_s: float) -> list[dict[str, Any]]:
    """Until every document of `raws` is in a terminal state; then each one's status.

    One counting statement per round: the watching must not load what it measures. Each
    round read every document's status through the intake API (two or more statements
    per document, ~600 per round of a 300-document backlog, every 0.2 s) - on 2 cores the
    bench's own Python and its Postgres backend took CPU from the stack it timed."""
    from django.db import connection

    from ats.intake import api as intake_api

    ids = [r.pk for r in raws]
    terminal = sorted(getattr(s, "value", s) for s in intake_api.TERMINAL)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with connection.cursor() as cur:
            cur.execute(
                "SELECT count(DISTINCT raw_intake_id) FROM intake_attachment"
                " WHERE raw_intake_id = ANY(%s) AND state = ANY(%s)",
                [ids, terminal],
            )
            if cur.fetchone()[0] >= len(ids):
                break
        time.sleep(0.2)
    return [intake_api.attachment_status(intake_api.raw_intake_attachments(r.pk)[0]) for r in raws]


def wait_drained(first_job: int, timeout_s: float) -> None:
    """Until no job deferred since `first_job` is waiting or running (a retry's future run aside)."""
    from django.db import connection

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with connection.cursor() as cur:
            cur.execute(
                "SELECT count(*) FROM procrastinate_jobs WHERE id > %s AND status IN ('todo', 'doing')"
                " AND (scheduled_at IS NULL OR scheduled_at <= now())",
                [first_job],
            )
            if cur.fetchone()[0] == 0:
                return
        time.sleep(0.2)


def warm_up(docs: list[bytes]) -> None:
    """Workers' first jobs import modules and open connections: not measured."""
    for i, doc in enumerate(docs):
        receive(doc, f"warm{i}.pdf")


def fetchable_waits_s(rows: list[tuple[Any, ...]], caps: dict[str, int]) -> dict[int, float]:
    """Per started job: seconds from the moment it became fetchable to its start.

    Fetchable = what ats_jobs_fetch_v1 asks: its queue below its global cap, no job with its
    lock `doing`, none `todo` ranked ahead of it on that lock. A pickup of one polling
    interval whose fetchable wait is short was a backlog (cap, lock, priority), not a
    missed wake-up. Overestimates by the deferring transaction's remaining time
    ('deferred' is stamped at its start). Worker concurrency is not modelled: the bench's
    queues (ingest 2 + maintenance 1) cannot fill worker-default's 4 slots.
    """
    jobs = [
        {"id": r[0], "q": r[1], "lock": r[2], "prio": r[3], "d": r[4], "s": r[5], "f": r[6]}
        for r in rows
        if r[4] is not None
    ]

    def doing(o: dict[str, Any], t: Any) -> bool:
        return o["s"] is not None and o["s"] <= t and (o["f"] is None or t < o["f"])

    def ahead(o: dict[str, Any], j: dict[str, Any], t: Any) -> bool:
        todo = o["d"] <= t and (o["s"] is None or t < o["s"])
        return todo and (o["prio"], -o["id"]) > (j["prio"], -j["id"])

    waits: dict[int, float] = {}
    for j in jobs:
        if j["s"] is None:
            continue
        near = [
            o
            for o in jobs
            if o is not j
            and (o["q"] == j["q"] or (j["lock"] and o["lock"] == j["lock"]))
            and o["d"] <= j["s"]
            and (o["f"] is None or o["f"] >= j["d"])
        ]
        ready = j["d"]
        moments = sorted({t for o in near for t in (o["d"], o["s"], o["f"]) if t and j["d"] < t < j["s"]})
        for t in [j["d"], *moments]:
            at_cap = sum(1 for o in near if o["q"] == j["q"] and doing(o, t)) >= caps.get(j["q"], 10_000)
            locked = bool(j["lock"]) and any(o["lock"] == j["lock"] and (doing(o, t) or ahead(o, j, t)) for o in near)
            if at_cap or locked:
                ready = None
            elif ready is None:
                ready = t
        waits[j["id"]] = (j["s"] - ready).total_seconds() if ready is not None else 0.0
    return waits


def hops_report(first_job: int, first_raw: int) -> dict[str, Any]:
    """End to end (received -> candidate row) and per hop (pickup, work) since the ids."""
    from django.db import connection

    try:
        from ats.jobs.policy import QUEUE_CONCURRENCY as caps
    except ImportError:  # a baseline release (e2e_bench.py) without global caps
        caps = {}

    with connection.cursor() as cur:
        cur.execute(HOPS_SQL, [first_job])
        hop_rows = cur.fetchall()
        cur.execute(JOBS_SQL, [first_job])
        job_rows = cur.fetchall()
        cur.execute(E2E_SQL, [first_raw])
        e2e = [float(r[0]) for r in cur.fetchall()]
    poll_s = float(os.environ.get("ATS_POLL_INTERVAL_S", "5"))
    hops: dict[str, dict[str, list[float]]] = {}
    poll_ms = poll_s * 1000 * 0.9
    fetchable = fetchable_waits_s(job_rows, caps)
    for task, pickup, work in hop_rows:
        h = hops.setdefault(task, {"pickup": [], "work": []})
        h["pickup"].append(float(pickup))
        h["work"].append(float(work))
    return {
        "end_to_end_ms": summary(e2e),
        "end_to_end_samples_ms": sorted(round(v, 1) for v in e2e),
        "hops": {
            task: {
                "pickup_ms": summary(h["pickup"]),
                "work_ms": summary(h["work"]),
                "pickups_over_1s": sum(1 for v in h["pickup"] if v > 1000),
            }
            for task, h in sorted(hops.items())
        },
        # Waited a polling interval while fetchable: only a poll started it.
        "missed_wakeups": sum(1 for w in fetchable.values() if w * 1000 >= poll_ms),
        # Waited a polling interval, whatever the reason (what `missed_wakeups` counted
        # before it told a backlog behind the cap or a lock from a missed wake-up).
        "waits_over_poll": sum(1 for h in hops.values() for v in h["pickup"] if v >= poll_ms),
        "longest_fetchable_wait_ms": round(max(fetchable.values(), default=0.0) * 1000, 1),
    }


def paced(count: int, interval: float, docs: list[bytes], *, settle_s: float = 120) -> dict[str, Any]:
    """`count` documents, one every `interval` seconds; waits until all are terminal."""
    first_job, first_raw = max_ids()
    raws = []
    next_at = time.monotonic()
    for i in range(count):
        raws.append(receive(docs[i], f"cv{i}.pdf"))
        next_at += interval
        time.sleep(max(0.0, next_at - time.monotonic()))
    states = wait_terminal(raws, settle_s)
    # The follow-ups (page images, dedupe, search) may still queue behind the cap after
    # the last candidate: their pickups are what a backlog or a missed wake-up delays.
    wait_drained(first_job, settle_s)
    return {
        "count": count,
        "interval_s": interval,
        "terminal_states": sorted({s["state"] for s in states}),
        **hops_report(first_job, first_raw),
    }


def run(args: argparse.Namespace, *, fix: bool) -> dict[str, Any]:
    """One stack, one paced run; `fix=False` runs the workers on upstream's fetch loop."""
    with stack(fix=fix, keep=args.keep):
        docs = [distinct_cv(i) for i in range(args.count + 3)]
        warm_up(docs[args.count :])
        time.sleep(8)
        report = paced(args.count, args.interval, docs)
        report.pop("end_to_end_samples_ms")
        return report


def _print(report: dict[str, Any], title: str) -> None:
    print(f"{title}: {report['count']} documents, {report['interval_s']} s apart; states {report['terminal_states']}")
    e = report["end_to_end_ms"]
    print(f"  end to end (received -> candidate) ms: p50 {e['p50']}  p95 {e['p95']}  p99 {e['p99']}  max {e['max']}")
    print(f"  {'task':<36}{'pickup p50':>11}{'p90':>8}{'max':>9}{'work p50':>10}")
    for task, h in report["hops"].items():
        p, w = h["pickup_ms"], h["work_ms"]
        print(f"  {task:<36}{p['p50']:>11}{p['p90']:>8}{p['max']:>9}{w['p50']:>10}")
    print(
        f"  pickups of a polling interval or more: {report['waits_over_poll']}; of them while fetchable"
        f" (missed wake-ups): {report['missed_wakeups']}; longest fetchable wait"
        f" {report['longest_fetchable_wait_ms']} ms"
    )


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
