"""Exhaustion handlers are registered by their owners, against their policy rows (issue 22).

The policy table names an owner per row, never a dotted path; the owner's AppConfig.ready
registers the function. These run against the real apps Django started for the suite.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ats.jobs import api as jobs_api
from ats.jobs import handlers
from ats.jobs import ops_api as jobs_ops
from ats.jobs.data import Backoff, TaskPolicy
from ats.jobs.policy import TEST_ONLY, register_test_policy

ATS = Path(__file__).resolve().parents[2] / "shared" / "ats"


def test_every_row_with_an_owner_has_its_handler_registered() -> None:
    owned = [p for p in jobs_ops.POLICIES if p.exhaustion_owner]
    assert len(owned) >= 10  # intake, candidates, channels, scoring, ai rows
    assert jobs_ops.missing_exhaustion_handlers() == []
    for policy in owned:
        handler = handlers.exhaustion_handler(policy)
        assert handler is not None
        # The owner is a package, and the handler is its own code.
        assert (ATS / str(policy.exhaustion_owner) / "__init__.py").exists(), policy.exhaustion_owner
        assert handler.__module__.startswith(f"ats.{policy.exhaustion_owner}."), (policy.task_name, handler)


def test_a_row_without_an_owner_has_no_handler() -> None:
    [row] = [p for p in jobs_ops.POLICIES if p.task_name == "jobs.rescue_and_sweep"]
    assert row.exhaustion_owner is None
    assert handlers.exhaustion_handler(row) is None
    with pytest.raises(ValueError, match="no exhaustion handler"):
        jobs_api.register_exhaustion_handler("jobs.rescue_and_sweep", _handler)


def _handler(**_: object) -> None:
    """A handler defined in tests.jobs: owned by no row of the table."""


def test_a_handler_from_another_module_is_refused() -> None:
    with pytest.raises(ValueError, match="belongs to 'intake'"):
        jobs_api.register_exhaustion_handler("intake.parse_attachment", _handler)
    with pytest.raises(LookupError):
        jobs_api.register_exhaustion_handler("no.such_task", _handler)


def test_an_owner_that_did_not_register_is_named() -> None:
    row = TaskPolicy(
        "tests.unregistered_owner", "test", "test", 1, Backoff(0, 0), 60, "-", exhaustion_owner="tests.nobody"
    )
    register_test_policy(row)
    try:
        assert "tests.unregistered_owner" in jobs_ops.missing_exhaustion_handlers()
        with pytest.raises(jobs_api.HandlerNotRegistered, match=r"ats\.tests\.nobody registers it"):
            handlers.exhaustion_handler(row)
    finally:
        TEST_ONLY.pop(row.task_name)
