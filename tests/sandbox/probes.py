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


def probe_zygote(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    """Which zygote forked this child: tests count the documents each zygote served."""
    return answer(context, "zygote", zygote_pid=context["zygote_pid"])


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
    """A raw "thumbnail" that claims 4000 x 4000: the size is checked before any use."""
    import base64

    document = answer(context, "bad_thumbnail")
    document["thumbnail"] = {
        "width": 4000,
        "height": 4000,
        "channels": 3,
        "pixels_b64": base64.b64encode(b"\0" * 48).decode(),
    }
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


# -- issue 9: crashes, remnants, memory hygiene, raw syscalls, same-uid /proc ------------


def probe_abort(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    """glibc abort(): tgkill(self, SIGABRT) - a crash of the parser, not an attack."""
    preflight(context)
    _libc.abort()
    raise AssertionError("unreachable")


def probe_segfault(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    preflight(context)
    ctypes.string_at(8, 16)  # string_at(0, n) would allocate, not read
    raise AssertionError("unreachable")


def probe_flood_data(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    """Write ``data`` (holding a candidate's marker) into the result pipe past the cap."""
    preflight(context)
    chunk = bytes(data) * max(1, 65536 // max(len(data), 1))
    while True:
        os.write(context["result_fd"], chunk)


def probe_partial_then_block(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    """Half an answer holding ``data``, then hang: only the wall deadline ends it."""
    preflight(context)
    os.write(context["result_fd"], (1 << 20).to_bytes(8, "big") + bytes(data))
    probe_block(data, context)
    raise AssertionError("unreachable")


def probe_mappings(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    """No mapping may be writable and executable, none shared and writable."""
    preflight(context)
    wx, shared_w = [], []
    with open("/proc/self/maps") as fh:
        for line in fh:
            fields = line.split()
            perms = fields[1]
            if "w" in perms and "x" in perms:
                wx.append(line.strip())
            if perms[1] == "w" and perms[3] == "s":
                shared_w.append(line.strip())
    return answer(context, "mappings", wx=wx, shared_writable=shared_w)


_PROT_READ, _PROT_WRITE, _PROT_EXEC = 1, 2, 4
_MAP_PRIVATE_ANON = 0x02 | 0x20
_NR = {  # x86_64
    "mprotect": 10,
    "mremap": 25,
    "getpid": 39,
    "personality": 135,
    "remap_file_pages": 216,
    "tgkill": 234,
    "keyctl": 250,
    "perf_event_open": 298,
    "prlimit64": 302,
    "process_vm_readv": 310,
    "memfd_create": 319,
    "bpf": 321,
    "userfaultfd": 323,
    "pkey_mprotect": 329,
    "io_uring_setup": 425,
}
_X32_BIT = 0x40000000


def _syscall(nr: int, *args: int) -> tuple[int, int]:
    fn = _libc.syscall
    fn.restype = ctypes.c_long
    rc = fn(ctypes.c_long(nr), *(ctypes.c_ulong(a) for a in args))
    return rc, ctypes.get_errno()


def _rw_page() -> int:
    mmap_fn = _libc.mmap
    mmap_fn.restype = ctypes.c_void_p
    mmap_fn.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long)
    addr = mmap_fn(None, 8192, _PROT_READ | _PROT_WRITE, _MAP_PRIVATE_ANON, -1, 0)
    ctypes.memset(addr, 0xC3, 8192)  # "ret": shellcode-shaped bytes
    return int(addr)


def probe_raw_syscall(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    """One raw syscall named by ``data``; every one of these must kill the child (SIGSYS)."""
    preflight(context)
    name = data.decode()
    zygote = context["zygote_pid"]
    buf = ctypes.create_string_buffer(64)
    calls: dict[str, Any] = {
        "x32_getpid": lambda: _syscall(_X32_BIT | _NR["getpid"]),
        "io_uring_setup": lambda: _syscall(_NR["io_uring_setup"], 1, ctypes.addressof(buf)),
        "userfaultfd": lambda: _syscall(_NR["userfaultfd"], 0),
        "memfd_create": lambda: _syscall(_NR["memfd_create"], ctypes.addressof(buf), 0),
        "bpf": lambda: _syscall(_NR["bpf"], 0, ctypes.addressof(buf), 48),
        "perf_event_open": lambda: _syscall(_NR["perf_event_open"], ctypes.addressof(buf), 0, -1 & 0xFFFFFFFF, -1, 0),
        "keyctl": lambda: _syscall(_NR["keyctl"], 0, -3 & 0xFFFFFFFFFFFFFFFF, 0),  # GET_KEYRING_ID(user)
        "process_vm_readv": lambda: _syscall(_NR["process_vm_readv"], zygote, ctypes.addressof(buf), 1, 0, 0, 0),
        "personality": lambda: _syscall(_NR["personality"], 0x0400000),  # READ_IMPLIES_EXEC
        "tgkill_zygote": lambda: _syscall(_NR["tgkill"], zygote, zygote, 9),
        "prlimit64_zygote": lambda: _syscall(_NR["prlimit64"], zygote, 0, 0, ctypes.addressof(buf)),
        "prlimit64_raise_own": lambda: _syscall(_NR["prlimit64"], 0, 0, ctypes.addressof(buf), 0),
        "mprotect_exec": lambda: _syscall(_NR["mprotect"], _rw_page(), 4096, _PROT_READ | _PROT_EXEC),
        "pkey_mprotect": lambda: _syscall(_NR["pkey_mprotect"], _rw_page(), 4096, _PROT_READ, 0),
        "remap_file_pages": lambda: _syscall(_NR["remap_file_pages"], _rw_page(), 4096, 0, 0, 0),
        "mremap_then_exec": lambda: _syscall(
            _NR["mprotect"], _syscall(_NR["mremap"], _rw_page(), 8192, 16384, 1)[0], 4096, _PROT_READ | _PROT_EXEC
        ),
    }
    rc, err = calls[name]()
    return answer(context, "raw_syscall", call=name, rc=rc, errno=err)


def probe_tgkill_zygote_sigabrt(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    """SIGABRT via tgkill is refused with EPERM (the abort() path), never delivered."""
    preflight(context)
    zygote = context["zygote_pid"]
    rc, err = _syscall(_NR["tgkill"], zygote, zygote, 6)
    return answer(context, "tgkill_zygote_sigabrt", rc=rc, errno=err)


def probe_proc_sweep(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    """Try every neighbour's environ and fds 0-15 (pids in ``data``, plus zygote and worker).

    getdents64 is fatal here, so pids cannot be listed; the test names its neighbours.
    """
    preflight(context)
    pids = [context["zygote_pid"], context["worker_pid"], *json.loads(data or b"[]")]
    found: dict[str, Any] = {}
    for pid in pids:
        seen: dict[str, Any] = {"environ": _try_read(f"/proc/{pid}/environ")}
        for fd in range(16):
            outcome = _try_read(f"/proc/{pid}/fd/{fd}", size=1)
            if not outcome.get("refused") or outcome.get("errno") not in (2, 13):
                seen[f"fd{fd}"] = outcome
        found[str(pid)] = seen
    return answer(context, "proc_sweep", pids=found)


def _try_read(path: str, size: int = 4096) -> dict[str, Any]:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        return {"refused": True, "errno": exc.errno}
    try:
        got = os.read(fd, size)
    except OSError as exc:
        return {"refused": False, "read_errno": exc.errno}
    finally:
        os.close(fd)
    return {"refused": False, "bytes": len(got), "sample": got[:64].decode("latin-1")}


def probe_ipc_kind(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    """What the result fd is: a socket cannot be reopened through /proc/<pid>/fd (ENXIO)."""
    import stat

    preflight(context)
    mode = os.fstat(context["result_fd"]).st_mode
    return answer(context, "ipc_kind", socket=stat.S_ISSOCK(mode), fifo=stat.S_ISFIFO(mode))


# --- a hostile child on the streamed path (parse answer first, page 1 after) -------------
# The zygote answers `probe:stream_*` kinds as it answers parse+page1 requests.


def _frame(obj: Any) -> bytes:
    body = json.dumps(obj).encode()
    return len(body).to_bytes(8, "big") + body


def probe_stream_quiet(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    """A parse answer and nothing after it (as our child when the page does not render)."""
    return answer(context, "stream_quiet")


def probe_stream_first_over_cap(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    """A first frame just over the cap: whole inside the zygote's two-frame buffer, but
    never to be passed on as one reply."""
    preflight(context)
    size = context["limits"].max_result_bytes + 4
    os.write(context["result_fd"], size.to_bytes(8, "big"))
    chunk = b" " * 65536
    while size > 0:
        size -= os.write(context["result_fd"], chunk[: min(size, len(chunk))])
    os._exit(0)


def probe_stream_then_garbage(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    os.write(context["result_fd"], _frame({"status": "ok", "document": answer(context, "stream_then_garbage")}))
    os.write(context["result_fd"], (40).to_bytes(8, "big") + b"<svg onload=alert(1)> not a page at all!")
    os._exit(0)


def probe_stream_then_hang(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    os.write(context["result_fd"], _frame({"status": "ok", "document": answer(context, "stream_then_hang")}))
    probe_block(data, context)
    raise AssertionError("unreachable")


def probe_stream_then_flood(data: bytes, context: dict[str, Any]) -> dict[str, Any]:
    os.write(context["result_fd"], _frame({"status": "ok", "document": answer(context, "stream_then_flood")}))
    chunk = b"\xff" * 65536
    while True:
        os.write(context["result_fd"], chunk)
