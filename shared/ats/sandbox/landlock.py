"""Landlock via raw syscalls (ctypes): read-only access to a few paths, nothing else.

Why Landlock on top of seccomp: seccomp can only say "openat read-only", not *which*
files. As uid 65534 (root mode) file permissions hide the worker's secrets, but in a
hardened container the child keeps the worker's uid, and then only Landlock stops it
reading /proc/<worker>/environ, mounted secrets or the code. ABI 4 adds "no TCP
bind/connect", ABI 6 "no signals or abstract UNIX sockets outside the domain".
"""

from __future__ import annotations

import ctypes
import os
import struct

# Same numbers on x86_64 and aarch64 (syscalls added after the table unification).
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_READ_FILE, _READ_DIR = 1 << 2, 1 << 3
# Highest filesystem access bit per ABI version: v1 EXECUTE..MAKE_SYM (bits 0-12),
# v2 REFER (13), v3 TRUNCATE (14), v5 IOCTL_DEV (15).
_FS_BITS_BY_ABI = {1: 13, 2: 14, 3: 15, 4: 15, 5: 16}
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX, _SCOPE_SIGNAL = 1 << 0, 1 << 1

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _syscall(nr: int, *args: object) -> int:
    res = int(_libc.syscall(ctypes.c_long(nr), *args))
    if res < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return res


def abi_version() -> int:
    """0 when the kernel has no Landlock (or it is disabled at boot)."""
    try:
        return _syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except OSError:
        return 0


def restrict_self(read_only_paths: list[str], abi: int) -> None:
    """Allow reading files/directories beneath ``read_only_paths``; deny all other handled access.

    Needs no_new_privs (or CAP_SYS_ADMIN). Missing paths are skipped (a host without
    tesseract simply has no OCR), never widened to a parent.
    """
    handled_fs = (1 << _FS_BITS_BY_ABI.get(abi, 16)) - 1
    attr = struct.pack("=Q", handled_fs)
    if abi >= 4:
        attr += struct.pack("=Q", _NET_BIND_TCP | _NET_CONNECT_TCP)
    if abi >= 6:
        attr += struct.pack("=Q", _SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL)
    buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset = _syscall(_SYS_CREATE_RULESET, buf, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    try:
        for path in read_only_paths:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except FileNotFoundError:
                continue
            try:
                is_dir = os.path.isdir(f"/proc/self/fd/{fd}")
                access = _READ_FILE | (_READ_DIR if is_dir else 0)
                # struct landlock_path_beneath_attr is packed: u64 allowed_access, s32 parent_fd
                rule = ctypes.create_string_buffer(struct.pack("=Qi", access, fd), 12)
                rule_type = ctypes.c_int(_RULE_PATH_BENEATH)
                _syscall(_SYS_ADD_RULE, ctypes.c_int(ruleset), rule_type, rule, ctypes.c_uint32(0))
            finally:
                os.close(fd)
        _syscall(_SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)
