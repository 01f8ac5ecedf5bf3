"""Per-hop statement counts and lock waits for a backlog (issue 26 item 1).

    /opt/ats/venv/bin/python bench/hop_profile.py [--backlog N] [--baseline REF|none] [--json-out FILE]

One fresh stack per code tree (the baseline's first, then this tree's; same bench, same
documents), a backlog of N distinct one-page CVs received at once, and:

- per hop (task): jobs, Django statements per job by shape and the time the worker spent
  in them - counted inside the workers (bench.benchapp.hop_profile, loaded only here);
- per role, from pg_stat_statements: every statement of the database, procrastinate's
  fetch/finish and worker-untrusted's parse role included; per document;
- CPU per document: each deployable's process tree and Postgres's, and the whole
  machine's (/proc/stat; what the trees miss: unreaped children, kernel work, clamd);
- lock waits: pg_stat_activity sampled every --sample-ms, each backend waiting on a
  lock (wait_event_type 'Lock') counted by its statement's shape; sampled, so a wait
  shorter than the interval is mostly missed - a floor, and comparable between trees.

Never gated; the machine may be shared: compare the two trees of one run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import e2e_bench as e2e  # noqa: E402 - the stack, pg_stat_statements and the backlog live there
import paced_bench as pb  # noqa: E402
from bench.benchapp.hop_profile import shape  # noqa: E402


class LockWaits(threading.Thread):
    """Samples pg_stat_activity on its own connection: who waits on a lock, doing what."""

    def __init__(self, url: str, every_s: float) -> None:
        super().__init__(daemon=True)
        self.url, self.every_s = url, every_s
        self.stop = threading.Event()
        self.samples = 0
        self.waiting: Counter[str] = Counter()
        self.longest: dict[str, float] = {}

    def run(self) -> None:
        import psycopg

        from ats.config.env import with_user

        # As postgres (the ephemeral cluster trusts it): pg_stat_statements is read without
        # that role's statements, so the sampling does not count as the documents' work.
        with psycopg.connect(with_user(self.url, "postgres"), autocommit=True) as conn:
            while not self.stop.is_set():
                rows = conn.execute(
                    "SELECT query, EXTRACT(EPOCH FROM clock_timestamp() - state_change) FROM pg_stat_activity"
                    " WHERE wait_event_type = 'Lock' AND datname = current_database()"
                ).fetchall()
                self.samples += 1
                for query, waited in rows:
                    key = shape(query or "")
                    self.waiting[key] += 1
                    self.longest[key] = max(self.longest.get(key, 0.0), float(waited or 0))
                time.sleep(self.every_s)

    def report(self) -> dict[str, Any]:
        ms = self.every_s * 1000
        return {
            "samples": self.samples,
            "sample_ms": ms,
            "by_statement": {
                k: {"sampled_wait_ms": round(n * ms, 1), "longest_ms": round(self.longest[k] * 1000, 1)}
                for k, n in self.waiting.most_common()
            },
        }


_tree, cpu_seconds, machine_cpu_seconds, postmaster_pid = (
    e2e.process_tree,
    e2e.cpu_seconds,
    e2e.machine_cpu_seconds,
    e2e.postmaster_pid,
)


def hops(directory: Path) -> dict[str, dict[str, list[float]]]:
    """Every worker's counters, summed per task (statements outside a task left out)."""
    total: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0, 0.0]))
    for f in directory.glob("*.json"):
        for task, shapes in json.loads(f.read_text()).items():
            if task in ("-", "_paths"):
                continue
            for s, (n, sec) in shapes.items():
                total[task][s][0] += n
                total[task][s][1] += sec
    return total


def code_paths(directory: Path) -> dict[str, dict[str, int]]:
    """With ATS_HOP_PROFILE_STACKS set: per task, each matching statement with the code
    path that sent it (whole run, warm-up included), most frequent first."""
    total: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for f in directory.glob("*.json"):
        for task, paths in json.loads(f.read_text()).get("_paths", {}).items():
            for path, n in paths.items():
                total[task][path] += n
    return {t: dict(sorted(p.items(), key=lambda x: -x[1])) for t, p in total.items()}


def jobs_by_task(first_job: int) -> dict[str, int]:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute(
            "SELECT task_name, count(*) FROM procrastinate_jobs WHERE id > %s AND status = 'succeeded' GROUP BY 1",
            [first_job],
        )
        return {str(t): int(n) for t, n in cur.fetchall()}


def measure(args: argparse.Namespace) -> dict[str, Any]:
    from django.db import connections

    profile_dir = Path(tempfile.mkdtemp(prefix="ats-hop-profile-"))
    extra = {"ATS_EXTRA_APPS": "bench.benchapp", "ATS_HOP_PROFILE_DIR": str(profile_dir)}
    report: dict[str, Any] = {"argv": sys.argv[1:], "load_before": e2e._load()}
    with pb.stack(extra_env=extra, pg_setup=e2e.enable_statement_stats) as st:
        procs = st["procs"]
        docs = [pb.distinct_cv(i) for i in range(args.backlog + 3)]
        pb.warm_up(docs[-3:])
        e2e.settle()  # the warm-up's follow-ups are not the backlog's
        first_job, _ = pb.max_ids()
        before = hops(profile_dir)
        waits = LockWaits(st["env"]["DATABASE_URL"], args.sample_ms / 1000)
        waits.start()
        sampler = e2e.Sampler({d: procs[d] for d in ("default", "untrusted")}, every_s=5)
        stmts = e2e.StatementCounter(st["env"]["DATABASE_URL"])
        roots = {
            "worker-default": [procs["default"].pid],
            "worker-untrusted": [procs["untrusted"].pid],
            "postgres": [postmaster_pid(st["env"]["DATABASE_URL"])],
        }
        cpu_before = {k: cpu_seconds(v) for k, v in roots.items()}
        machine_before = machine_cpu_seconds()
        report["backlog"] = e2e.backlog(args.backlog, docs, sampler, stmts, settle_s=120 + args.backlog)
        e2e.settle()  # the follow-ups and page images still queued after the last score
        cpu = {k: cpu_seconds(v) - cpu_before[k] for k, v in roots.items()}
        cpu["machine"] = machine_cpu_seconds() - machine_before
        n_docs = max(report["backlog"]["candidates"], 1)
        # Includes the idle periodic work and the bench's own queries (postgres) meanwhile.
        report["cpu_ms_per_document"] = {k: round(v * 1000 / n_docs, 1) for k, v in cpu.items()}
        waits.stop.set()
        waits.join()
        time.sleep(1)  # the workers' last counters reach their files
        after = hops(profile_dir)
        report["code_paths"] = code_paths(profile_dir)
        jobs = jobs_by_task(first_job)
        connections.close_all()
    n = max(report["backlog"]["candidates"], 1)
    per_hop: dict[str, Any] = {}
    for task, shapes in after.items():
        delta = {
            s: (c - before.get(task, {}).get(s, [0, 0.0])[0], sec - before.get(task, {}).get(s, [0, 0.0])[1])
            for s, (c, sec) in shapes.items()
        }
        count = sum(c for c, _ in delta.values())
        if count <= 0:
            continue
        runs = max(jobs.get(task, 0), 1)
        per_hop[task] = {
            "jobs": jobs.get(task, 0),
            "statements_per_job": round(count / runs, 1),
            "sql_ms_per_job": round(sum(sec for _, sec in delta.values()) * 1000 / runs, 2),
            "statements_per_document": round(count / n, 1),
            "by_shape": {
                s: {"per_job": round(c / runs, 2), "ms_per_job": round(sec * 1000 / runs, 3)}
                for s, (c, sec) in sorted(delta.items(), key=lambda x: -x[1][0])
                if c > 0
            },
        }
    report["hops"] = per_hop
    report["lock_waits"] = waits.report()
    report["load_after"] = e2e._load()
    return report


def summary(label: str, r: dict[str, Any]) -> str:
    bl = r["backlog"]
    roles = bl["statements"]["by_role"]
    n = max(bl["candidates"], 1)
    lines = [
        f"== {label}: {bl['candidates']} documents, {bl['docs_per_s_to_candidate']} docs/s to candidate,"
        f" {bl['statements_per_document']} statements and {bl['jobs_per_document']} jobs per document"
        f" (load {r['load_before']} -> {r['load_after']})",
        "   per role per document: " + ", ".join(f"{k} {v / n:.1f}" for k, v in roles.items()),
        "   CPU ms per document: " + ", ".join(f"{k} {v}" for k, v in r.get("cpu_ms_per_document", {}).items()),
        f"   {'task':<40} {'jobs':>5} {'stmts/job':>10} {'sql ms/job':>11}",
    ]
    for task, h in sorted(r["hops"].items()):
        lines.append(f"   {task:<40} {h['jobs']:>5} {h['statements_per_job']:>10} {h['sql_ms_per_job']:>11}")
    lw = r["lock_waits"]
    lines.append(f"   lock waits (sampled every {lw['sample_ms']:g} ms, {lw['samples']} samples):")
    for s, w in list(lw["by_statement"].items())[:8]:
        lines.append(f"     {s[:70]:<70} {w['sampled_wait_ms']:>8} ms sampled, longest {w['longest_ms']} ms")
    if not lw["by_statement"]:
        lines.append("     none seen")
    return "\n".join(lines)


def run_one(args: argparse.Namespace, code_root: Path, out: Path) -> dict[str, Any]:
    argv = [sys.executable, str(Path(__file__).resolve()), "--one", "--json-out", str(out)]
    argv += ["--backlog", str(args.backlog), "--sample-ms", str(args.sample_ms)]
    env = {
        **os.environ,
        "ATS_BENCH_CODE_ROOT": str(code_root),
        "PYTHONPATH": f"{code_root / 'shared'}{os.pathsep}{REPO}",
    }
    res = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"hop profile against {code_root} failed:\n{res.stdout[-3000:]}\n{res.stderr[-5000:]}")
    return dict(json.loads(out.read_text()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backlog", type=int, default=100)
    ap.add_argument("--sample-ms", type=float, default=5.0)
    ap.add_argument("--baseline", default="none", help="git ref measured first, in its own stack ('none': skip)")
    ap.add_argument("--json-out", type=Path)
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        args.json_out.write_text(json.dumps(measure(args), indent=1))
        return
    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="ats-hop-runs-") as tmp:
        if args.baseline != "none":
            sha, tree = e2e.baseline_tree(args.baseline)
            result["baseline"] = {"ref": args.baseline, "sha": sha, "report": run_one(args, tree, Path(tmp) / "b.json")}
        result["this"] = run_one(args, REPO, Path(tmp) / "t.json")
    if "baseline" in result:
        print(summary(f"baseline {args.baseline}", result["baseline"]["report"]))
    print(summary("this tree", result["this"]))
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
