"""Exhaustion handlers, registered by the module that owns each task's domain state.

A policy row names its handler's owner (`exhaustion_owner="intake"`), never a dotted
path: jobs sits at the bottom of the layers and may not import, even by name, the
modules above it. The owner registers the function when its app starts
(`AppConfig.ready`); the registration is refused unless the row names that owner, so a
handler cannot be attached to someone else's task by accident.
"""

from __future__ import annotations

from collections.abc import Callable

from ats.jobs.errors import JobError
from ats.jobs.policy import POLICIES, TEST_ONLY, TaskPolicy, policy_for

ExhaustionHandler = Callable[..., None]

_HANDLERS: dict[str, ExhaustionHandler] = {}


class HandlerNotRegistered(JobError, LookupError):
    """A policy row names an owner whose handler is not registered in this process."""


def _owned_by(module: str, owner: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in (f"ats.{owner}", owner))


def register_exhaustion_handler(task_name: str, handler: ExhaustionHandler) -> None:
    """`handler(reason_code=, reason=, **payload)` writes the task's domain terminal state."""
    policy = policy_for(task_name)
    owner = policy.exhaustion_owner
    if owner is None:
        raise ValueError(f"{task_name}'s policy row has no exhaustion handler (exhaustion_owner is unset)")
    if not _owned_by(handler.__module__, owner):
        raise ValueError(f"{task_name}'s exhaustion handler belongs to {owner!r}, not {handler.__module__}")
    _HANDLERS[task_name] = handler


def exhaustion_handler(policy: TaskPolicy) -> ExhaustionHandler | None:
    """The registered handler; None for a row without one. Raises if its owner did not register."""
    if policy.exhaustion_owner is None:
        return None
    try:
        return _HANDLERS[policy.task_name]
    except KeyError:
        raise HandlerNotRegistered(
            f"no exhaustion handler registered for {policy.task_name} "
            f"(ats.{policy.exhaustion_owner} registers it when its app starts)"
        ) from None


def missing_exhaustion_handlers() -> list[str]:
    """Task names whose row names an owner that registered nothing in this process."""
    rows = (*POLICIES, *TEST_ONLY.values())
    return [p.task_name for p in rows if p.exhaustion_owner and p.task_name not in _HANDLERS]
