"""Turn an OCI/moby-format seccomp profile (JSON) into a libseccomp filter via pyseccomp.

Deliberately small: only what our two profiles use (no includes/excludes by caps or
kernel version). Rules of thumb measured with libseccomp 2.5.4 (see the policy README):
unknown names raise EINVAL -> skipped and reported; a rule whose action equals the
default raises EACCES -> never added (it would change nothing); two comparisons on the
same argument in one rule raise EINVAL -> one rule per comparison, which is runc's
reading of such an entry (OR); each syscall name may appear in exactly one entry so
that no two rules for one syscall disagree about the action.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
from pathlib import Path
from typing import Any

import pyseccomp as sc

_ARCHES = {
    "SCMP_ARCH_X86_64": sc.Arch.X86_64,
    "SCMP_ARCH_X86": sc.Arch.X86,
    "SCMP_ARCH_X32": sc.Arch.X32,
    "SCMP_ARCH_AARCH64": sc.Arch.AARCH64,
    "SCMP_ARCH_ARM": sc.Arch.ARM,
}
_OPS = {
    "SCMP_CMP_NE": sc.NE,
    "SCMP_CMP_LT": sc.LT,
    "SCMP_CMP_LE": sc.LE,
    "SCMP_CMP_EQ": sc.EQ,
    "SCMP_CMP_GE": sc.GE,
    "SCMP_CMP_GT": sc.GT,
    "SCMP_CMP_MASKED_EQ": sc.MASKED_EQ,
}
_NR_SCMP_ERROR = -1  # what seccomp_syscall_resolve_name returns for a name it does not know


def _action(name: str, errno_ret: int | None) -> int:
    simple = {
        "SCMP_ACT_ALLOW": sc.ALLOW,
        "SCMP_ACT_LOG": sc.LOG,
        "SCMP_ACT_TRAP": sc.TRAP,
        "SCMP_ACT_KILL_PROCESS": sc.KILL_PROCESS,
        "SCMP_ACT_KILL_THREAD": sc.KILL_THREAD,
        "SCMP_ACT_KILL": sc.KILL_THREAD,
    }
    if name == "SCMP_ACT_ERRNO":
        return sc.ERRNO(errno.EPERM if errno_ret is None else errno_ret)
    return simple[name]  # KeyError: an action we do not implement is a policy error


def is_known(name: str) -> bool:
    """Whether this libseccomp knows the syscall name (on any architecture)."""
    return sc.resolve_syscall(sc.Arch.NATIVE, name) != _NR_SCMP_ERROR


def build_filter(profile: dict[str, Any]) -> tuple[sc.SyscallFilter, list[str]]:
    """Return the (not yet loaded) filter and the syscall names skipped as unknown."""
    default_errno = profile.get("defaultErrnoRet")
    default = _action(profile["defaultAction"], default_errno)
    filt = sc.SyscallFilter(default)
    # Other ABIs (x86 int 0x80, x32) get the default action, not a kill of the thread.
    filt.set_attr(sc.Attr.ACT_BADARCH, default)
    native = sc.system_arch()
    for entry in profile.get("archMap", []):
        if _ARCHES.get(entry["architecture"]) == native:
            for sub in entry.get("subArchitectures") or []:
                filt.add_arch(_ARCHES[sub])
    seen: set[str] = set()
    skipped: list[str] = []
    for entry in profile["syscalls"]:
        action = _action(entry["action"], entry.get("errnoRet", default_errno))
        args = [sc.Arg(a["index"], _OPS[a["op"]], a["value"], a.get("valueTwo", 0)) for a in entry.get("args", [])]
        indexes = [a["index"] for a in entry.get("args", [])]
        groups = [args] if len(set(indexes)) == len(indexes) else [[arg] for arg in args]
        for name in entry["names"]:
            if name in seen:
                raise ValueError(f"syscall {name!r} appears in more than one entry")
            seen.add(name)
            if not is_known(name):
                skipped.append(name)
            elif action != default:
                for group in groups:
                    filt.add_rule(action, name, *group)
    return filt, skipped


def load_profile(path: Path) -> tuple[sc.SyscallFilter, list[str]]:
    return build_filter(json.loads(path.read_bytes()))


class CompiledFilter:
    """A filter compiled to BPF once (in the zygote); ``load`` is then one prctl per child.

    libseccomp's own load regenerates the BPF program every time (~0.4 ms per child).
    The caller must have set no_new_privs (or hold CAP_SYS_ADMIN), as with libseccomp.
    """

    _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2

    def __init__(self, filt: sc.SyscallFilter) -> None:
        read_fd, write_fd = os.pipe()
        try:
            with os.fdopen(write_fd, "wb", closefd=False) as sink:
                filt.export_bpf(sink)  # a child filter is a few hundred bytes: fits the pipe
            os.close(write_fd)
            write_fd = -1
            program = b""
            while chunk := os.read(read_fd, 65536):
                program += chunk
        finally:
            os.close(read_fd)
            if write_fd >= 0:
                os.close(write_fd)
        if not program or len(program) % 8:  # struct sock_filter is 8 bytes
            raise ValueError("libseccomp exported no BPF program")
        self._program = ctypes.create_string_buffer(program, len(program))

        class _SockFprog(ctypes.Structure):
            _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))

        self._fprog = _SockFprog(len(program) // 8, ctypes.addressof(self._program))
        self._libc = ctypes.CDLL(None, use_errno=True)

    def load(self) -> None:
        rc = self._libc.prctl(
            self._PR_SET_SECCOMP,
            self._SECCOMP_MODE_FILTER,
            ctypes.byref(self._fprog),
            ctypes.c_ulong(0),
            ctypes.c_ulong(0),
        )
        if rc != 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err))
