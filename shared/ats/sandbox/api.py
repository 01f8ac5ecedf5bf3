"""Facade of the document sandbox. Other modules import this (or ``ats.sandbox.data``).

    sandbox = default_sandbox()         # once per worker process, at start
    result = sandbox.run("pdf", data)   # any thread; never raises for a document
    result.ok, result.failure, result.document, result.layers, result.policy_hash

Pure: no Django, database, queue or HTTP client. See docs/security/sandbox.md.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Protocol

import prctl

from ats.sandbox.data import (
    PARSE_FAILURES,
    REQUIRED_AS_ROOT,
    REQUIRED_LAYERS,
    SANDBOX_FAILURES,
    ChildLimits,
    Failure,
    Layer,
    OnDocument,
    SandboxPolicy,
    SandboxResult,
)
from ats.sandbox.errors import SandboxError
from ats.sandbox.forkserver import ForkServerSandbox, ZygoteError
from ats.sandbox.inprocess import ALLOW_ENV, InProcessSandbox, SandboxRefused, refuse_in_untrusted_deployable
from ats.sandbox.policy import load_policy, policy_dir, policy_hash
from ats.sandbox.validate import (
    REPORT_CHECKS,
    REPORTABLE_FAILURES,
    CheckedReport,
    Invalid,
    ReportDeployment,
    ReportRejected,
    check_report,
    report_deployment,
    strip_invisible,
    validate_document,
)

__all__ = [
    "ALLOW_ENV",
    "PARSE_FAILURES",
    "REPORTABLE_FAILURES",
    "REPORT_CHECKS",
    "REQUIRED_AS_ROOT",
    "REQUIRED_LAYERS",
    "SANDBOX_FAILURES",
    "CheckedReport",
    "ChildLimits",
    "Failure",
    "ForkServerSandbox",
    "InProcessSandbox",
    "Invalid",
    "Layer",
    "OnDocument",
    "ReportDeployment",
    "ReportRejected",
    "Sandbox",
    "SandboxError",
    "SandboxPolicy",
    "SandboxRefused",
    "SandboxResult",
    "ZygoteError",
    "check_report",
    "default_sandbox",
    "harden_worker_process",
    "load_policy",
    "policy_dir",
    "policy_hash",
    "report_deployment",
    "shipped_profile_hash",
    "status_problems",
    "strip_invisible",
    "validate_document",
]


class Sandbox(Protocol):
    name: str

    def start(self) -> dict[str, Any]: ...

    def run(self, kind: str, data: bytes, *, on_document: OnDocument | None = None) -> SandboxResult: ...

    def close(self) -> None: ...

    def status(self) -> dict[str, Any]: ...


def default_sandbox(
    *, policy_dir: str | os.PathLike[str] | None = None, allow_inprocess: bool = False, pool_size: int = 1
) -> Sandbox:
    """The sandbox a worker should use: the fork server, or - only when explicitly
    allowed (development) - the unconfined in-process one. Never a silent fallback.

    ``pool_size`` = the worker's parse concurrency (one zygote per concurrent document).
    """
    policy = load_policy(Path(policy_dir)) if policy_dir else load_policy()
    if allow_inprocess:
        refuse_in_untrusted_deployable()
        return InProcessSandbox(allow=True, policy=policy)
    return ForkServerSandbox(policy=policy, pool_size=pool_size)


def harden_worker_process() -> None:
    """Call early in worker-untrusted: make the worker itself non-dumpable.

    In container mode the parse child keeps the worker's uid; non-dumpable makes
    /proc/<worker>/{environ,mem,...} root-owned and refuses ptrace from same-uid
    processes (Landlock, where present, blocks /proc/<worker> anyway).

    Also refuses ATS_SANDBOX_ALLOW_INPROCESS=1 there (SandboxRefused): the worker must
    not start at all rather than parse unconfined.
    """
    refuse_in_untrusted_deployable()
    prctl.set_dumpable(False)


def _process_alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    # The state follows the parenthesised command name; a zombie is dead but unreaped.
    return stat.rpartition(")")[2].split()[0] not in {"Z", "X"}


def status_problems(status: dict[str, Any]) -> list[str]:
    """Judge a sandbox `status()` written by the worker, from another process (the probe).

    Unhealthy when an idle zygote is dead, or when the policy the zygotes loaded differs
    from the policy files shipped in the image now (a changed profile needs a restart).
    """
    if status.get("kind") != ForkServerSandbox.name:
        return []
    problems = [f"sandbox zygote {pid} is dead" for pid in status.get("zygote_pids", []) if not _process_alive(pid)]
    loaded = status.get("loaded_policy_hash")
    if loaded is not None and loaded != policy_hash(Path(status["policy_dir"])):
        problems.append("the zygotes' loaded sandbox policy differs from the shipped policy files")
    if loaded is not None:  # started: the zygotes must say what they compiled
        compiled = status.get("loaded_profile_hash")
        if compiled is None:
            problems.append("the zygotes did not report the seccomp profile they compiled")
        elif compiled != shipped_profile_hash(Path(status["policy_dir"])):
            problems.append("the zygotes' compiled seccomp-child.json differs from the shipped one")
    return problems


def shipped_profile_hash(directory: Path | None = None) -> str:
    """sha256 of seccomp-child.json as shipped (compare with status()["loaded_profile_hash"])."""
    return hashlib.sha256(((directory or policy_dir()) / "seccomp-child.json").read_bytes()).hexdigest()
