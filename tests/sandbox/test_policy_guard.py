"""Policy edits that would weaken the child silently are refused, and the health check sees
the profile the zygotes actually compiled (issue 9, "policy edits that weaken silently")."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from ats.sandbox.api import Failure, ForkServerSandbox, SandboxPolicy, load_policy, policy_dir, status_problems

pytestmark = pytest.mark.timeout(120)

POLICY = policy_dir()
# Every argument filter of the child profile, pinned: a changed comparison (prlimit64 on
# another pid, an executable mapping, a writable open) must fail here and get a review.
PINNED_ARGS = {
    "mmap": [{"index": 2, "value": 4, "valueTwo": 0, "op": "SCMP_CMP_MASKED_EQ"}],
    "mprotect": [{"index": 2, "value": 4, "valueTwo": 0, "op": "SCMP_CMP_MASKED_EQ"}],
    "openat": [{"index": 2, "value": 0o1103, "valueTwo": 0, "op": "SCMP_CMP_MASKED_EQ"}],
    # pid == 0 (self) AND new_limit == NULL: read own limits only
    "prlimit64": [
        {"index": 0, "value": 0, "valueTwo": 0, "op": "SCMP_CMP_EQ"},
        {"index": 2, "value": 0, "valueTwo": 0, "op": "SCMP_CMP_EQ"},
    ],
    # tgkill(.., .., SIGABRT) only: glibc's abort() -> EPERM, then its crash instruction
    "tgkill": [{"index": 2, "value": 6, "valueTwo": 0, "op": "SCMP_CMP_EQ"}],
}


def _child_profile(directory: Path = POLICY) -> dict[str, Any]:
    return json.loads((directory / "seccomp-child.json").read_text())


def _args_by_name(profile: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    return {
        name: [{"valueTwo": 0, **arg} for arg in entry["args"]]
        for entry in profile["syscalls"]
        if entry.get("args")
        for name in entry["names"]
    }


def test_every_argument_filter_is_pinned() -> None:
    assert _args_by_name(_child_profile()) == PINNED_ARGS


def test_a_loosened_prlimit64_filter_is_caught_by_the_pin() -> None:
    profile = _child_profile()
    for entry in profile["syscalls"]:
        if "prlimit64" in entry["names"]:
            entry["args"] = entry["args"][1:]  # drop "pid == 0": another process's limits
    assert _args_by_name(profile) != PINNED_ARGS


def _policy_copy(tmp_path: Path, edit: Any) -> Path:
    copy = tmp_path / "policy"
    shutil.copytree(POLICY, copy)
    profile = _child_profile(copy)
    edit(profile)
    (copy / "seccomp-child.json").write_text(json.dumps(profile))
    return copy


@pytest.mark.parametrize(
    ("action", "name"),
    [
        ("SCMP_ACT_LOG", "getdents64"),  # LOG means "allow and log"
        ("SCMP_ACT_TRACE", "getdents64"),  # allowed when no tracer is attached
        ("SCMP_ACT_NOTIFY", "getdents64"),  # a supervisor decides: not ours
        ("SCMP_ACT_ALLOW", "execve"),  # an allow for a call the child must never make
        ("SCMP_ACT_ALLOW", "ptrace"),
    ],
)
def test_allow_like_actions_keep_the_zygote_from_starting(tmp_path: Path, action: str, name: str) -> None:
    def edit(profile: dict[str, Any]) -> None:
        profile["syscalls"].append({"names": [name], "action": action})

    policy = load_policy(_policy_copy(tmp_path, edit))
    with ForkServerSandbox(policy=policy, startup_timeout_s=60) as sandbox:
        result = sandbox.run("txt", b"hello")
    assert result.failure == Failure.SANDBOX_UNAVAILABLE, (result.failure, result.detail)
    assert "seccomp-child.json" in result.detail


def test_a_weaker_default_keeps_the_zygote_from_starting(tmp_path: Path) -> None:
    def edit(profile: dict[str, Any]) -> None:
        profile["defaultAction"] = "SCMP_ACT_ERRNO"

    policy = load_policy(_policy_copy(tmp_path, edit))
    with ForkServerSandbox(policy=policy) as sandbox:
        result = sandbox.run("txt", b"hello")
    assert result.failure == Failure.SANDBOX_UNAVAILABLE, (result.failure, result.detail)


def test_status_carries_the_hash_of_the_profile_the_zygote_compiled(policy: SandboxPolicy) -> None:
    shipped = hashlib.sha256((POLICY / "seccomp-child.json").read_bytes()).hexdigest()
    with ForkServerSandbox(policy=policy) as sandbox:
        sandbox.start()
        status = sandbox.status()
        assert status["loaded_profile_hash"] == shipped
        assert sandbox.loaded_profile_hash() == shipped
        assert status_problems(status) == []
        # The profile delivered to the node changed after the zygote compiled its own copy
        # (or the zygote compiled something else): the health check must say so.
        assert status_problems({**status, "loaded_profile_hash": "0" * 64}) == [
            "the zygotes' compiled seccomp-child.json differs from the shipped one"
        ]
        assert status_problems({**status, "loaded_profile_hash": None}) == [
            "the zygotes did not report the seccomp profile they compiled"
        ]
