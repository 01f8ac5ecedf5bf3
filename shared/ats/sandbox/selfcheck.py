"""Functions that run INSIDE a sandbox child to verify it is confined (check and tests).

Loaded only by a zygote started with probes enabled (``python -m ats.sandbox.check``
or the test suite); a production worker never enables probes, so none of this is
reachable from a document. Each probe returns a parse-result-shaped document whose
text is JSON describing what it observed.
"""

from __future__ import annotations

import functools
import json
import os
import resource
import socket
from collections.abc import Callable
from typing import Any


def proc_status() -> dict[str, str]:
    with open("/proc/self/status") as fh:
        return dict(line.rstrip("\n").split(":\t", 1) for line in fh if ":\t" in line)


def preflight(context: dict[str, Any]) -> dict[str, Any]:
    """Assert the child is confined as planned; raise AssertionError otherwise.

    A raise ends the child as ``crashed`` - never as the outcome a probe expects - so a
    probe that reaches its escape attempt has proven these facts first.
    """
    limits = context["limits"]
    status = proc_status()
    facts: dict[str, Any] = {
        "uid": os.getuid(),
        "euid": os.geteuid(),
        "cpu": resource.getrlimit(resource.RLIMIT_CPU),
        "nproc": resource.getrlimit(resource.RLIMIT_NPROC),
        "fsize": resource.getrlimit(resource.RLIMIT_FSIZE),
        "core": resource.getrlimit(resource.RLIMIT_CORE),
        "nofile": resource.getrlimit(resource.RLIMIT_NOFILE),
        "as": resource.getrlimit(resource.RLIMIT_AS),
        "no_new_privs": status.get("NoNewPrivs"),
        "seccomp": status.get("Seccomp"),
        "cap_eff": status.get("CapEff"),
        "cap_prm": status.get("CapPrm"),
        "cap_bnd": status.get("CapBnd"),
        "layers": context["layers"],
    }
    problems = []
    if facts["uid"] == 0 or facts["euid"] == 0:
        problems.append("runs as root")
    if "setuid" in context["layers"] and facts["uid"] != limits.uid:
        problems.append("uid change missing")
    if facts["cpu"] != (limits.cpu_soft_s, limits.cpu_hard_s) or facts["nproc"] != (limits.nproc, limits.nproc):
        problems.append("cpu/nproc limits")
    if facts["fsize"] != (limits.fsize,) * 2 or facts["core"] != (limits.core,) * 2:
        problems.append("fsize/core limits")
    if facts["as"][0] == resource.RLIM_INFINITY or facts["nofile"] != (limits.nofile,) * 2:
        problems.append("as/nofile limits")
    if facts["no_new_privs"] != "1" or facts["seccomp"] != "2":
        problems.append("no_new_privs/seccomp")
    if int(facts["cap_eff"], 16) or int(facts["cap_prm"], 16):
        problems.append("capabilities left")
    if "capbset" in context["layers"] and int(facts["cap_bnd"], 16):
        problems.append("bounding set not empty")
    if problems:
        raise AssertionError(f"child not confined: {problems} {facts}")
    return facts


def answer(context: dict[str, Any], name: str, **observed: Any) -> dict[str, Any]:
    observed["preflight"] = preflight(context)
    return {
        "schema": 3,
        "kind": f"probe:{name}",
        "text": json.dumps(observed, default=str),
        "pages": 0,
        "blocks": [],
        "ocr_used": False,
        "ocr_pages": 0,
        "thumbnail": None,
        "warnings": [],
    }


def attempt(call: Callable[[], Any]) -> dict[str, Any]:
    """Run one escape attempt; report whether the kernel refused it and with which errno."""
    try:
        value = call()
    except OSError as exc:
        return {"refused": True, "errno": exc.errno}
    return {"refused": False, "value": repr(value)[:200]}


def _read(path: str) -> int:
    with open(path, "rb") as fh:
        return len(fh.read(4096))


def probe_identity(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    with open("/proc/self/net/dev") as fh:
        interfaces = sorted(line.split(":")[0].strip() for line in fh.readlines()[2:])
    with open("/proc/self/stat") as fh:
        session = int(fh.read().rsplit(")", 1)[1].split()[3])
    open_fds = []
    for fd in range(256):  # getdents is not allowed: probe each fd with fstat
        try:
            os.fstat(fd)
            open_fds.append(fd)
        except OSError:
            pass
    return answer(
        context,
        "identity",
        interfaces=interfaces,
        session_leader=session == os.getpid(),
        open_fds=open_fds,
        result_fd=context["result_fd"],
    )


def probe_socket(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    preflight(context)
    return answer(context, "socket", **attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)))


def probe_environ(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    preflight(context)
    found = {}
    for who in ("zygote_pid", "worker_pid"):
        found[who] = attempt(functools.partial(_read, f"/proc/{context[who]}/environ"))
    return answer(context, "environ", **found)


def probe_read_path(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    """Try to read the file named by ``data`` (allowed or not, depending on the path)."""
    preflight(context)
    return answer(context, "read_path", **attempt(lambda: _read(data.decode())))


def probe_write_file(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    preflight(context)
    # Must die on openat(O_WRONLY|O_CREAT) (SIGSYS) before the file exists.
    with open(f"/tmp/ats-sandbox-check-{os.getpid()}", "wb") as fh:  # noqa: S108
        fh.write(b"escaped")
    return answer(context, "write_file", refused=False)


def probe_cpu_spin(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    preflight(context)
    while True:
        pass


def probe_block(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    """Blocks without using CPU (futex wait on a held lock): only the wall deadline ends it."""
    import threading

    preflight(context)
    lock = threading.Lock()
    lock.acquire()
    lock.acquire()
    raise AssertionError("unreachable")


def probe_memory_bomb(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    preflight(context)
    hoard = []
    while True:
        block = bytearray(64 * 1024 * 1024)
        block[::4096] = b"x" * len(block[::4096])  # touch every page
        hoard.append(block)
