"""The benchmark scripts at tiny size: they still run end to end and print their table.

Keeps `just bench` from rotting between runs. Asserts the report's structure only, never
a speed or a size: those are the benchmark's to report (docs/benchmarks.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# Two stacks one after the other (the baseline release's code, then this tree's).
pytestmark = [pytest.mark.slow, pytest.mark.integration, pytest.mark.timeout(1500)]


def test_e2e_bench_tiny_prints_the_table_and_writes_the_report(tmp_path: Path) -> None:
    out, png = tmp_path / "bench.json", tmp_path / "bench.png"
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'shared'}{os.pathsep}{REPO}"}
    for key in ("DATABASE_URL", "ATS_PARSE_DATABASE_URL", "ATS_EXTRA_APPS", "DJANGO_SETTINGS_MODULE"):
        env.pop(key, None)  # the bench starts its own stack, not the test session's
    res = subprocess.run(
        [sys.executable, str(REPO / "bench" / "e2e_bench.py"), "--tiny", "--json-out", str(out), "--plot", str(png)],
        env=env,
        capture_output=True,
        text=True,
        timeout=1400,
        cwd=REPO,
    )
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-5000:]
    for row in (
        "backlog -> candidate_created",
        "backlog -> scored application",
        "bare procrastinate no-op",
        "task wrapper overhead",
        "paced upload -> candidate",
        "worker-untrusted PSS",
        "sandbox child private",
        "per hop (paced)",
        "intake.parse_attachment",
        "intake.apply_parse_result",
        "statements, jobs per document",
        "backlog CPU per document",
        "side by side with the baseline release",
        "statements per document",
        "jobs per document",
    ):
        assert row in res.stdout, (row, res.stdout)
    r = json.loads(out.read_text())
    assert r["backlog"]["documents"] == 6 and r["backlog"]["candidates"] == 6, r["backlog"]
    assert r["backlog"]["terminal_states"] == ["candidate_created"]
    assert r["backlog"]["scored_applications"] == 6, r["backlog"]
    assert r["paced"]["end_to_end_ms"]["n"] == 6 and r["paced"]["terminal_states"] == ["candidate_created"]
    assert {"intake.ingest_attachment", "intake.parse_attachment", "intake.apply_parse_result"} <= set(
        r["paced"]["hops"]
    )
    assert r["noop"]["bare_jobs_per_s"] > 0 and r["noop"]["wrapped_jobs_per_s"] > 0
    assert r["ceilings"]["pgbench_skip_locked_c1_tps"] > 0 and r["ceilings"]["pgbench_skip_locked_c4_tps"] > 0
    # Memory: every deployable measured, the parse worker's tree holds its zygotes.
    assert set(r["memory_at_rest"]) == {"default", "untrusted", "web"}
    roles = r["memory_at_rest"]["untrusted"]["by_role"]
    assert roles["untrusted"]["count"] == 1 and roles["zygote"]["count"] >= 1, roles
    assert all(m["why"] for d in r["memory_at_rest"].values() for m in d["by_role"].values())
    assert png.stat().st_size > 10_000  # the plot was drawn
    # Statements counted by the server (pg_stat_statements), the bench's polling apart.
    stmts = r["backlog"]["statements"]
    assert stmts["total"] > stmts["bench_polling"] > 0 and stmts["evicted_entries"] == 0, stmts
    assert r["backlog"]["statements_per_document"] > 0 and {"ats", "ats_parse"} <= set(stmts["by_role"]), stmts
    # CPU per document: each deployable's tree and Postgres's, inside the whole machine's.
    cpu = r["backlog"]["cpu_ms_per_document"]
    assert set(cpu) == {"worker-default", "worker-untrusted", "postgres", "machine"}, cpu
    assert all(v > 0 for v in cpu.values()) and cpu["machine"] >= cpu["worker-default"], cpu
    # The baseline release ran in the same run through the same bench, or says why not.
    base = r["baseline"]
    assert base["ref"] and ("report" in base or base["unavailable"]), base
    if "report" in base:
        assert base["report"]["backlog"]["candidates"] == 6 and base["report"]["paced"]["end_to_end_ms"]["n"] == 6
