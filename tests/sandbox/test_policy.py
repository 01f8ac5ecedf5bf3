"""(a) The policy as data: what the JSON/TOML files allow, checked without running them."""

from __future__ import annotations

import dataclasses
import json
import shutil
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import pytest

from ats.parsing.data import ERROR_CODES, ParseLimits
from ats.sandbox import oci
from ats.sandbox.api import Failure, load_policy, policy_dir, policy_hash

pytestmark = pytest.mark.timeout(60)

POLICY = policy_dir()
# Never allowed in either profile (escape or kernel attack surface).
FORBIDDEN = {
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "mount",
    "umount2",
    "bpf",
    "keyctl",
    "add_key",
    "request_key",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "perf_event_open",
    "userfaultfd",
    "open_by_handle_at",
    "pivot_root",
    "swapon",
    "swapoff",
    "reboot",
    "setns",
    "chroot",
    "fsopen",
    "fsmount",
    "move_mount",
    "open_tree",
    "io_uring_setup",
    "memfd_create",
    "execveat",
    "personality",
    "iopl",
    "ioperm",
    "kcmp",
    "pidfd_getfd",
}
# What the child may do beyond the kill default: measured with strace (README) plus
# CPython/glibc bookkeeping. Growing this list needs a security review.
CHILD_ALLOWED = {
    "read",
    "write",
    "pread64",
    "lseek",
    "close",
    "fstat",
    "newfstatat",
    # Same call, legacy number: Debian's python3.11 3.11.2-6+deb12u9 issues it (images).
    "stat",
    "lstat",
    "brk",
    "munmap",
    "mremap",
    "madvise",
    "futex",
    "sched_yield",
    "restart_syscall",
    "rt_sigreturn",
    "rt_sigprocmask",
    "rt_sigaction",
    "getrandom",
    "clock_gettime",
    "gettimeofday",
    "getpid",
    "gettid",
    "getppid",
    "getuid",
    "geteuid",
    "getgid",
    "getegid",
    "exit",
    "exit_group",
    "mmap",
    "mprotect",
    "openat",
    "prlimit64",
    "poll",
    "ppoll",
}
# Names in our profiles that libseccomp 2.5.4 does not know (skipped when compiling).
DELIBERATELY_SKIPPED = {"mseal"}
PROT_EXEC, O_ACCMODE, O_CREAT, O_TRUNC = 4, 3, 0o100, 0o1000
CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000
AF_UNIX, AF_INET, AF_INET6, AF_NETLINK = 1, 2, 10, 16


def _profile(name: str) -> dict[str, Any]:
    return json.loads((POLICY / name).read_text())


def _entries(profile: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: entry for entry in profile["syscalls"] for name in entry["names"]}


@pytest.fixture(params=["seccomp-child.json", "seccomp-container.json"])
def profile(request: pytest.FixtureRequest) -> dict[str, Any]:
    return _profile(request.param)


def test_each_syscall_in_exactly_one_entry(profile: dict[str, Any]) -> None:
    names = [name for entry in profile["syscalls"] for name in entry["names"]]
    assert len(names) == len(set(names))


def test_forbidden_syscalls_are_never_allowed(profile: dict[str, Any]) -> None:
    entries = _entries(profile)
    assert profile["defaultAction"] in {"SCMP_ACT_KILL_PROCESS", "SCMP_ACT_ERRNO"}
    for name in FORBIDDEN:
        assert name not in entries or entries[name]["action"] != "SCMP_ACT_ALLOW", name


def test_every_name_known_or_deliberately_skipped(profile: dict[str, Any]) -> None:
    _, skipped = oci.build_filter(profile)
    assert set(skipped) <= DELIBERATELY_SKIPPED
    for name in _entries(profile):
        assert oci.is_known(name) or name in DELIBERATELY_SKIPPED, name


def test_clone3_is_enosys_so_glibc_falls_back(profile: dict[str, Any]) -> None:
    assert _entries(profile)["clone3"] == {**_entries(profile)["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38}


def test_child_profile_defaults_to_kill_and_allows_only_the_measured_set() -> None:
    child = _profile("seccomp-child.json")
    assert child["defaultAction"] == "SCMP_ACT_KILL_PROCESS"
    entries = _entries(child)
    allowed = {name for name, entry in entries.items() if entry["action"] == "SCMP_ACT_ALLOW"}
    assert allowed == CHILD_ALLOWED
    for name in ("socket", "socketpair", "connect"):
        assert (entries[name]["action"], entries[name]["errnoRet"]) == ("SCMP_ACT_ERRNO", 1)
    assert (entries["ioctl"]["action"], entries["ioctl"]["errnoRet"]) == ("SCMP_ACT_ERRNO", 25)
    for name in ("execve", "clone", "fork", "vfork", "kill", "setuid", "pipe2", "getdents64", "pkey_mprotect"):
        assert name not in entries, name


def test_child_never_maps_executable_memory() -> None:
    entries = _entries(_profile("seccomp-child.json"))
    for name in ("mmap", "mprotect"):
        (arg,) = entries[name]["args"]
        # allowed only when (prot & PROT_EXEC) == 0
        assert (arg["index"], arg["op"], arg["value"], arg.get("valueTwo", 0)) == (
            2,
            "SCMP_CMP_MASKED_EQ",
            PROT_EXEC,
            0,
        )
    assert "remap_file_pages" not in entries and "pkey_mprotect" not in entries


def test_child_opens_read_only() -> None:
    (arg,) = _entries(_profile("seccomp-child.json"))["openat"]["args"]
    assert (arg["index"], arg["op"], arg.get("valueTwo", 0)) == (2, "SCMP_CMP_MASKED_EQ", 0)
    assert arg["value"] == O_ACCMODE | O_CREAT | O_TRUNC


def test_container_profile_blocks_user_namespaces_by_argument() -> None:
    container = _profile("seccomp-container.json")
    assert (container["defaultAction"], container["defaultErrnoRet"]) == ("SCMP_ACT_ERRNO", 1)
    entries = _entries(container)
    for name in ("clone", "unshare"):
        (arg,) = entries[name]["args"]
        assert arg["op"] == "SCMP_CMP_MASKED_EQ" and arg.get("valueTwo", 0) == 0
        assert arg["value"] & CLONE_NEWUSER, f"{name} must mask CLONE_NEWUSER"
    assert not _entries(container)["unshare"]["args"][0]["value"] & CLONE_NEWNET  # the child's netns
    # Exactly AF_UNIX, AF_INET, AF_INET6, AF_NETLINK (getaddrinfo): one EQ per family on
    # argument 0, each its own rule (OR). "< 17" let AX.25, IPX, AppleTalk, X.25, DECnet,
    # ROSE, NETROM, BRIDGE, ATMPVC, KEY, SECURITY - legacy kernel code - through.
    socket_args = entries["socket"]["args"]
    assert all((a["index"], a["op"], a.get("valueTwo", 0)) == (0, "SCMP_CMP_EQ", 0) for a in socket_args)
    assert sorted(a["value"] for a in socket_args) == [AF_UNIX, AF_INET, AF_INET6, AF_NETLINK]
    assert entries["socket"]["action"] == "SCMP_ACT_ALLOW"
    needed = {
        "socket",
        "connect",
        "sendto",
        "recvfrom",
        "epoll_wait",
        "execve",
        "wait4",
        "prctl",
        "seccomp",
        "setresuid",
        "setgroups",
        "capset",
        "landlock_restrict_self",
        "pidfd_open",
        "ioctl",
    }
    assert needed <= set(entries)


def test_limits_toml() -> None:
    raw = tomllib.loads((POLICY / "limits.toml").read_text())
    child = raw["child"]
    assert (child["cpu_soft_s"], child["cpu_hard_s"], child["wall_s"]) == (90, 91, 90)
    assert (child["fsize"], child["nproc"], child["core"]) == (0, 0, 0)
    assert (child["uid"], child["gid"]) == (65534, 65534)
    assert child["max_result_bytes"] > 0 and child["address_space_budget_mb"] > 0
    fields = {f.name for f in dataclasses.fields(ParseLimits)}
    assert set(raw["parse"]) <= fields
    ParseLimits(**raw["parse"])  # and the values pass its own checks
    policy = load_policy()
    assert policy.child.cpu_hard_s == policy.child.cpu_soft_s + 1


def test_policy_hash_covers_every_file() -> None:
    base = policy_hash(POLICY)
    assert base == load_policy().policy_hash and len(base) == 64
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "policy"
        shutil.copytree(POLICY, copy)
        assert policy_hash(copy) == base
        for name in ("limits.toml", "seccomp-child.json", "seccomp-container.json"):
            original = (copy / name).read_bytes()
            (copy / name).write_bytes(original + b"\n")
            assert policy_hash(copy) != base, name
            (copy / name).write_bytes(original)


def test_failure_codes_cover_every_parse_error() -> None:
    assert {f.value for f in Failure} >= ERROR_CODES


def _pfc(profile: dict[str, Any]) -> str:
    filt, _ = oci.build_filter(profile)
    with tempfile.TemporaryFile() as fh:
        filt.export_pfc(fh)
        fh.seek(0)
        return fh.read().decode()


def test_loader_rules() -> None:
    base = {"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 1}
    # Unknown names are skipped and reported; a rule equal to the default is not added.
    _, skipped = oci.build_filter(
        {
            **base,
            "syscalls": [
                {"names": ["read", "no_such_call"], "action": "SCMP_ACT_ALLOW"},
                {"names": ["write"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1},
            ],
        }
    )
    assert skipped == ["no_such_call"]
    # Two comparisons on one argument: one rule each (runc's reading: OR), not EINVAL.
    pfc = _pfc(
        {
            **base,
            "syscalls": [
                {
                    "names": ["socket"],
                    "action": "SCMP_ACT_ALLOW",
                    "args": [
                        {"index": 0, "value": 1, "op": "SCMP_CMP_EQ"},
                        {"index": 0, "value": 2, "op": "SCMP_CMP_EQ"},
                    ],
                }
            ],
        }
    )
    assert "$a0.lo32 == 1" in pfc and "$a0.lo32 == 2" in pfc
    with pytest.raises(ValueError, match="more than one entry"):
        oci.build_filter(
            {
                **base,
                "syscalls": [
                    {"names": ["read"], "action": "SCMP_ACT_ALLOW"},
                    {"names": ["read"], "action": "SCMP_ACT_LOG"},
                ],
            }
        )


def test_container_socket_families_compile_to_four_rules() -> None:
    pfc = _pfc(_profile("seccomp-container.json"))
    socket_rules = pfc.split('# filter for syscall "socket"')[1].split("# filter for syscall")[0]
    for family in (AF_UNIX, AF_INET, AF_INET6, AF_NETLINK):
        assert f"$a0.lo32 == {family}" in socket_rules, family
    assert "$a0.lo32 < 17" not in socket_rules and "$a0.lo32 >= 17" not in socket_rules


def test_shipped_child_profile_passes_the_load_time_guard() -> None:
    child = _profile("seccomp-child.json")
    oci.check_child_profile(child)  # raises UnsafeProfile otherwise; the zygote would not start
    assert FORBIDDEN <= oci.CHILD_NEVER_ALLOWED  # the guard knows every call this file forbids
    for action in ("SCMP_ACT_LOG", "SCMP_ACT_TRACE", "SCMP_ACT_NOTIFY", "SCMP_ACT_USER_NOTIF"):
        weakened = {**child, "syscalls": [*child["syscalls"], {"names": ["getdents64"], "action": action}]}
        with pytest.raises(oci.UnsafeProfile, match="allow-like"):
            oci.check_child_profile(weakened)
