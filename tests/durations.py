"""What each test costs, measured, and the two uses of it (`tests/durations.json`).

1. **The fast loop leaves out what is dear.** A test whose recorded wall time (set-up, call
   and teardown) is at least `FAST_LOOP_MAX_S` is `slow`: `just test` runs it, `just
   test-fast` does not. The static rules in `tests/conftest.py` (real processes, timer
   modules, named OCR tests) still apply on top; a test the file does not know (a new one)
   is judged by them alone until the next recording.
2. **The dearest work starts first.** xdist's worksteal hands each worker a contiguous half
   of the collection and lets an idle worker steal the back half of another's queue, so the
   run ends when the last long test ends. Ordering the modules by their recorded cost, most
   expensive first (a module's own tests keep their order, and a package whose tests share
   a package-scoped stack stays together), puts the minute-long tests at the front and
   leaves cheap ones to even out the end - longest-processing-time-first scheduling.

The file is data, not a verdict: recording it again (`just test-durations`, a whole
`pytest -n 2` run on a quiet machine) moves tests in or out of the fast loop and changes
nothing `just test` runs. `python -m tests.durations show` prints the fast loop's budget,
`python -m tests.durations table` the docs' table of the 30 slowest tests.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
FILE = REPO / "tests" / "durations.json"
# At most this many seconds a test (wall, at -n 2 in a whole run on an idle 2-core machine)
# stays in the fast loop. At 0.5 s the loop keeps ~92% of the tests and ~40% of their time.
FAST_LOOP_MAX_S = 0.5
# A test the file does not know: cheap, so it sorts with the quick modules.
_UNKNOWN_S = 0.05
# Packages whose tests share one package-scoped stack: ordered as one group, so reordering
# never starts that stack twice in a worker.
_PACKAGE_GROUPS = ("tests/web/journeys/",)


def load(path: Path = FILE) -> dict[str, float]:
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    return {str(k): float(v) for k, v in data["tests"].items()}


def is_dear(nodeid: str, costs: dict[str, float]) -> bool:
    return costs.get(nodeid, 0.0) >= FAST_LOOP_MAX_S


def group_of(nodeid: str) -> str:
    path = nodeid.split("::", 1)[0]
    for package in _PACKAGE_GROUPS:
        if path.startswith(package):
            return package
    return path


def dearest_first(nodeids: Sequence[str], costs: dict[str, float]) -> list[int]:
    """Indices of `nodeids` in run order: groups by descending total cost, each group's tests
    in their collected order (a stable sort, so equal groups keep file order)."""
    totals: dict[str, float] = defaultdict(float)
    first: dict[str, int] = {}
    for i, nodeid in enumerate(nodeids):
        g = group_of(nodeid)
        totals[g] += costs.get(nodeid, _UNKNOWN_S)
        first.setdefault(g, i)
    return sorted(range(len(nodeids)), key=lambda i: (-totals[group_of(nodeids[i])], first[group_of(nodeids[i])], i))


def write(costs: dict[str, float], path: Path = FILE, *, note: str = "") -> None:
    body = {
        "about": "per-test wall seconds (set-up + call + teardown) of a whole run; tests/durations.py",
        "note": note,
        "fast_loop_max_s": FAST_LOOP_MAX_S,
        "tests": {k: round(v, 3) for k, v in sorted(costs.items())},
    }
    path.write_text(json.dumps(body, indent=0, ensure_ascii=False) + "\n")


def from_junit(paths: Iterable[Path]) -> dict[str, float]:
    """Per-test seconds from pytest's junit XML (`time` is set-up + call + teardown)."""
    import xml.etree.ElementTree as ET

    costs: dict[str, float] = {}
    for path in paths:
        for case in ET.parse(path).iter("testcase"):
            classname, name = case.get("classname", ""), case.get("name", "")
            if not classname:
                continue
            # classname "tests.web.test_x" or "tests.web.test_x.TestClass": back to a node id.
            parts = classname.split(".")
            for cut in range(len(parts), 0, -1):
                module = Path(*parts[:cut]).with_suffix(".py")
                if (REPO / module).is_file():
                    nodeid = "::".join([module.as_posix(), *parts[cut:], name])
                    costs[nodeid] = costs.get(nodeid, 0.0) + float(case.get("time") or 0.0)
                    break
    return costs


class Recorder:
    """`ATS_TEST_DURATIONS_RECORD=path`: the controller sums each test's phases and writes the
    file at the end (under xdist the workers' reports reach the controller)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.costs: dict[str, float] = defaultdict(float)
        self.failed = False

    def pytest_runtest_logreport(self, report: Any) -> None:
        self.costs[report.nodeid] += float(getattr(report, "duration", 0.0) or 0.0)
        self.failed |= bool(report.failed)

    def pytest_sessionfinish(self, session: Any) -> None:
        if self.costs:
            write(dict(self.costs), self.path, note="recorded with failures" if self.failed else "")


def _show(costs: dict[str, float]) -> None:
    dear = {k: v for k, v in costs.items() if v >= FAST_LOOP_MAX_S}
    total = sum(costs.values())
    print(f"{len(costs)} tests, {total:.0f} s recorded; fast loop leaves out {len(dear)} ({sum(dear.values()):.0f} s)")
    for nodeid, s in sorted(costs.items(), key=lambda kv: -kv[1])[:10]:
        print(f"{s:8.2f}  {nodeid}")


def _what_it_proves(nodeid: str) -> str:
    """The test's docstring's first sentence, else its name read as one (the names are
    sentences on purpose); from the source, so nothing is imported."""
    import ast

    path, *names = nodeid.split("[", 1)[0].split("::")
    tree = ast.parse((REPO / path).read_text())
    scope: list[ast.stmt] = tree.body
    node: ast.AST | None = None
    for name in names:
        node = next((n for n in scope if getattr(n, "name", None) == name), None)
        scope = getattr(node, "body", [])
    doc = ast.get_docstring(node) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else None
    if doc:
        return _first_sentence(doc)
    said = names[-1].removeprefix("test_").replace("_", " ")
    module = ast.get_docstring(tree)
    return f"{said} ({_first_sentence(module)})" if module else said


def _first_sentence(doc: str, limit: int = 220) -> str:
    first = " ".join(doc.split()).split(". ", 1)[0].rstrip(".")
    return first if len(first) <= limit else first[: limit - 3].rsplit(" ", 1)[0] + "..."


def table(costs: dict[str, float], n: int = 30) -> str:
    """The docs' "slowest tests" table (docs/testing.md)."""
    rows = ["| # | s | test | what it proves |", "|---|---|---|---|"]
    for i, (nodeid, s) in enumerate(sorted(costs.items(), key=lambda kv: -kv[1])[:n], 1):
        proves = _what_it_proves(nodeid).replace("|", "\\|")
        rows.append(f"| {i} | {s:.1f} | `{nodeid}` | {proves} |")
    return "\n".join(rows)


def main(argv: Sequence[str]) -> int:
    if argv[:1] == ["table"]:
        print(table(load()))
        return 0
    if len(argv) >= 2 and argv[0] == "from-junit":
        write(from_junit(Path(p) for p in argv[1:]), note="from junit xml")
        return 0
    if argv[:1] == ["show"]:
        _show(load())
        return 0
    print("usage: python -m tests.durations show | table | from-junit RUN.xml ...", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
