"""Run the worker side as a hardened container would, then probe the sandbox from inside.

``python container_mode.py`` as root emulates the container runtime: empty capability
bounding set, uid/gid 65534, no_new_privs, seccomp-container.json loaded; then it
re-executes itself (``--inside``) so the measured process starts under those
conditions, like a container entrypoint. Inside it hardens itself like the worker,
starts a ForkServerSandbox with the test probes and prints one JSON report.
Used by test_container_mode.py; handy by hand too.
"""

from __future__ import annotations

import asyncio
import ctypes
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
UID = 65534
RAW_SYSCALLS = (
    "x32_getpid",
    "io_uring_setup",
    "userfaultfd",
    "memfd_create",
    "bpf",
    "perf_event_open",
    "keyctl",
    "process_vm_readv",
    "personality",
    "tgkill_zygote",
    "prlimit64_zygote",
    "prlimit64_raise_own",
    "mprotect_exec",
    "pkey_mprotect",
    "remap_file_pages",
    "mremap_then_exec",
)
CLONE_NEWUSER = 0x10000000
_libc = ctypes.CDLL(None, use_errno=True)


def _unshare_userns_in_child() -> int:
    """errno of unshare(CLONE_NEWUSER) in a throwaway child (0 = it worked)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        rc = _libc.unshare(CLONE_NEWUSER)
        os.write(w, str(0 if rc == 0 else ctypes.get_errno()).encode())
        os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    return int(os.read(r, 16))


def runtime() -> None:
    """What containerd/runc would do before exec'ing the entrypoint."""
    import prctl

    from ats.sandbox import oci
    from ats.sandbox.api import policy_dir

    with open("/proc/sys/kernel/cap_last_cap") as fh:
        for cap in range(int(fh.read()) + 1):
            prctl.capbset_drop(cap)  # capabilities: drop: [ALL]
    os.setgroups([])
    os.setresgid(UID, UID, UID)
    os.setresuid(UID, UID, UID)  # runAsUser / runAsNonRoot
    control = _unshare_userns_in_child()  # before the profile: unprivileged userns work here?
    prctl.set_no_new_privs(True)  # allowPrivilegeEscalation: false
    profile, _ = oci.load_profile(policy_dir() / "seccomp-container.json")
    profile.load()  # seccompProfile: Localhost
    os.environ["CONTROL_USERNS_ERRNO"] = str(control)
    os.execv(sys.executable, [sys.executable, __file__, "--inside"])


def _tcp_roundtrip() -> bool:
    # What psycopg needs: an AF_INET socket, connect, send/recv, poll.
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
            peer, _ = server.accept()
            with peer:
                client.sendall(b"SELECT 1")
                return peer.recv(16) == b"SELECT 1"


async def _asyncio_roundtrip() -> bool:
    reader, writer = await asyncio.open_connection(*_echo_server())
    writer.write(b"ping")
    await writer.drain()
    data = await reader.read(4)
    writer.close()
    return data == b"ping"


def _echo_server() -> tuple[str, int]:
    server = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            conn.sendall(conn.recv(4))
        server.close()

    threading.Thread(target=serve, daemon=True).start()
    return server.getsockname()


def inside() -> dict[str, Any]:
    from ats.sandbox.api import harden_worker_process, load_policy
    from ats.sandbox.zygote import PROBES_ENV

    harden_worker_process()
    report: dict[str, Any] = {"uid": os.getuid(), "control_userns_errno": int(os.environ["CONTROL_USERNS_ERRNO"])}
    with open("/proc/self/status") as fh:
        status = dict(line.rstrip("\n").split(":\t", 1) for line in fh if ":\t" in line)
    report["worker_seccomp"] = status["Seccomp"]
    report["worker_cap_bnd"] = status["CapBnd"]
    report["userns_errno"] = _unshare_userns_in_child()
    report["ptrace_errno"] = 0 if _libc.ptrace(16, os.getppid(), None, None) == 0 else ctypes.get_errno()
    report["tcp_ok"] = _tcp_roundtrip()
    report["asyncio_ok"] = asyncio.run(_asyncio_roundtrip())

    os.environ[PROBES_ENV] = "1"
    # wall 8 s: the 2 s CPU spin must reach its CPU cap first even on a loaded machine
    policy = load_policy(cpu_soft_s=2, cpu_hard_s=3, wall_s=8.0, address_space_budget_mb=256)
    # A same-uid neighbour that is dumpable and holds a secret in its environment, like
    # an exec'd health check or a `kubectl exec` shell: only a file boundary (Landlock)
    # keeps a parse child from reading /proc/<it>/environ.
    neighbour = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)"],
        env={"PATH": "/usr/bin:/bin", "ATS_TEST_SECRET": "hunter2-neighbour"},
        stdin=subprocess.DEVNULL,
    )
    try:
        return _with_sandbox(report, policy, neighbour.pid)
    finally:
        neighbour.kill()
        neighbour.wait()


def _sweep(sandbox: Any, neighbour: int) -> dict[str, Any]:
    result = sandbox.run("probe:proc_sweep", json.dumps([neighbour]).encode())
    seen = json.loads(result.document["text"]) if result.ok and result.document else None
    return {"failure": result.failure, "detail": result.detail, "seen": seen}


def _with_sandbox(report: dict[str, Any], policy: Any, neighbour: int) -> dict[str, Any]:
    from ats.sandbox.api import ForkServerSandbox, ZygoteError
    from ats.sandbox.check import _tiny_pdf

    if os.environ.get("ATS_SANDBOX_TEST_NO_LANDLOCK") == "1":
        # As on a kernel without Landlock: the child keeps our uid and nothing else stands
        # between it and same-uid neighbours' /proc files. The sandbox must refuse.
        with ForkServerSandbox(policy=policy, probes="probes", probes_path=str(HERE)) as sandbox:
            try:
                report["hello"] = sandbox.start()
            except ZygoteError as exc:
                report["start_error"] = str(exc)
            report["document"] = sandbox.run("pdf", _tiny_pdf()).failure
            report["sweep"] = _sweep(sandbox, neighbour)
        check = subprocess.run(
            [sys.executable, "-m", "ats.sandbox.check", "--json"], capture_output=True, text=True, timeout=100
        )
        report["check"] = {"exit": check.returncode, "report": json.loads(check.stdout) if check.stdout else None}
        return report
    with ForkServerSandbox(policy=policy, probes="probes", probes_path=str(HERE)) as sandbox:
        hello = sandbox.start()
        report["layers"], report["skipped"] = hello["layers"], hello["skipped"]
        zygote = hello["pid"]
        # A same-uid sibling (not sandboxed, no Landlock) still cannot read the zygote's
        # or the worker's environ: both are non-dumpable, so /proc/<pid>/* is root's.
        report["sibling_environ"] = {}
        for who, pid in (("zygote", zygote), ("worker", os.getpid())):
            try:
                Path(f"/proc/{pid}/environ").read_bytes()
                report["sibling_environ"][who] = 0
            except OSError as exc:
                report["sibling_environ"][who] = exc.errno
        outcomes = {}
        for probe in (
            "identity",
            "socket_inet",
            "connect",
            "environ",
            "write_file",
            "fork_bomb",
            "ptrace_parent",
            "execve",
            "cpu_spin",
            "memory_bomb",
            "raw_flood",
        ):
            while sandbox.replacing():  # a zygote recycled after SIGSYS warms up: CPU caps are short here
                time.sleep(0.05)
            result = sandbox.run(f"probe:{probe}", b"")
            seen = json.loads(result.document["text"]) if result.ok and result.document else None
            outcomes[probe] = {"failure": result.failure, "seen": seen}
        report["probes"] = outcomes
        parsed = sandbox.run("pdf", _tiny_pdf())
        report["pdf"] = {"failure": parsed.failure, "text": parsed.document["text"] if parsed.document else None}
        # The review's raw-syscall sweep, memory hygiene and abort, here with the child
        # keeping our uid (tests/sandbox/test_review_probes.py runs them in root mode).
        sweep: dict[str, Any] = {}
        for call in RAW_SYSCALLS:
            result = sandbox.run("probe:raw_syscall", call.encode())
            sweep[call] = result.failure
        report["raw_syscalls"] = sweep
        mappings = sandbox.run("probe:mappings", b"")
        report["mappings"] = json.loads(mappings.document["text"]) if mappings.ok and mappings.document else None
        report["abort"] = sandbox.run("probe:abort", b"").failure
        # Remnant of an answer the zygote gave up on (overflow), in the next child.
        marker = os.urandom(32)
        flood = sandbox.run("probe:flood_data", os.urandom(100) + marker + os.urandom(100))
        found = sandbox.run("probe:find_remnant", marker[:16] + bytes(b ^ 0xFF for b in marker[16:]))
        report["remnant"] = {
            "flood": flood.failure,
            "seen": json.loads(found.document["text"]) if found.ok and found.document else found.failure,
        }
        report["restarts"] = sandbox.restarts
        report["recycles"] = sandbox.recycles  # planned: after each SIGSYS
        report["sweep"] = _sweep(sandbox, neighbour)
    return report


if __name__ == "__main__":
    if "--inside" in sys.argv:
        print(json.dumps(inside(), default=str))
    else:
        runtime()
