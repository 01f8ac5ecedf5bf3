"""Run a real clamd (Debian ``clamav-daemon``'s /usr/sbin/clamd) for tests and ``just up``.

Everything lives in one state dir, nothing touches /etc/clamav, /var/lib/clamav or the
system clamd service, and freshclam is never run (no network here):

    <state_dir>/clamd.conf   generated, see _render_config
    <state_dir>/db/          copies of the project's signature files (EICAR only)
    <state_dir>/tmp/         clamd's TemporaryDirectory (INSTREAM spools here)
    <state_dir>/clamd.sock   LocalSocket (optional)
    <state_dir>/clamd.log    clamd's stdout/stderr

Running as root: by default clamd simply stays root (no ``User`` line). That is fine
for a loopback-only dev/test daemon fed the EICAR-only DB, and it works from pytest's
0700 tmp dirs. Pass ``user="clamav"`` to mimic production: clamd then drops privileges
*before* it opens the DB and temp dir, so the state dir is chowned to that user and
every parent directory must be traversable by it (e.g. a dir under /tmp, not under
pytest's /tmp/pytest-of-root); ``start`` checks this and says so.

CLI (foreground, for the process supervisor of ``just up``; exec's clamd)::

    python -m ats.devtools.clamd_local --state-dir .ats/clamd --port 3310
"""

from __future__ import annotations

import argparse
import os
import pwd
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from ats.devtools import clamd_limits
from ats.devtools._localproc import REPO_ROOT, HarnessError, free_tcp_port, stop_process, wait_ready
from ats.scanning.api import ClamdEndpoint, ScannerUnavailable, ping

CLAMD_BINARY = "/usr/sbin/clamd"
DEFAULT_SIGNATURE_DIR = REPO_ROOT / "services" / "worker-default" / "clamav"
# Extensions clamd loads from a DatabaseDirectory (those we might ever ship).
_SIGNATURE_SUFFIXES = {".ndb", ".hdb", ".hsb", ".ldb", ".cvd", ".cld", ".cud", ".ign2", ".fp"}
# sun_path is 108 bytes on Linux.
_MAX_UNIX_PATH = 100

__all__ = ["CLAMD_BINARY", "DEFAULT_SIGNATURE_DIR", "ClamdLocal", "HarnessError", "main"]


@dataclass
class ClamdLocal:
    """One clamd process. ``port=0`` picks a free loopback port, ``port=None`` disables
    TCP; ``unix_socket=True`` also listens on ``<state_dir>/clamd.sock``."""

    state_dir: Path
    port: int | None = 0
    unix_socket: bool = False
    signature_dir: Path = DEFAULT_SIGNATURE_DIR
    user: str | None = None
    # None: the profile's StreamMaxLength. A number: a test's own stream cap (then
    # MaxFileSize = the cap and MaxScanSize = 4x, as before the shared limits file).
    stream_max_bytes: int | None = None
    # services/clamd/limits.conf ("standard") or limits-raised.conf ("raised").
    limits: str = "standard"
    clamd_binary: str = CLAMD_BINARY
    startup_seconds: float | None = field(default=None, init=False)
    _proc: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)
    _limit_lines: list[str] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        self.state_dir = Path(self.state_dir).resolve()
        self._limit_lines = clamd_limits.limit_lines(self.limits)
        if self.stream_max_bytes is None:
            self.stream_max_bytes = clamd_limits.size_bytes(clamd_limits.limits(self.limits)["StreamMaxLength"])
        else:
            overridden = {"StreamMaxLength", "MaxFileSize", "MaxScanSize"}
            self._limit_lines = [
                f"StreamMaxLength {self.stream_max_bytes}",
                f"MaxFileSize {self.stream_max_bytes}",
                f"MaxScanSize {self.stream_max_bytes * 4}",
                *(line for line in self._limit_lines if line.split()[0] not in overridden),
            ]
        if self.port is None and not self.unix_socket:
            raise ValueError("clamd needs a TCP port or a unix socket")

    # ----------------------------------------------------------------- paths

    @property
    def config_path(self) -> Path:
        return self.state_dir / "clamd.conf"

    @property
    def log_path(self) -> Path:
        return self.state_dir / "clamd.log"

    @property
    def socket_path(self) -> Path:
        return self.state_dir / "clamd.sock"

    def endpoint(self, *, via: str = "tcp", timeout: float = 30.0) -> ClamdEndpoint:
        """Client settings for this daemon (``via`` is ``"tcp"`` or ``"unix"``)."""
        max_bytes = int(self.stream_max_bytes or 0)  # set by __post_init__
        if via == "unix":
            if not self.unix_socket:
                raise ValueError("this clamd has no unix socket")
            return ClamdEndpoint(unix_socket=str(self.socket_path), timeout=timeout, max_stream_bytes=max_bytes)
        if not self.port:
            raise ValueError("this clamd has no TCP port (yet)")
        return ClamdEndpoint(host="127.0.0.1", port=self.port, timeout=timeout, max_stream_bytes=max_bytes)

    # ----------------------------------------------------------------- lifecycle

    def prepare(self) -> Path:
        """Create the state dir, copy the signature DB, write clamd.conf."""
        if not Path(self.clamd_binary).exists():
            raise HarnessError(f"{self.clamd_binary} missing: apt-get install clamav clamav-daemon")
        if self.port == 0:
            self.port = free_tcp_port()
        if self.unix_socket and len(str(self.socket_path)) > _MAX_UNIX_PATH:
            raise HarnessError(f"unix socket path too long for sun_path: {self.socket_path}")
        db_dir = self.state_dir / "db"
        tmp_dir = self.state_dir / "tmp"
        for d in (self.state_dir, db_dir, tmp_dir):
            d.mkdir(parents=True, exist_ok=True)
        # Start from a clean DB dir: clamd loads *every* signature file in it.
        for old in db_dir.iterdir():
            old.unlink()
        sigs = sorted(p for p in self.signature_dir.iterdir() if p.suffix in _SIGNATURE_SUFFIXES)
        if not sigs:
            # clamd refuses to start on an empty DatabaseDirectory anyway; say why.
            raise HarnessError(f"no signature files in {self.signature_dir}")
        for sig in sigs:
            shutil.copyfile(sig, db_dir / sig.name)
        self.config_path.write_text(self._render_config(db_dir, tmp_dir))
        if self.user is not None and os.geteuid() == 0:
            self._hand_over_to(self.user)
        return self.config_path

    def start(self, *, timeout: float = 30.0) -> ClamdEndpoint:
        """Start clamd in the background and wait until PING answers."""
        if self._proc is not None and self._proc.poll() is None:
            raise HarnessError("clamd already running")
        self.prepare()
        with self.log_path.open("ab") as log:
            self._proc = subprocess.Popen(
                [self.clamd_binary, "-c", str(self.config_path)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        probe_ep = self.endpoint(via="tcp" if self.port else "unix")
        probe_ep = ClamdEndpoint(
            host=probe_ep.host,
            port=probe_ep.port,
            unix_socket=probe_ep.unix_socket,
            connect_timeout=0.5,
            timeout=1.0,
        )

        def answers() -> bool:
            try:
                ping(probe_ep)
            except ScannerUnavailable:
                return False
            return True

        self.startup_seconds = wait_ready(self._proc, answers, timeout=timeout, name="clamd", log=self.log_path)
        return self.endpoint(via="tcp" if self.port else "unix")

    def stop(self, *, timeout: float = 10.0) -> None:
        """SIGTERM and wait; clamd removes its socket file on the way out."""
        if self._proc is not None:
            stop_process(self._proc, timeout=timeout)
            self._proc = None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def __enter__(self) -> ClamdLocal:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # ----------------------------------------------------------------- internals

    def _render_config(self, db_dir: Path, tmp_dir: Path) -> str:
        lines = [
            "# Generated by ats.devtools.clamd_local; rewritten on every start.",
            "Foreground yes",
            f"DatabaseDirectory {db_dir}",
            f"TemporaryDirectory {tmp_dir}",
            "LogTime yes",
            "LogClean no",
            # The shared scanner limits (services/clamd/limits.conf): the stream cap matches
            # the client's max_stream_bytes, and a limit hit is reported as
            # Heuristics.Limits.Exceeded.* (scan_incomplete) instead of passing as clean.
            *self._limit_lines,
            # ZIP/OOXML unpacking is what finds EICAR inside a deflated DOCX member.
            "ScanArchive yes",
            "ScanOLE2 yes",
            "ScanPDF yes",
            "SelfCheck 3600",
        ]
        if self.port:
            lines += ["TCPAddr 127.0.0.1", f"TCPSocket {self.port}"]
        if self.unix_socket:
            lines += [
                f"LocalSocket {self.socket_path}",
                "LocalSocketMode 660",
                "FixStaleSocket yes",
            ]
        if self.user is not None and os.geteuid() == 0:
            lines.append(f"User {self.user}")
        return "\n".join(lines) + "\n"

    def _hand_over_to(self, user: str) -> None:
        try:
            pw = pwd.getpwnam(user)
        except KeyError as exc:
            raise HarnessError(f"user {user!r} does not exist (clamav-daemon creates 'clamav')") from exc
        groups = {pw.pw_gid} | {g for g in os.getgrouplist(user, pw.pw_gid)}
        for parent in self.state_dir.parents:
            st = parent.stat()
            if st.st_uid == pw.pw_uid:
                ok = bool(st.st_mode & stat.S_IXUSR)
            elif st.st_gid in groups:
                ok = bool(st.st_mode & stat.S_IXGRP)
            else:
                ok = bool(st.st_mode & stat.S_IXOTH)
            if not ok:
                raise HarnessError(
                    f"clamd drops to {user!r} before reading its DB, but {parent} is not "
                    f"traversable by it; put the state dir elsewhere (e.g. under /tmp)"
                )
        for root, dirs, files in os.walk(self.state_dir):
            os.chown(root, pw.pw_uid, pw.pw_gid)
            for name in dirs + files:
                os.chown(os.path.join(root, name), pw.pw_uid, pw.pw_gid)


def main(argv: list[str] | None = None) -> None:
    """Write the config and exec clamd in the foreground (signals go straight to it)."""
    parser = argparse.ArgumentParser(prog="python -m ats.devtools.clamd_local")
    parser.add_argument("--state-dir", type=Path, default=REPO_ROOT / ".ats" / "clamd")
    parser.add_argument("--port", type=int, default=3310, help="0 = pick a free port")
    parser.add_argument("--no-tcp", action="store_true")
    parser.add_argument("--unix-socket", action="store_true")
    parser.add_argument("--signature-dir", type=Path, default=DEFAULT_SIGNATURE_DIR)
    parser.add_argument("--user", default=None, help="drop to this user when run as root")
    parser.add_argument("--stream-max-bytes", type=int, default=None, help="default: the limits file's")
    parser.add_argument("--limits", choices=sorted(clamd_limits.PROFILES), default="standard")
    args = parser.parse_args(argv)
    harness = ClamdLocal(
        state_dir=args.state_dir,
        port=None if args.no_tcp else args.port,
        unix_socket=args.unix_socket,
        signature_dir=args.signature_dir,
        user=args.user,
        stream_max_bytes=args.stream_max_bytes,
        limits=args.limits,
    )
    conf = harness.prepare()
    where = [f"tcp 127.0.0.1:{harness.port}"] if harness.port else []
    where += [f"unix {harness.socket_path}"] if harness.unix_socket else []
    print(f"clamd: {', '.join(where)}; config {conf}", file=sys.stderr, flush=True)
    os.execv(harness.clamd_binary, [harness.clamd_binary, "-c", str(conf)])  # noqa: S606 - fixed argv, no shell


if __name__ == "__main__":
    main()
