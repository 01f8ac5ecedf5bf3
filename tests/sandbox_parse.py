"""One document through the production sandbox: same seccomp filter and caps as deployed
(limits.toml), for tests that prove a parser change needs no new syscall.

One fork server per test process, shared by every caller: each document still runs in
a fresh child forked from the zygote, as in the parse worker (which keeps one zygote for
all its documents too), but the zygote's start - a Python start and the parsing
libraries imported under the policy, seconds on a loaded machine - is paid once, not per
document (`test_third_party_development_items_are_not_cvs` parsed 38 documents through
38 zygotes: 74 s, of which the parses are a fraction). A changed policy (a file under
the policy directory) starts a new one, as a worker refuses to mix policy versions."""

from __future__ import annotations

import atexit
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ats.sandbox.api import ForkServerSandbox, SandboxResult

_lock = threading.Lock()
_shared: ForkServerSandbox | None = None


def production_sandbox() -> ForkServerSandbox:
    """The process's shared production-policy fork server, started on first use."""
    global _shared
    from ats.sandbox.api import ForkServerSandbox, load_policy

    policy = load_policy()
    with _lock:
        if _shared is not None and _shared.policy.policy_hash != policy.policy_hash:
            _shared.close()
            _shared = None
        if _shared is None:
            _shared = ForkServerSandbox(policy=policy)
            _shared.start()
            atexit.register(_shared.close)
        return _shared


def parse_in_production_sandbox(kind: str, data: bytes) -> tuple[dict[str, Any], float]:
    """(the validated document, the child's CPU ms); fails the test when the child did."""
    result = production_sandbox().run(kind, data)
    assert result.ok, (result.failure, result.detail)
    assert result.document is not None
    return dict(result.document), result.cpu_ms


def submit_args(result: SandboxResult) -> dict[str, Any]:
    """A sandbox outcome as the arguments ats.parse_worker.runner hands to ats_parse_submit()
    (and so the columns of its intake_parse_result row)."""
    if not result.ok:
        return {
            "ok": False,
            "code": str(result.error_code),
            "detail": result.error_detail,
            "text": "",
            "page_count": None,
            "result": {"sandbox": result.to_dict()},
            "policy_hash": result.policy_hash,
        }
    doc = dict(result.document or {})
    return {
        "ok": True,
        "code": "",  # intake_parse_result stores coalesce(p_code, '')
        "detail": "",
        "text": doc["text"],
        "page_count": doc["pages"],
        "result": {**doc, "sandbox": result.to_dict()},
        "policy_hash": result.policy_hash,
    }
