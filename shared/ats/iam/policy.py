"""Which role may do what. One table, read by `can()`; tasks re-check with the human actor."""

from __future__ import annotations

import dataclasses
from typing import Any

from ats.iam.models import Membership, Role


@dataclasses.dataclass(frozen=True)
class SystemActor:
    """A trusted process acting on its own authority (the operator CLI, a worker's rule).

    Not a user: it holds no role, and `can()` allows it every *known* action - whoever runs
    `ats` already holds the database credentials. `label` is what the audit log records.
    """

    label: str
    is_authenticated = False
    is_system = True

    def __str__(self) -> str:
        return self.label


def actor_label(actor: Any) -> str:
    """How the audit log names an actor: `user:<id>`, a system label, or `system`."""
    if isinstance(actor, SystemActor):
        return actor.label
    if getattr(actor, "is_authenticated", False):
        return f"user:{actor.pk}"
    return "system"


# action -> roles allowed. Object-level rules (e.g. a hiring manager sees only their
# requisitions) join here when requisitions exist.
RULES: dict[str, frozenset[Role]] = {
    "intake.view": frozenset({Role.RECRUITER, Role.ADMIN}),
    "intake.upload": frozenset({Role.RECRUITER, Role.ADMIN}),
    "intake.reparse": frozenset({Role.RECRUITER, Role.ADMIN}),
    "intake.retry": frozenset({Role.RECRUITER, Role.ADMIN}),
    "intake.discard": frozenset({Role.RECRUITER, Role.ADMIN}),
    "candidate.view": frozenset({Role.RECRUITER, Role.HIRING_MANAGER, Role.ADMIN}),
    "candidate.edit": frozenset({Role.RECRUITER, Role.ADMIN}),
    "candidate.merge": frozenset({Role.RECRUITER, Role.ADMIN}),
    # Job status (API and document timelines): recruiters follow their documents,
    # operators run the queue.
    "jobs.view": frozenset({Role.RECRUITER, Role.OPERATOR, Role.ADMIN}),
    "ops.view": frozenset({Role.OPERATOR, Role.ADMIN}),
    # Cancel a waiting job / retry a failed one from the ops console.
    "ops.act": frozenset({Role.OPERATOR, Role.ADMIN}),
    # The Django admin site (users, roles, read-only domain data, procrastinate's views).
    "admin.site": frozenset({Role.ADMIN}),
    # Requisitions and applications: hiring managers read only the requisitions they are
    # assigned to (the object-level filter lives in the scoring module's selectors).
    "requisition.view": frozenset({Role.RECRUITER, Role.HIRING_MANAGER, Role.ADMIN}),
    "requisition.edit": frozenset({Role.RECRUITER, Role.ADMIN}),
    "application.view": frozenset({Role.RECRUITER, Role.HIRING_MANAGER, Role.ADMIN}),
    "ai.invoke": frozenset({Role.RECRUITER, Role.HIRING_MANAGER, Role.ADMIN}),
    # The CV viewer's page images: recruiters for every document, hiring managers for the
    # documents of candidates they may see (the object-level check is in ats.web.viewer).
    "document.read": frozenset({Role.RECRUITER, Role.HIRING_MANAGER, Role.ADMIN}),
    # The original file as received (audited per download); hiring managers read the viewer.
    "document.download": frozenset({Role.RECRUITER, Role.ADMIN}),
    # GDPR art. 17 erasure (and re-admitting an erased person), art. 15 subject access.
    "candidate.erase": frozenset({Role.ADMIN}),
    "candidate.export": frozenset({Role.ADMIN}),
}


def role_of(actor: Any) -> Role | None:
    if actor is None or not getattr(actor, "is_authenticated", False) or not getattr(actor, "is_active", False):
        return None
    if getattr(actor, "is_superuser", False):
        return Role.ADMIN
    membership = Membership.objects.filter(user_id=actor.pk).only("role").first()
    return Role(membership.role) if membership else None


def can(actor: Any, action: str, obj: Any = None) -> bool:
    allowed = RULES.get(action)
    if allowed is None:
        # Unknown actions are denied: a typo must not open a door.
        return False
    if isinstance(actor, SystemActor):
        return True
    role = role_of(actor)
    return role is not None and role in allowed
