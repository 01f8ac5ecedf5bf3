"""Load the sandbox policy (services/worker-untrusted/policy/) and hash it."""

from __future__ import annotations

import hashlib
import os
import tomllib
from pathlib import Path
from typing import Any

from ats.sandbox.data import ChildLimits, SandboxPolicy

POLICY_FILES = ("limits.toml", "seccomp-child.json", "seccomp-container.json")


def policy_dir() -> Path:
    """ATS_SANDBOX_POLICY_DIR, else the checkout's services/worker-untrusted/policy.

    A container image installs the package non-editable, so it must set the variable
    (the image copies the policy directory next to the code).
    """
    configured = os.environ.get("ATS_SANDBOX_POLICY_DIR")
    if configured:
        return Path(configured)
    # shared/ats/sandbox/policy.py -> repository root
    return Path(__file__).resolve().parents[3] / "services" / "worker-untrusted" / "policy"


def policy_hash(directory: Path) -> str:
    """sha256 over each policy file's name and bytes, sorted by name.

    Names are part of the hash so that swapping two files' contents changes it.
    """
    digest = hashlib.sha256()
    for name in sorted(POLICY_FILES):
        data = (directory / name).read_bytes()
        digest.update(name.encode() + b"\0" + len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


def load_policy(directory: Path | None = None, **child_overrides: Any) -> SandboxPolicy:
    """Read limits.toml; ``child_overrides`` replace ``[child]`` values (tests use short caps).

    The hash covers the files only: a result produced with overrides says so in
    nothing but its (shorter) cpu/wall figures, so overrides are for tests and benches.
    """
    directory = directory or policy_dir()
    with open(directory / "limits.toml", "rb") as fh:
        raw = tomllib.load(fh)
    child = dict(raw["child"])
    child["read_only_paths"] = tuple(child.get("read_only_paths", ()))
    child.update(child_overrides)
    zygote = raw.get("zygote", {})
    recycle = int(zygote.get("recycle_after_documents", 500))
    if recycle < 1:
        raise ValueError("[zygote] recycle_after_documents must be >= 1")
    return SandboxPolicy(
        child=ChildLimits(**child),
        parse=dict(raw.get("parse", {})),
        reply_grace_s=float(zygote.get("reply_grace_s", 10)),
        recycle_after_documents=recycle,
        policy_dir=str(directory),
        policy_hash=policy_hash(directory),
    )
