"""Facade of the document sandbox. Other modules import this (or ``ats.sandbox.data``).

    sandbox = default_sandbox()         # once per worker process, at start
    result = sandbox.run("pdf", data)   # any thread; never raises for a document
    result.ok, result.failure, result.document, result.layers, result.policy_hash

Pure: no Django, database, queue or HTTP client. See docs/security/sandbox.md.
"""

from __future__ import annotations

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
    SandboxPolicy,
    SandboxResult,
)
from ats.sandbox.forkserver import ForkServerSandbox, ZygoteError
from ats.sandbox.inprocess import ALLOW_ENV, InProcessSandbox, SandboxRefused
from ats.sandbox.policy import load_policy, policy_dir, policy_hash
from ats.sandbox.validate import Invalid, validate_document

__all__ = [
    "ALLOW_ENV",
    "PARSE_FAILURES",
    "REQUIRED_AS_ROOT",
    "REQUIRED_LAYERS",
    "SANDBOX_FAILURES",
    "ChildLimits",
    "Failure",
    "ForkServerSandbox",
    "InProcessSandbox",
    "Invalid",
    "Layer",
    "Sandbox",
    "SandboxPolicy",
    "SandboxRefused",
    "SandboxResult",
    "ZygoteError",
    "default_sandbox",
    "harden_worker_process",
    "load_policy",
    "policy_dir",
    "policy_hash",
    "validate_document",
]


class Sandbox(Protocol):
    name: str

    def start(self) -> dict[str, Any]: ...

    def run(self, kind: str, data: bytes) -> SandboxResult: ...

    def close(self) -> None: ...


def default_sandbox(
    *, policy_dir: str | os.PathLike[str] | None = None, allow_inprocess: bool = False, pool_size: int = 1
) -> Sandbox:
    """The sandbox a worker should use: the fork server, or - only when explicitly
    allowed (development) - the unconfined in-process one. Never a silent fallback.

    ``pool_size`` = the worker's parse concurrency (one zygote per concurrent document).
    """
    policy = load_policy(Path(policy_dir)) if policy_dir else load_policy()
    if allow_inprocess:
        return InProcessSandbox(allow=True, policy=policy)
    return ForkServerSandbox(policy=policy, pool_size=pool_size)


def harden_worker_process() -> None:
    """Call early in worker-untrusted: make the worker itself non-dumpable.

    In container mode the parse child keeps the worker's uid; non-dumpable makes
    /proc/<worker>/{environ,mem,...} root-owned and refuses ptrace from same-uid
    processes (Landlock, where present, blocks /proc/<worker> anyway).
    """
    prctl.set_dumpable(False)
