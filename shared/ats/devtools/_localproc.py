"""Helpers shared by the local service harnesses (clamd, Azurite): ports, waiting, stopping."""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from ats.errors import AtsError

# shared/ats/devtools/_localproc.py -> repository root
REPO_ROOT = Path(__file__).resolve().parents[3]


class HarnessError(AtsError, RuntimeError):
    """A local service did not start (the message carries the tail of its log)."""


def free_tcp_port(host: str = "127.0.0.1") -> int:
    """A port that was free a moment ago. The service binds it right after; the race
    with another process grabbing it in between is accepted for tests (the start then
    fails loudly with the service's own 'address in use' log line)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        port: int = s.getsockname()[1]
        return port


def log_tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def wait_ready(
    proc: subprocess.Popen[bytes],
    probe: Callable[[], bool],
    *,
    timeout: float,
    name: str,
    log: Path,
) -> float:
    """Poll ``probe`` until it is true; return seconds waited. Fails fast if the process
    exits (bad config, port in use) instead of sitting out the whole timeout."""
    started = time.monotonic()
    deadline = started + timeout
    while True:
        code = proc.poll()
        if code is not None:
            raise HarnessError(f"{name} exited with {code} during start:\n{log_tail(log)}")
        if probe():
            return time.monotonic() - started
        if time.monotonic() > deadline:
            stop_process(proc, timeout=5)
            raise HarnessError(f"{name} not ready after {timeout}s:\n{log_tail(log)}")
        time.sleep(0.02)


def stop_process(proc: subprocess.Popen[bytes], *, timeout: float) -> int | None:
    """SIGTERM (both clamd and Azurite shut down cleanly on it), SIGKILL after
    ``timeout``. Only ever signals the pid we started."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=timeout)
    return proc.returncode
