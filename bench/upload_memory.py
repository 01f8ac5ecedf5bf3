"""Measure the web deployable's memory and /tmp use under concurrent uploads (issue 21 N4).

Starts a throwaway Postgres, migrates it, runs `ats web` (gunicorn, the production worker
and thread counts: 2 x 4) on the local blob store, then sends CONCURRENCY uploads at once,
each FILES files of FILE_MB MiB, and reports every gunicorn worker's peak RSS (VmHWM), the
largest /tmp growth seen, and the stored bytes. The k8s web pod's memory limit and /tmp
size (docs/deploy.md "Sizing notes") come from these figures.

    PYTHONPATH=shared python bench/upload_memory.py [--concurrency 8 --files 4 --file-mb 20]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import json
import os
import shutil
import sys
import tempfile
import threading
import types
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "shared")]

from tests.chaos.driver import Web  # noqa: E402
from tests.conftest import run_ats  # noqa: E402

from ats.config.env import with_user  # noqa: E402
from ats.devtools import pg_local  # noqa: E402


def _children(pid: int) -> list[int]:
    out = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line)
        except OSError:
            continue
        if fields.get("PPid", "").strip() == str(pid):
            out.append(int(status.parent.name))
    return out


def _hwm_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def _dir_bytes(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--files", type=int, default=4)
    parser.add_argument("--file-mb", type=int, default=20)
    args = parser.parse_args()
    pg_local.ensure_pg_user()
    root = Path(tempfile.mkdtemp(prefix="ats-pg-"))
    root.chmod(0o755)
    (root / "owner.pid").write_text(str(os.getpid()))
    datadir = root / "data"
    url = pg_local.start(datadir, pg_local.free_port())
    state, tmp = root / "state", root / "tmp"
    state.mkdir(mode=0o755)
    tmp.mkdir()
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "ATS_PARSE_DATABASE_URL": with_user(url, "ats_parse"),
        "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'shared'}",
        "ATS_STATE_DIR": str(state),
        "ATS_STORAGE_LOCAL_ROOT": str(state / "blobs"),
        "ATS_LOG_LEVEL": "WARNING",
        "ATS_DEV_PLAIN_HTTP": "1",
        "TMPDIR": str(tmp),  # what the pod's /tmp volume would hold
        "ATS_MAX_UPLOAD_REQUEST_BYTES": str((args.files * args.file_mb + 1) * 1024 * 1024),
    }
    env.pop("ATS_EXTRA_APPS", None)
    web = None
    try:
        for cmd in (("migrate", "--no-input", "-v", "0"), ("ensure_admin", "--password-file", str(state / "pw"))):
            assert run_ats(env, *cmd, timeout=300).returncode == 0
        web = Web(env, state)
        web.wait_up()
        web.login("admin", (state / "pw").read_text().strip())
        workers = _children(web.proc.pid) or [web.proc.pid]
        gunicorn = [c for w in workers for c in (_children(w) or [w])]
        baseline = {pid: _hwm_kib(pid) for pid in gunicorn}
        peak_tmp = 0
        stop = threading.Event()

        def watch_tmp() -> None:
            nonlocal peak_tmp
            while not stop.is_set():
                peak_tmp = max(peak_tmp, _dir_bytes(tmp))
                stop.wait(0.05)

        watcher = threading.Thread(target=watch_tmp, daemon=True)
        watcher.start()
        payload = os.urandom(args.file_mb * 1024 * 1024)

        def one(n: int) -> int:
            docs = [
                types.SimpleNamespace(filename=f"cv-{n}-{i}.pdf", content_type="application/pdf", data=payload)
                for i in range(args.files)
            ]
            result = _upload_batch(web, docs)
            assert len(result["attachments"]) == args.files, result  # type: ignore[arg-type]
            return sum(len(d.data) for d in docs)

        with concurrent.futures.ThreadPoolExecutor(args.concurrency) as pool:
            sent = sum(pool.map(one, range(args.concurrency)))
        stop.set()
        watcher.join()
        figures = {
            "concurrency": args.concurrency,
            "files_per_request": args.files,
            "file_mib": args.file_mb,
            "sent_mib": round(sent / 2**20),
            "stored_mib": round(_dir_bytes(state / "blobs") / 2**20),
            "peak_tmp_mib": round(peak_tmp / 2**20, 1),
            "workers_hwm_mib": {str(pid): round(_hwm_kib(pid) / 1024) for pid in gunicorn},
            "workers_baseline_hwm_mib": {str(pid): round(kib / 1024) for pid, kib in baseline.items()},
        }
        print(json.dumps(figures, indent=2))
    finally:
        if web is not None:
            web.stop()
        pg_local.stop(datadir)
        shutil.rmtree(root, ignore_errors=True)


def _upload_batch(web: Web, docs: list[types.SimpleNamespace]) -> dict[str, object]:
    import urllib.request
    import uuid

    boundary = uuid.uuid4().hex
    parts = []
    for doc in docs:
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="{doc.filename}"\r\n'
            f"Content-Type: {doc.content_type}\r\n\r\n".encode()
        )
        parts.append(doc.data)
        parts.append(b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    body = b"".join(parts)
    csrf = next(c.value for c in web.jar if c.name == "csrftoken")
    headers = {"Content-Type": f"multipart/form-data; boundary={boundary}", "X-CSRFToken": csrf, "Referer": web.base}
    req = urllib.request.Request(web.base + "/api/intake/upload", data=body, method="POST", headers=headers)  # noqa: S310
    with web.opener.open(req, timeout=300) as resp:
        result: dict[str, object] = json.loads(resp.read())
        return result


if __name__ == "__main__":
    main()
