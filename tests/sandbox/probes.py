"""Escape probes, run INSIDE a real sandbox child instead of the parser (test-only).

Imported by a zygote started with ``probes="probes"`` (needs ATS_SANDBOX_TEST_PROBES=1).
Each ``probe_<name>(data, context)`` first checks the child is confined
(ats.sandbox.selfcheck.preflight: not root, limits set, no_new_privs, seccomp,
no capabilities) - a failed check ends as ``crashed``, never as the outcome a test
expects - then tries one escape. Refused attempts return a document (JSON text);
killed ones return nothing.
"""

from __future__ import annotations

import ctypes
import json
import mmap
import os
import socket
import threading
from typing import Any

from ats.sandbox.selfcheck import (  # noqa: F401 - re-exported: the zygote looks probes up here
    answer,
    attempt,
    preflight,
    probe_block,
    probe_cpu_spin,
    probe_environ,
    probe_identity,
    probe_memory_bomb,
    probe_read_path,
    probe_write_file,
)

_libc = ctypes.CDLL(None, use_errno=True)


def probe_socket_inet(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    preflight(context)
    return answer(context, "socket_inet", **attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)))


def probe_socket_unix(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    preflight(context)
    return answer(context, "socket_unix", **attempt(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)))


def probe_connect(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    preflight(context)
    # sockaddr_in 127.0.0.1:5432 (Postgres) on fd 0 (/dev/null): the filter answers
    # before the kernel even looks at the fd.
    addr = ctypes.create_string_buffer(b"\x02\x00\x15\x38\x7f\x00\x00\x01" + b"\0" * 8, 16)
    rc = _libc.connect(0, addr, 16)
    return answer(context, "connect", refused=rc != 0, errno=ctypes.get_errno())


def probe_execve(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    preflight(context)
    os.execv("/bin/true", ["true"])
    raise AssertionError("unreachable")


def probe_fork_bomb(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    preflight(context)
    forks = 0
    try:
        for _ in range(200):  # bounded: even a working fork stops here
            if os.fork() == 0:
                os._exit(0)
            forks += 1
    except OSError as exc:
        return answer(context, "fork_bomb", refused=True, forks=forks, errno=exc.errno)
    return answer(context, "fork_bomb", refused=False, forks=forks)


def probe_thread(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    preflight(context)
    try:
        threading.Thread(target=lambda: None).start()
    except RuntimeError as exc:
        return answer(context, "thread", refused=True, error=str(exc))
    return answer(context, "thread", refused=False)


def probe_ptrace_parent(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    preflight(context)
    rc = _libc.ptrace(16, context["zygote_pid"], None, None)  # PTRACE_ATTACH
    return answer(context, "ptrace_parent", refused=rc != 0, errno=ctypes.get_errno())


def probe_kill_parent(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    preflight(context)
    os.kill(context["zygote_pid"], 9)
    return answer(context, "kill_parent", refused=False)


def probe_regain_root(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    preflight(context)
    return answer(context, "regain_root", **attempt(lambda: os.setuid(0)))


def probe_exec_mapping(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    preflight(context)
    area = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    return answer(context, "exec_mapping", refused=False, size=len(area))


def probe_huge_output(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    document = answer(context, "huge_output")
    document["text"] = "x" * (context["limits"].max_result_bytes + 1)
    return document


def probe_raw_flood(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    """Bypass the child's own size check: write straight into the result pipe."""
    preflight(context)
    chunk = b"\xff" * 65536
    while True:
        os.write(context["result_fd"], chunk)


def _raw_answer(context: dict[str, Any], obj: Any) -> dict[str, Any]:
    body = json.dumps(obj).encode()
    os.write(context["result_fd"], len(body).to_bytes(8, "big") + body)
    os._exit(0)


def probe_forged_answer(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    """Well framed, wrong shape: must become protocol_error, never a trusted document."""
    preflight(context)
    return _raw_answer(context, {"status": "ok", "document": {"schema": 1, "kind": "pdf", "admin": True}})


def probe_invented_code(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    preflight(context)
    return _raw_answer(context, {"status": "error", "code": "ok_trust_me", "detail": ""})


def probe_bad_thumbnail(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    """A "thumbnail" that is 4000 x 4000: the size is in the PNG header, checked before use."""
    import base64
    import struct

    document = answer(context, "bad_thumbnail")
    ihdr = struct.pack(">II", 4000, 4000) + b"\x08\x02\x00\x00\x00"
    document["thumbnail_png_b64"] = base64.b64encode(b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR" + ihdr).decode()
    return document


def probe_find_remnant(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    """Scan this child's whole address space for an earlier document's 32-byte marker.

    ``data`` = first half + bit-inverted second half, so the full marker never exists
    in this process except as a remnant inherited from the zygote.
    """
    preflight(context)
    head = bytes(data[:16])
    tail = bytes(b ^ 0xFF for b in data[16:32])
    hits = 0
    scanned = 0
    with open("/proc/self/maps") as fh:
        regions = [line.split() for line in fh]
    # Read our own memory directly, as injected code would (/proc/self/mem is root's:
    # the child is non-dumpable).
    for region in regions:
        if not region[1].startswith("r") or (
            len(region) > 5 and region[5] in ("[vvar]", "[vsyscall]", "[vvar_vclock]")
        ):
            continue
        start, end = (int(x, 16) for x in region[0].split("-"))
        chunk = ctypes.string_at(start, end - start)
        scanned += len(chunk)
        at = chunk.find(head)
        while at != -1:
            if chunk[at + 16 : at + 32] == tail:
                hits += 1
            at = chunk.find(head, at + 1)
        del chunk
    return answer(context, "find_remnant", hits=hits, scanned_mb=scanned // (1 << 20))
