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
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pyseccomp as sc

from ats.sandbox.errors import SandboxError

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


# The child's profile may only deny: its default must kill, and a non-default rule may
# allow only calls that are not on this list. Allow-like actions are refused outright:
# SCMP_ACT_LOG means "allow and log", SCMP_ACT_TRACE allows when no tracer is attached,
# SCMP_ACT_NOTIFY hands the decision to a supervisor we do not run.
CHILD_DEFAULTS = frozenset({"SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL", "SCMP_ACT_KILL_THREAD"})
CHILD_RULE_ACTIONS = frozenset({"SCMP_ACT_ALLOW", "SCMP_ACT_ERRNO", *CHILD_DEFAULTS})
# Never SCMP_ACT_ALLOW in the child, whatever the arguments: each is an escape or a
# kernel attack surface a parser never needs (docs/security/sandbox.md).
CHILD_NEVER_ALLOWED = frozenset(
    {
        "execve",
        "execveat",
        "fork",
        "vfork",
        "clone",
        "clone3",
        "kill",
        "tkill",
        "tgkill",
        "ptrace",
        "process_vm_readv",
        "process_vm_writev",
        "pidfd_open",
        "pidfd_getfd",
        "pidfd_send_signal",
        "setuid",
        "setgid",
        "setreuid",
        "setregid",
        "setresuid",
        "setresgid",
        "setgroups",
        "setfsuid",
        "setfsgid",
        "capset",
        "prctl",
        "seccomp",
        "unshare",
        "setns",
        "mount",
        "umount2",
        "pivot_root",
        "chroot",
        "bpf",
        "keyctl",
        "add_key",
        "request_key",
        "perf_event_open",
        "userfaultfd",
        "io_uring_setup",
        "io_uring_enter",
        "io_uring_register",
        "memfd_create",
        "memfd_secret",
        "personality",
        "pkey_mprotect",
        "pkey_alloc",
        "remap_file_pages",
        "kexec_load",
        "kexec_file_load",
        "init_module",
        "finit_module",
        "delete_module",
        "open_by_handle_at",
        "name_to_handle_at",
        "iopl",
        "ioperm",
        "kcmp",
        "socket",
        "socketpair",
        "connect",
        "bind",
        "listen",
        "accept",
        "accept4",
        "sendto",
        "sendmsg",
        "ioctl",
        "pipe",
        "pipe2",
        "open",
        "creat",
        "openat2",
        "getdents64",
        "mknod",
        "mknodat",
        "symlink",
        "link",
        "unlink",
        "unlinkat",
        "rename",
        "renameat",
        "renameat2",
        "truncate",
        "ftruncate",
        "chmod",
        "fchmod",
        "fchmodat",
        "chown",
        "fchown",
        "fchownat",
        "lchown",
        "landlock_create_ruleset",
        "landlock_add_rule",
        "landlock_restrict_self",
        "modify_ldt",
        "arch_prctl",
        "set_mempolicy",
        "mbind",
        "move_pages",
        "migrate_pages",
        "fsopen",
        "fsmount",
        "fsconfig",
        "fspick",
        "move_mount",
        "open_tree",
        "reboot",
        "swapon",
        "swapoff",
        "vmsplice",
        "splice",
        "tee",
        "sendfile",
        "fanotify_init",
        "inotify_init1",
    }
)


class UnsafeProfile(SandboxError, ValueError):
    """A child profile that would allow more than it says: refused at load time."""


def check_child_profile(profile: dict[str, Any]) -> None:
    """Raise UnsafeProfile unless the profile only denies (see CHILD_NEVER_ALLOWED)."""
    if profile.get("defaultAction") not in CHILD_DEFAULTS:
        raise UnsafeProfile(f"defaultAction {profile.get('defaultAction')!r} does not kill")
    for entry in profile.get("syscalls", []):
        action = entry.get("action")
        if action not in CHILD_RULE_ACTIONS:
            raise UnsafeProfile(f"action {action!r} for {entry.get('names')} is allow-like or unknown")
        if action == "SCMP_ACT_ALLOW":
            dangerous = sorted(set(entry.get("names", ())) & CHILD_NEVER_ALLOWED)
            if dangerous:
                raise UnsafeProfile(f"SCMP_ACT_ALLOW for {dangerous}")


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


def load_child_profile(path: Path) -> tuple[sc.SyscallFilter, list[str], str]:
    """The child's profile: checked (check_child_profile), compiled, and the sha256 of
    exactly the bytes compiled - what the health check compares with the shipped file."""
    raw = path.read_bytes()
    profile = json.loads(raw)
    try:
        check_child_profile(profile)
    except UnsafeProfile as exc:
        raise UnsafeProfile(f"{path.name}: {exc}") from None
    filt, skipped = build_filter(profile)
    return filt, skipped, hashlib.sha256(raw).hexdigest()


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
