"""One document through the production sandbox: same seccomp filter and caps as deployed
(limits.toml), for tests that prove a parser change needs no new syscall."""

from __future__ import annotations

from typing import Any


def parse_in_production_sandbox(kind: str, data: bytes) -> tuple[dict[str, Any], float]:
    """(the validated document, the child's CPU ms); fails the test when the child did."""
    from ats.sandbox.api import ForkServerSandbox, load_policy

    with ForkServerSandbox(policy=load_policy()) as sandbox:
        sandbox.start()
        result = sandbox.run(kind, data)
    assert result.ok, (result.failure, result.detail)
    assert result.document is not None
    return dict(result.document), result.cpu_ms
