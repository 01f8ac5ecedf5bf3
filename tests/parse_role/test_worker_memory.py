"""worker-untrusted at rest fits its PSS budget (issue 26 item 3), measured on the REAL
processes: `ats worker --deployable untrusted`, its two zygotes and their idle spare
children, after one real document went through (so whatever the parse path imports
lazily is counted) and once every spare has finished its warm-up parse.

PSS, not RSS: the zygotes share their parser pages with their spares, and the worker
and the zygotes share the interpreter's; PSS splits each shared page between the
processes mapping it, so the sum is what the deployable really costs the node. Its
file-backed part also depends on other processes mapping the same libraries (other test
sessions' zygotes on a shared machine lower it, a quiet node raises it): the anonymous
part (Pss_Anon, shared only within this process tree) is printed beside it.
"""

from __future__ import annotations

import time
import tomllib
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from ats.sandbox.api import policy_dir
from tests import corpus
from tests.jobs.helpers import wait_for
from tests.parse_role.helpers import parse_job_for_new_document

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(240)]
KIB = 1024


def _rollup(pid: int) -> dict[str, int]:
    """smaps_rollup of one process in KiB ({} once it is gone)."""
    try:
        lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]
    except OSError:
        return {}
    out = {}
    for line in lines:
        key, _, rest = line.partition(":")
        fields = rest.split()
        if fields and fields[-1] == "kB":
            out[key] = int(fields[0])
    return out


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _state(pid: int) -> str:
    """The kernel's process state letter (R running, S sleeping, ...)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "?"


def _census(worker_pid: int, zygotes: list[int]) -> dict[str, Any]:
    spares = [c for z in zygotes for c in _children(z)]
    rollups = {pid: _rollup(pid) for pid in (worker_pid, *zygotes, *spares)}
    pss = {pid: r.get("Pss", 0) for pid, r in rollups.items()}
    return {
        "anon_mb": sum(r.get("Pss_Anon", 0) for r in rollups.values()) / KIB,
        "worker_mb": pss[worker_pid] / KIB,
        "zygote_mb": [pss[z] / KIB for z in zygotes],
        "spare_mb": [pss[c] / KIB for c in spares],
        "spares": spares,
        "total_mb": sum(pss.values()) / KIB,
    }


def test_untrusted_worker_at_rest_fits_its_pss_budget(start_worker: Any) -> None:
    memory = tomllib.loads((policy_dir() / "limits.toml").read_text())["memory"]
    w = start_worker("untrusted")
    _, parse_job = parse_job_for_new_document(corpus.text_pdf(), "pdf")

    def parsed() -> bool:
        with connection.cursor() as cur:
            cur.execute("SELECT status::text FROM procrastinate_jobs WHERE id = %s", [parse_job])
            return cur.fetchone()[0] == "succeeded"

    wait_for(parsed, 90, "the real worker to parse a document")
    from ats.jobs import worker_api

    zygotes = wait_for(
        lambda: (
            len(
                pids := ((worker_api.read_status(worker_api.status_path(w.name)) or {}).get("sandbox") or {}).get(
                    "zygote_pids"
                )
                or []
            )
            == memory["concurrency"]
            and pids
        ),
        60,
        "both zygotes idle",
    )

    def at_rest() -> dict[str, Any] | None:
        # Every zygote has its spare, and every spare has finished its warm-up parse and
        # sleeps on its document socket (two looks 0.5 s apart see the same PSS).
        census = _census(w.proc.pid, zygotes)
        if len(census["spares"]) != len(zygotes) or any(_state(p) != "S" for p in census["spares"]):
            return None
        time.sleep(0.5)
        again = _census(w.proc.pid, zygotes)
        steady = again["spares"] == census["spares"] and abs(again["total_mb"] - census["total_mb"]) < 0.5
        return again if steady else None

    census = wait_for(at_rest, 60, "the spares to finish warming up")
    print(
        f"worker-untrusted at rest: worker {census['worker_mb']:.1f} MiB, zygotes "
        f"{[round(m, 1) for m in census['zygote_mb']]} MiB, spares {[round(m, 1) for m in census['spare_mb']]} "
        f"MiB, total {census['total_mb']:.1f} MiB PSS (of which anonymous {census['anon_mb']:.1f}; "
        f"budget {memory['at_rest_anon_pss_mb']} MiB anonymous; target {memory['at_rest_pss_mb']} MiB in all)"
    )
    # The anonymous part only: the total's file-backed share depends on which other
    # processes map the same libraries (lower on this busy machine, higher on a quiet CI
    # node), so a total line would pass or fail by what else runs. `just bench` reports
    # the total against at_rest_pss_mb.
    assert census["anon_mb"] <= memory["at_rest_anon_pss_mb"], census
