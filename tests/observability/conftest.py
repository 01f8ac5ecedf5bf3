from __future__ import annotations

import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ats.devtools.pg_local import free_port

REPO = Path(__file__).resolve().parents[2]


def scrape(url: str, *, token: str | None = None, timeout: float = 10.0) -> str:
    req = urllib.request.Request(url)
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return resp.read().decode()


def wait_scrape(url: str, proc: subprocess.Popen[bytes] | None = None, timeout: float = 30.0, **kw: Any) -> str:
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"metrics process exited with {proc.returncode}")
        try:
            return scrape(url, **kw)
        except urllib.error.HTTPError:
            raise  # it answered
        except (urllib.error.URLError, ConnectionError) as exc:
            last = exc
            time.sleep(0.2)
    raise TimeoutError(f"{url} did not answer: {last}")


class Exporter:
    def __init__(self, env: dict[str, str], extra_env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/metrics"
        self.log = Path(env["ATS_STATE_DIR"]) / f"exporter-{self.port}.log"
        self._fh = self.log.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ats.monitoring.exporter", "--bind", f"127.0.0.1:{self.port}"],
            env={**env, **(extra_env or {})},
            cwd=REPO,
            stdout=self._fh,
            stderr=subprocess.STDOUT,
        )

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._fh.close()


@pytest.fixture
def start_exporter(stack_env: dict[str, str]) -> Iterator[Callable[..., Exporter]]:
    started: list[Exporter] = []

    def start(extra_env: dict[str, str] | None = None) -> Exporter:
        exp = Exporter(stack_env, extra_env)
        started.append(exp)
        return exp

    yield start
    for exp in started:
        exp.stop()


def samples(text: str) -> dict[str, float]:
    """`name{k="v",...}` (labels sorted by name) -> value, for every sample of an exposition."""
    from prometheus_client.parser import text_string_to_metric_families

    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
            out[f"{s.name}{{{labels}}}" if labels else s.name] = s.value
    return out


def families(text: str) -> set[str]:
    return {line.split()[2] for line in text.splitlines() if line.startswith("# TYPE ")}
