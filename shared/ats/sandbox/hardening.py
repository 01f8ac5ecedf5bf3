"""The isolation layers a fork-server child applies to itself, and which ones this host allows.

Runs in the zygote once (``prepare_zygote``: decide the plan, apply the zygote-wide
layers its forks inherit) and in each freshly forked child (``apply``: the per-child
layers, before a single byte of any document is read). The order matters; see inline.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
from collections.abc import Callable
from dataclasses import dataclass

import prctl  # python-prctl

from ats.sandbox import landlock
from ats.sandbox.data import ChildLimits, Layer

_CLONE_NEWNET = 0x40000000
_PR_SET_SECUREBITS = 28
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
# NOROOT + lock, NO_SETUID_FIXUP locked *off* (so setresuid clears every capability),
# KEEP_CAPS locked off, NO_CAP_AMBIENT_RAISE + lock. python-prctl rejects the ambient
# bits, hence the raw prctl for this one.
_SECUREBITS = (1 << 0) | (1 << 1) | (1 << 3) | (1 << 5) | (1 << 6) | (1 << 7)
_CAP_SETGID, _CAP_SETUID, _CAP_SETPCAP = 6, 7, 8
# Exit codes a child uses when a planned layer fails: 100 + index in Layer order.
SETUP_EXIT_BASE = 100
LAYER_ORDER = tuple(Layer)

_libc = ctypes.CDLL(None, use_errno=True)


def _raw_prctl(option: int, arg2: int, arg3: int = 0) -> None:
    if _libc.prctl(option, ctypes.c_ulong(arg2), ctypes.c_ulong(arg3), ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def _unshare(flags: int) -> None:
    if _libc.unshare(ctypes.c_int(flags)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def _status_caps(field: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1], 16)
    return 0


@dataclass(frozen=True)
class Plan:
    layers: tuple[Layer, ...]
    skipped: dict[str, str]  # layer -> why this host cannot apply it
    landlock_abi: int
    # Applied once to the zygote itself and inherited by every fork (saves ~1 ms per
    # document): the zygote needs no network, never execs, and needs no capability
    # beyond those it uses to setuid its children.
    in_zygote: frozenset[Layer] = frozenset({Layer.NETNS, Layer.CAPBSET, Layer.SECUREBITS})


def prepare_zygote(*, without_landlock: bool = False) -> Plan:
    """In the zygote, once: apply the zygote-wide layers and decide which ones children apply.

    Children then fail hard on any planned layer, so the plan is the truth about them.
    """
    eff = _status_caps("CapEff")
    skipped: dict[str, str] = {}
    layers = [Layer.SETSID]
    try:
        # The zygote talks to the worker over pipes only; its children inherit an empty
        # network namespace (loopback down). Needs root: not in a hardened container.
        _unshare(_CLONE_NEWNET)
        layers.append(Layer.NETNS)
    except OSError as exc:
        skipped[Layer.NETNS] = f"unshare(CLONE_NEWNET): {exc.strerror} (needs root / CAP_SYS_ADMIN)"
    layers += [Layer.CLOSE_FDS, Layer.RLIMITS]
    has_setpcap = bool(eff & (1 << _CAP_SETPCAP))
    if has_setpcap:
        _drop_capbset()
    if _status_caps("CapBnd") == 0:
        layers.append(Layer.CAPBSET)
    else:
        skipped[Layer.CAPBSET] = "no CAP_SETPCAP and the bounding set is not empty"
    if has_setpcap:
        _raw_prctl(_PR_SET_SECUREBITS, _SECUREBITS)
        layers.append(Layer.SECUREBITS)
    else:
        skipped[Layer.SECUREBITS] = "no CAP_SETPCAP (nothing to lock without root)"
    if os.geteuid() == 0 and eff & (1 << _CAP_SETUID) and eff & (1 << _CAP_SETGID):
        layers.append(Layer.SETUID)
    else:
        skipped[Layer.SETUID] = f"not root (uid {os.geteuid()}): the child keeps the zygote's uid"
    layers += [Layer.PDEATHSIG, Layer.NONDUMPABLE, Layer.NO_NEW_PRIVS]
    abi = 0 if without_landlock else landlock.abi_version()
    if without_landlock:
        skipped[Layer.LANDLOCK] = "disabled for a test (as on a kernel without Landlock)"
    elif abi > 0:
        layers.append(Layer.LANDLOCK)
    else:
        skipped[Layer.LANDLOCK] = "kernel has no Landlock"
    layers.append(Layer.SECCOMP)
    return Plan(tuple(layers), skipped, abi)


def address_space_bytes() -> int:
    """The calling process's mapped size (a child inherits the zygote's at fork)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _close_fds(keep: tuple[int, ...]) -> None:
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        # The zygote's pipes to the worker must never reach a child (a forged reply);
        # they are not on 0/1 (zygote.main moved them), but 0/1/2 get /dev/null anyway.
        os.dup2(null, fd)
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, os.sysconf("SC_OPEN_MAX"))


def _set_rlimits(limits: ChildLimits, vm_bytes: int) -> None:
    # RLIMIT_AS counts the zygote's mappings the child inherited, so the budget is on top.
    as_bytes = vm_bytes + limits.address_space_budget_mb * 1024 * 1024
    for res, value in (
        (resource.RLIMIT_CPU, (limits.cpu_soft_s, limits.cpu_hard_s)),
        (resource.RLIMIT_AS, (as_bytes, as_bytes)),
        (resource.RLIMIT_FSIZE, (limits.fsize, limits.fsize)),
        (resource.RLIMIT_NOFILE, (limits.nofile, limits.nofile)),
        (resource.RLIMIT_NPROC, (limits.nproc, limits.nproc)),
        (resource.RLIMIT_CORE, (limits.core, limits.core)),
        (resource.RLIMIT_MEMLOCK, (limits.memlock, limits.memlock)),
        (resource.RLIMIT_MSGQUEUE, (limits.msgqueue, limits.msgqueue)),
    ):
        resource.setrlimit(res, value)


def _drop_capbset() -> None:
    if _status_caps("CapBnd") == 0:
        return  # already empty (container with drop: ALL)
    with open("/proc/sys/kernel/cap_last_cap") as fh:
        last = int(fh.read())
    for cap in range(last + 1):
        prctl.capbset_drop(cap)
    _raw_prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL)


def _setuid(limits: ChildLimits) -> None:
    os.setgroups([])
    os.setresgid(limits.gid, limits.gid, limits.gid)
    os.setresuid(limits.uid, limits.uid, limits.uid)
    if os.getresuid() != (limits.uid,) * 3 or os.getresgid() != (limits.gid,) * 3:
        raise OSError("uid change did not stick")
    if _status_caps("CapEff") or _status_caps("CapPrm"):
        raise OSError("capabilities survived the uid change")


def _pdeathsig(zygote_pid: int) -> None:
    # After the uid change, which clears it. Then the zygote may already have died
    # (the signal would never come): check the parent is still the zygote.
    prctl.set_pdeathsig(signal.SIGKILL)
    if os.getppid() != zygote_pid:
        raise OSError("zygote died before PDEATHSIG was armed")


def apply(
    plan: Plan,
    limits: ChildLimits,
    *,
    keep_fds: tuple[int, ...],
    zygote_pid: int,
    vm_bytes: int,
    read_only_paths: list[str],
    load_seccomp: Callable[[], None],
) -> None:
    """Apply every planned layer in order; exit with SETUP_EXIT_BASE + index on the first failure."""
    steps: dict[Layer, Callable[[], object]] = {
        Layer.SETSID: os.setsid,
        Layer.CLOSE_FDS: lambda: _close_fds(keep_fds),
        Layer.RLIMITS: lambda: _set_rlimits(limits, vm_bytes),  # NPROC 0 does not stop setresuid (3.1+)
        Layer.SETUID: lambda: _setuid(limits),
        Layer.PDEATHSIG: lambda: _pdeathsig(zygote_pid),
        Layer.NONDUMPABLE: lambda: prctl.set_dumpable(False),
        Layer.NO_NEW_PRIVS: lambda: prctl.set_no_new_privs(True),
        # Landlock needs no_new_privs; its own syscalls are not in the seccomp allowlist.
        Layer.LANDLOCK: lambda: landlock.restrict_self([*read_only_paths, f"/proc/{os.getpid()}"], plan.landlock_abi),
        Layer.SECCOMP: load_seccomp,  # last: from here on only the allowlist works
    }
    for layer in plan.layers:
        if layer in plan.in_zygote:
            continue  # inherited from the zygote (netns, capbset, securebits)
        try:
            steps[layer]()
        except BaseException:
            os._exit(SETUP_EXIT_BASE + LAYER_ORDER.index(layer))


def layer_for_exit_code(code: int) -> Layer | None:
    index = code - SETUP_EXIT_BASE
    return LAYER_ORDER[index] if 0 <= index < len(LAYER_ORDER) else None
