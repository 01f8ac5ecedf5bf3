"""The worker's status file: what `ats healthcheck` needs to judge *this* worker.

procrastinate's `procrastinate_workers` rows carry no name, so a probe cannot tell its
own worker's heartbeat from another's. The worker process therefore writes a small
status file (per worker name, mode 0600, in a private runtime directory on the pod's
/tmp) when it registers and at every heartbeat: its worker id, pid, and what status
providers add (worker-untrusted: its sandbox zygotes and loaded policy hash). The
health check reads it, then asks the *database* for that worker id's heartbeat age - a
wedged worker whose process is alive stops heartbeating and fails its probe.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

STATUS_ENV = "ATS_WORKER_STATUS_FILE"
_providers: dict[str, Callable[[], dict[str, Any] | None]] = {}
_starters: list[Callable[[], None]] = []


def runtime_dir() -> Path:
    return Path(os.environ.get("ATS_RUNTIME_DIR") or Path(tempfile.gettempdir()) / f"ats-run-{os.getuid()}")


def status_path(worker_name: str) -> Path:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in worker_name)
    return runtime_dir() / f"worker-{safe}.json"


def add_status_provider(key: str, provider: Callable[[], dict[str, Any] | None]) -> None:
    """`provider()` is called at every heartbeat; its dict lands under `key` in the file."""
    _providers[key] = provider


def on_worker_start(starter: Callable[[], None]) -> None:
    """Run once as the worker starts, before it registers (e.g. start the sandbox zygotes
    eagerly); its status file is written once it has registered."""
    _starters.append(starter)


def write_status(path: Path, worker_id: int) -> None:
    status: dict[str, Any] = {"worker_id": worker_id, "pid": os.getpid(), "written_at": time.time()}
    for key, provider in _providers.items():
        try:
            status[key] = provider()
        except Exception as exc:  # a provider's fault is itself a finding for the probe
            status[key] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        json.dump(status, fh)
    os.replace(tmp, path)


def read_status(path: Path) -> dict[str, Any] | None:
    try:
        return dict(json.loads(path.read_text()))
    except (OSError, ValueError):
        return None


def install_hooks(path: Path) -> None:
    """Wrap the job manager's worker registration calls (this worker process only)."""
    from procrastinate.manager import JobManager

    if getattr(JobManager, "_ats_status_hooks", False):
        return
    register, heartbeat, unregister = (
        JobManager.register_worker,
        JobManager.update_heartbeat,
        JobManager.unregister_worker,
    )

    async def register_worker(self: JobManager) -> int:
        # The start hooks run *before* the row exists. They block the event loop (the
        # sandbox warm-up: seconds on a loaded node), and a registered worker whose first
        # heartbeat waits for them looks dead to any worker starting meanwhile: its
        # prune_stalled_workers() deletes the row, and this worker's watchdog then exits
        # it as evicted (ats.jobs.watchdog) - a parse worker gone before its first job.
        for starter in _starters:
            try:
                starter()
            except Exception:
                logger.exception("worker start hook failed")
        worker_id = await register(self)
        write_status(path, worker_id)
        return worker_id

    async def update_heartbeat(self: JobManager, worker_id: int) -> None:
        await heartbeat(self, worker_id)
        write_status(path, worker_id)

    async def unregister_worker(self: JobManager, worker_id: int) -> None:
        await unregister(self, worker_id)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()

    JobManager.register_worker = register_worker  # type: ignore[method-assign]
    JobManager.update_heartbeat = update_heartbeat  # type: ignore[method-assign]
    JobManager.unregister_worker = unregister_worker  # type: ignore[method-assign]
    JobManager._ats_status_hooks = True  # type: ignore[attr-defined]
