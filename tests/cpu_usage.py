"""CPU seconds per test, for finding the suite's CPU hogs (`ATS_TEST_CPU_LOG=path`).

Wall time on a shared machine says more about the neighbours than about a test; CPU time
does not. On 2 cores the pytest stage cannot end before (total CPU) / 2, so the tests that
burn the most CPU decide how short it can get. Counted per test (set-up, call and teardown):

- the test process itself and every process below it (worker processes, CLI subprocesses,
  clamd, sandbox children, browsers), live ones by their own counters, finished ones through
  their parent's children counters once reaped;
- this xdist worker's own Postgres cluster (the postmaster and its backends), which runs
  detached from the test process but works for it alone.

A process that outlives its test (a module's shared stack) is charged to the tests it runs
under; one started and ended by a module fixture, to the first and last test of the module.
Linux only (/proc). `scripts/`-free on purpose: `python -m tests.cpu_usage LOG` summarises.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

_TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, utime+stime+cutime+cstime in seconds) of one process."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name may hold spaces and parentheses: split after the last ')'.
    fields = raw[raw.rindex(")") + 2 :].split()
    ppid = int(fields[1])
    ticks = sum(int(f) for f in fields[11:15])
    return ppid, ticks / _TICK


def _postmaster_pid() -> int | None:
    """This process's ephemeral cluster (ats.devtools.pg_local), by the port in DATABASE_URL."""
    url = os.environ.get("DATABASE_URL", "")
    port = url.rsplit(":", 1)[-1].split("/", 1)[0] if url.count(":") >= 2 else ""
    for pidfile in Path(tempfile.gettempdir()).glob("ats-pg-*/data/postmaster.pid"):
        try:
            lines = pidfile.read_text().splitlines()
        except OSError:
            continue
        if len(lines) > 3 and lines[3].strip() == port:
            return int(lines[0])
    return None


def tree_cpu(roots: list[int]) -> float:
    """CPU seconds of the processes under `roots` (inclusive), reaped children included."""
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        st = _stat(int(entry.name))
        if st is not None:
            parent[int(entry.name)], cpu[int(entry.name)] = st
    children: dict[int, list[int]] = {}
    for pid, ppid in parent.items():
        children.setdefault(ppid, []).append(pid)
    total = 0.0
    todo = [r for r in roots if r in cpu]
    seen: set[int] = set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += cpu[pid]
        todo.extend(children.get(pid, ()))
    return total


class Recorder:
    def __init__(self, log: str) -> None:
        self.log = log
        self.worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        self._postmaster: int | None = None

    def _roots(self) -> list[int]:
        if self._postmaster is None:
            self._postmaster = _postmaster_pid()
        return [os.getpid()] + ([self._postmaster] if self._postmaster else [])

    def start(self) -> tuple[float, float, float]:
        t = os.times()
        return time.monotonic(), t.user + t.system, tree_cpu(self._roots())

    def finish(self, nodeid: str, began: tuple[float, float, float]) -> None:
        wall0, self0, tree0 = began
        t = os.times()
        row = {
            "test": nodeid,
            "worker": self.worker,
            "wall": round(time.monotonic() - wall0, 3),
            "self_cpu": round(t.user + t.system - self0, 3),
            "tree_cpu": round(tree_cpu(self._roots()) - tree0, 3),
        }
        with open(self.log, "a") as f:
            f.write(json.dumps(row) + "\n")


def summarise(log: str, top: int = 30) -> None:
    rows = [json.loads(line) for line in Path(log).read_text().splitlines() if line.strip()]
    total_cpu = sum(r["tree_cpu"] for r in rows)
    total_wall = sum(r["wall"] for r in rows)
    print(f"{len(rows)} tests; CPU {total_cpu:.0f} s (tree), {sum(r['self_cpu'] for r in rows):.0f} s (test process)")
    print(f"sum of walls {total_wall:.0f} s; floor on 2 cores: CPU/2 = {total_cpu / 2:.0f} s")
    for key in ("tree_cpu", "wall"):
        print(f"\n-- top {top} by {key}")
        for r in sorted(rows, key=lambda r: -r[key])[:top]:
            print(f"{r['tree_cpu']:8.1f} cpu {r['wall']:8.1f} wall  {r['test']}")
    by_module: dict[str, list[float]] = {}
    for r in rows:
        m = by_module.setdefault(r["test"].split("::")[0], [0.0, 0.0, 0])
        m[0] += r["tree_cpu"]
        m[1] += r["wall"]
        m[2] += 1
    print(f"\n-- top {top} modules by CPU")
    for mod, (c, w, n) in sorted(by_module.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"{c:8.1f} cpu {w:8.1f} wall {n:4d} tests  {mod}")


if __name__ == "__main__":
    summarise(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 30)
