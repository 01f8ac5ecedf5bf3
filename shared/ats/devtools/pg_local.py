"""A project-local Postgres cluster for `just up` and the test suite.

pg_ctl refuses to run as root, so as root the cluster belongs to a dedicated system user
(`ats-pg`) and lives in a data directory that user can traverse: the checkout's `.ats/`
when every parent directory is world-traversable, else /var/lib/ats/<checkout hash>/.
Listens on 127.0.0.1 only, on its own port (never 5432), with trust auth: a development
cluster. Production points DATABASE_URL at a managed Postgres.

    python -m ats.devtools.pg_local start|stop|status|url [--datadir D] [--port P]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

PG_USER = "ats-pg"


def pg_bindir() -> Path:
    for candidate in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (candidate / "pg_ctl").exists():
            return candidate
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).resolve().parent
    raise FileNotFoundError("no PostgreSQL server binaries (apt-get install postgresql)")


def _run_as() -> str | None:
    return PG_USER if os.geteuid() == 0 else None


def ensure_pg_user() -> None:
    if os.geteuid() != 0:
        return
    try:
        pwd.getpwnam(PG_USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", PG_USER], check=True)


def _traversable_by_others(path: Path) -> bool:
    return all(not p.exists() or os.stat(p).st_mode & 0o001 for p in [path, *path.parents])


def default_datadir() -> Path:
    from ats.config.env import REPO_ROOT, STATE_DIR

    if os.geteuid() != 0 or _traversable_by_others(STATE_DIR.parent):
        return STATE_DIR / "pg"
    digest = hashlib.sha256(str(REPO_ROOT).encode()).hexdigest()[:12]
    return Path("/var/lib/ats") / digest / "pg"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _chown_tree(path: Path) -> None:
    if os.geteuid() == 0:
        shutil.chown(path, PG_USER, PG_USER)


def _pg(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, user=_run_as(), text=True, capture_output=True, check=False, **kw)  # type: ignore[call-overload]


def is_running(datadir: Path) -> bool:
    if not (datadir / "PG_VERSION").exists():
        return False
    return _pg([str(pg_bindir() / "pg_ctl"), "status", "-D", str(datadir)]).returncode == 0


def init(datadir: Path) -> None:
    if (datadir / "PG_VERSION").exists():
        return
    ensure_pg_user()
    datadir.mkdir(parents=True, exist_ok=True)
    datadir.chmod(0o700)
    _chown_tree(datadir)
    res = _pg(
        [
            str(pg_bindir() / "initdb"),
            "-D",
            str(datadir),
            "-U",
            "postgres",
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C.UTF-8",
            "--no-instructions",
        ]
    )
    if res.returncode != 0:
        raise RuntimeError(f"initdb failed: {res.stderr.strip()}")


def _port_taken(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def start(datadir: Path, port: int, *, db: str = "ats", role: str = "ats", durable: bool = False) -> str:
    """`durable=False` (development, tests) trades crash safety for speed: fsync and
    synchronous_commit off lose the last acknowledged commits on a crash (`stop -m
    immediate`). The chaos suite crashes Postgres on purpose and needs `durable=True`."""
    init(datadir)
    if not is_running(datadir):
        if _port_taken(port):
            # Most often another checkout's embedded cluster (`just up` there, never `just down`).
            raise SystemExit(
                f"[up] port {port} is already in use on 127.0.0.1 (another checkout's `just up` cluster?).\n"
                f"     Run `just down` in that checkout, or pick another port: ATS_EMBEDDED_PG_PORT=54330 just up"
            )
        opts = (
            f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories='{datadir}' "
            "-c max_connections=200 -c shared_buffers=128MB"
        )
        if not durable:
            opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        res = _pg(
            [
                str(pg_bindir() / "pg_ctl"),
                "start",
                "-D",
                str(datadir),
                "-w",
                "-t",
                "60",
                "-l",
                str(datadir / "server.log"),
                "-o",
                opts,
            ]
        )
        if res.returncode != 0:
            log = (
                (datadir / "server.log").read_text(errors="replace")[-2000:]
                if (datadir / "server.log").exists()
                else ""
            )
            raise RuntimeError(f"pg_ctl start failed: {res.stderr.strip()}\n{log}")
    _ensure_role_and_db(port, db=db, role=role)
    return f"postgresql://{role}@127.0.0.1:{port}/{db}"


def _psql(port: int, sql: str, *, db: str = "postgres") -> str:
    res = subprocess.run(
        [
            str(pg_bindir().parent / "bin" / "psql") if (pg_bindir() / "psql").exists() else "psql",
            "-h",
            "127.0.0.1",
            "-p",
            str(port),
            "-U",
            "postgres",
            "-d",
            db,
            "-tAc",
            sql,
        ],
        text=True,
        capture_output=True,
        check=False,
    )
    if res.returncode != 0:
        raise RuntimeError(f"psql failed: {res.stderr.strip()}")
    return res.stdout.strip()


def _ensure_role_and_db(port: int, *, db: str, role: str) -> None:
    if _psql(port, f"SELECT 1 FROM pg_roles WHERE rolname = '{role}'") != "1":
        # CREATEDB and CREATEROLE: the test runner creates its test database, and the
        # migration creates the least-privilege parse role.
        _psql(port, f'CREATE ROLE "{role}" LOGIN CREATEDB CREATEROLE')
    if _psql(port, f"SELECT 1 FROM pg_database WHERE datname = '{db}'") != "1":
        _psql(port, f'CREATE DATABASE "{db}" OWNER "{role}"')


def stop(datadir: Path, *, mode: str = "fast") -> None:
    """`mode`: pg_ctl's shutdown mode - `fast` (abort sessions, clean checkpoint) or
    `immediate` (no checkpoint: crash recovery at the next start; the chaos driver uses both)."""
    if is_running(datadir):
        _pg([str(pg_bindir() / "pg_ctl"), "stop", "-D", str(datadir), "-m", mode, "-w", "-t", "60"])


def _alive(pid: int) -> bool:
    try:
        # A killed owner can linger as a zombie until its parent reaps it: that is dead.
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def _reap_orphans() -> None:
    """Stop and remove throwaway clusters whose owning process is gone.

    A test run killed outright (SIGKILL, a CI timeout) never reaches its cleanup, and
    its postmaster would outlive it; the next run tidies up.
    """
    for owner_file in Path(tempfile.gettempdir()).glob("ats-pg-*/owner.pid"):
        try:
            owner = int(owner_file.read_text().strip())
            if _alive(owner):
                continue  # still running: not ours to touch
        except (ValueError, OSError):
            continue
        datadir = owner_file.parent / "data"
        if (datadir / "PG_VERSION").exists():
            _pg([str(pg_bindir() / "pg_ctl"), "stop", "-D", str(datadir), "-m", "immediate", "-w", "-t", "30"])
        shutil.rmtree(owner_file.parent, ignore_errors=True)


@contextlib.contextmanager
def ephemeral(*, db: str = "ats", role: str = "ats") -> Iterator[str]:
    """A throwaway cluster in a temporary directory; yields its URL, removes it after."""
    ensure_pg_user()
    _reap_orphans()
    tmp = Path(tempfile.mkdtemp(prefix="ats-pg-"))
    tmp.chmod(0o755)
    (tmp / "owner.pid").write_text(str(os.getpid()))
    datadir = tmp / "data"
    try:
        started = time.monotonic()
        url = start(datadir, free_port(), db=db, role=role)
        print(f"[ats] ephemeral Postgres {url} ready in {time.monotonic() - started:.1f}s", file=sys.stderr)
        yield url
    finally:
        stop(datadir)
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    from ats.config.env import EMBEDDED_PG_PORT

    parser = argparse.ArgumentParser(prog="pg_local")
    parser.add_argument("action", choices=["start", "stop", "status", "url", "datadir"])
    parser.add_argument("--datadir", type=Path)
    parser.add_argument("--port", type=int, default=EMBEDDED_PG_PORT)
    args = parser.parse_args()
    datadir = args.datadir or default_datadir()
    if args.action == "start":
        print(start(datadir, args.port))
    elif args.action == "stop":
        stop(datadir)
    elif args.action == "status":
        running = is_running(datadir)
        print("running" if running else "stopped", datadir)
        sys.exit(0 if running else 1)
    elif args.action == "datadir":
        print(datadir)
    else:
        print(f"postgresql://ats@127.0.0.1:{args.port}/ats")


if __name__ == "__main__":
    main()
