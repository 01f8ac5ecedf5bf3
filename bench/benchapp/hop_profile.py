"""Per-hop SQL statement counter for bench/hop_profile.py (issue 26), loaded into a worker
by bench.benchapp when ATS_HOP_PROFILE_DIR is set - never in a deployment.

Every statement Django sends on any connection of the process is attributed to the task
running in that thread (ats.jobs.api.current_attempt(); "-" outside a task: heartbeats,
the watchdog) and counted with its time in the database, per statement shape (its first
words). A daemon thread writes the totals to <dir>/<pid>.json twice a second, so the
bench can read them while the worker runs. procrastinate's own fetch/finish go through
its psycopg pool, not Django: they are not here (pg_stat_statements has them).
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

_lock = threading.Lock()
# task -> shape -> [count, seconds]
_stats: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0, 0.0]))
_SPACE = re.compile(r"\s+")
# ATS_HOP_PROFILE_STACKS=<regex>: for each statement whose shape matches, also count the
# code path that sent it (the innermost ats.* frames), to find who reads what twice.
_STACKS = re.compile(os.environ["ATS_HOP_PROFILE_STACKS"]) if os.environ.get("ATS_HOP_PROFILE_STACKS") else None
# task -> "shape <- path" -> count
_paths: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))


def _code_path(depth: int = 5) -> str:
    import traceback

    frames = [
        f
        for f in traceback.extract_stack()[:-3]
        if "/ats/" in f.filename and "site-packages" not in f.filename and "/ats/jobs/" not in f.filename
    ]
    return " < ".join(f"{Path(f.filename).stem}.{f.name}:{f.lineno}" for f in reversed(frames[-depth:]))


def shape(sql: str) -> str:
    """A statement's kind and target: the first words up to the first parenthesis or 60 chars."""
    text = _SPACE.sub(" ", sql.strip())
    head = text.split("(", 1)[0] if not text.upper().startswith("SELECT") else text
    if text.upper().startswith("SELECT"):
        # SELECT ... FROM <table> [... FOR UPDATE]: the table and the lock say what it is.
        m = re.search(r"\bFROM \"?([\w.]+)", text)
        lock = re.search(r"FOR (NO KEY )?UPDATE|FOR (KEY )?SHARE", text)
        return f"SELECT {m.group(1) if m else text[7:60]}{' ' + lock.group(0) if lock else ''}"
    return head[:60]


def _wrapper(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
    from ats.jobs import api as jobs_api

    attempt = jobs_api.current_attempt()
    task = attempt.task_name if attempt is not None else "-"
    t0 = time.perf_counter()
    try:
        return execute(sql, params, many, context)
    finally:
        dt = time.perf_counter() - t0
        kind = shape(sql)
        with _lock:
            entry = _stats[task][kind]
            entry[0] += 1
            entry[1] += dt
            if _STACKS is not None and _STACKS.search(kind):
                _paths[task][f"{kind} <- {_code_path()}"] += 1


def _dump(path: Path) -> None:
    while True:
        time.sleep(0.5)
        with _lock:
            data: dict[str, Any] = {
                t: {s: [int(c), round(sec, 6)] for s, (c, sec) in shapes.items()} for t, shapes in _stats.items()
            }
            if _paths:
                data["_paths"] = {t: dict(p) for t, p in _paths.items()}
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data))
        tmp.replace(path)


def install(directory: str) -> None:
    from django.db.backends.signals import connection_created

    def on_connect(sender: Any, connection: Any, **_: Any) -> None:
        if _wrapper not in connection.execute_wrappers:
            connection.execute_wrappers.append(_wrapper)

    connection_created.connect(on_connect, weak=False)
    path = Path(directory) / f"{os.getpid()}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    threading.Thread(target=_dump, args=(path,), daemon=True, name="hop-profile").start()
