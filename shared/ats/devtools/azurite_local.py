"""Run Azurite's blob service (npm ``azurite`` pinned in /package.json) for tests and ``just up``.

Install once per checkout: ``npm ci`` at the repository root (node_modules is gitignored).

We do *not* pass ``--skipApiVersionCheck``: the client pins ``api_version`` instead
(``ats.storage.azure_blob.DEFAULT_API_VERSION``), so a future SDK bump that Azurite does
not understand fails loudly in tests rather than being papered over.

CLI (foreground, exec's node; for the process supervisor of ``just up``)::

    python -m ats.devtools.azurite_local --location .ats/azurite --port 10000
"""

from __future__ import annotations

import argparse
import http.client
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from ats.devtools._localproc import REPO_ROOT, HarnessError, free_tcp_port, stop_process, wait_ready

# Azurite's documented, public development account (not a secret; same for everyone).
DEV_ACCOUNT_NAME = "devstoreaccount1"
DEV_ACCOUNT_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
DEFAULT_BINARY = REPO_ROOT / "node_modules" / ".bin" / "azurite-blob"

__all__ = [
    "DEFAULT_BINARY",
    "DEV_ACCOUNT_KEY",
    "DEV_ACCOUNT_NAME",
    "AzuriteLocal",
    "HarnessError",
    "dev_connection_string",
    "main",
]


def dev_connection_string(host: str = "127.0.0.1", port: int = 10000) -> str:
    return (
        "DefaultEndpointsProtocol=http;"
        f"AccountName={DEV_ACCOUNT_NAME};AccountKey={DEV_ACCOUNT_KEY};"
        f"BlobEndpoint=http://{host}:{port}/{DEV_ACCOUNT_NAME};"
    )


@dataclass
class AzuriteLocal:
    """One ``azurite-blob`` process persisting to ``location``. ``port=0`` = free port."""

    location: Path
    port: int = 0
    host: str = "127.0.0.1"
    binary: Path = DEFAULT_BINARY
    skip_api_version_check: bool = False
    # Access log lines go to <location>/azurite.log either way; silent drops them.
    silent: bool = False
    startup_seconds: float | None = field(default=None, init=False)
    _proc: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.location = Path(self.location).resolve()

    @property
    def log_path(self) -> Path:
        return self.location / "azurite.log"

    @property
    def connection_string(self) -> str:
        if not self.port:
            raise HarnessError("Azurite port not chosen yet (call start or command)")
        return dev_connection_string(self.host, self.port)

    def command(self) -> list[str]:
        if not self.binary.exists():
            raise HarnessError(f"{self.binary} missing: run `npm ci` in {REPO_ROOT}")
        if self.port == 0:
            self.port = free_tcp_port(self.host)
        cmd = [
            str(self.binary),
            "--blobHost", self.host,
            "--blobPort", str(self.port),
            "--location", str(self.location),
            "--disableTelemetry",
        ]  # fmt: skip
        if self.skip_api_version_check:
            cmd.append("--skipApiVersionCheck")
        if self.silent:
            cmd.append("--silent")
        return cmd

    def start(self, *, timeout: float = 30.0) -> str:
        """Start in the background, wait until it answers HTTP; return the connection string."""
        if self._proc is not None and self._proc.poll() is None:
            raise HarnessError("Azurite already running")
        self.location.mkdir(parents=True, exist_ok=True)
        cmd = self.command()
        with self.log_path.open("ab") as log:
            self._proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        self.startup_seconds = wait_ready(self._proc, self._answers, timeout=timeout, name="azurite", log=self.log_path)
        return self.connection_string

    def _answers(self) -> bool:
        # Any HTTP answer (an unauthenticated request gets 403) means the server is up.
        conn = http.client.HTTPConnection(self.host, self.port, timeout=0.5)
        try:
            conn.request("GET", f"/{DEV_ACCOUNT_NAME}?comp=list")
            conn.getresponse().read()
            return True
        except OSError:
            return False
        finally:
            conn.close()

    def stop(self, *, timeout: float = 10.0) -> None:
        if self._proc is not None:
            stop_process(self._proc, timeout=timeout)
            self._proc = None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def __enter__(self) -> AzuriteLocal:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m ats.devtools.azurite_local")
    parser.add_argument("--location", type=Path, default=REPO_ROOT / ".ats" / "azurite")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=10000, help="0 = pick a free port")
    parser.add_argument("--silent", action="store_true")
    args = parser.parse_args(argv)
    harness = AzuriteLocal(location=args.location, host=args.host, port=args.port, silent=args.silent)
    harness.location.mkdir(parents=True, exist_ok=True)
    cmd = harness.command()
    print(f"azurite: {harness.connection_string}", file=sys.stderr, flush=True)
    # exec, not a child: the supervisor's signals reach Azurite directly.
    os.execv(cmd[0], cmd)  # noqa: S606 - fixed argv, no shell


if __name__ == "__main__":
    main()
