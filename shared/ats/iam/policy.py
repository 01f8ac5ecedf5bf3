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


def actor_names(labels: Any) -> dict[str, str]:
    """Audit/actor labels -> how a screen names them: a user's full name (or user name),
    "command line" for the operator CLI, "the system" for rules acting alone."""
    from django.contrib.auth import get_user_model

    labels = set(labels)
    ids = {int(lbl[5:]): lbl for lbl in labels if lbl.startswith("user:") and lbl[5:].isdigit()}
    out: dict[str, str] = {}
    for user in get_user_model().objects.filter(pk__in=list(ids)):
        out[ids[user.pk]] = user.get_full_name().strip() or user.get_username()
    for lbl in labels - set(out):
        if lbl.startswith("user:"):
            out[lbl] = "a removed user"
        elif lbl.startswith("cli:"):
            out[lbl] = "command line"
        else:
            out[lbl] = "the system"
    return out


def users_with_role(role: Role) -> list[tuple[int, str]]:
    """(id, display name) of the active users holding `role`, by name (assignment forms)."""
    rows = Membership.objects.filter(role=role, user__is_active=True).select_related("user")
    return sorted(
        ((m.user.pk, m.user.get_full_name().strip() or m.user.get_username()) for m in rows), key=lambda r: r[1]
    )


# action -> roles allowed. Object-level rules (e.g. a hiring manager sees only their
# requisitions) join here when requisitions exist.
RULES: dict[str, frozenset[Role]] = {
    "intake.view": frozenset({Role.RECRUITER, Role.ADMIN}),
    "intake.upload": frozenset({Role.RECRUITER, Role.ADMIN}),
    "intake.reparse": frozenset({Role.RECRUITER, Role.ADMIN}),
    "intake.retry": frozenset({Role.RECRUITER, Role.ADMIN}),
    "intake.discard": frozenset({Role.RECRUITER, Role.ADMIN}),
    # Release / re-scan a file clamd could not scan completely: a security decision.
    "intake.release": frozenset({Role.ADMIN}),
    "candidate.view": frozenset({Role.RECRUITER, Role.HIRING_MANAGER, Role.ADMIN}),
    "candidate.edit": frozenset({Role.RECRUITER, Role.ADMIN}),
    "candidate.merge": frozenset({Role.RECRUITER, Role.ADMIN}),
    # Job status (API and document timelines): recruiters follow their documents,
    # operators run the queue.
    "jobs.view": frozenset({Role.RECRUITER, Role.OPERATOR, Role.OPERATOR_READONLY, Role.ADMIN}),
    "ops.view": frozenset({Role.OPERATOR, Role.OPERATOR_READONLY, Role.ADMIN}),
    # Cancel, retry or delete jobs, pause and resume queues, resume a halted purge from the
    # ops console. Read-only operators see the same console without these.
    "ops.act": frozenset({Role.OPERATOR, Role.ADMIN}),
    # The Django admin site (users, roles, read-only domain data, procrastinate's views).
    "admin.site": frozenset({Role.ADMIN}),
    # Requisitions and applications: hiring managers read only the requisitions they are
    # assigned to (the object-level filter lives in the scoring module's selectors).
    "requisition.view": frozenset({Role.RECRUITER, Role.HIRING_MANAGER, Role.ADMIN}),
    "requisition.edit": frozenset({Role.RECRUITER, Role.ADMIN}),
    "application.view": frozenset({Role.RECRUITER, Role.HIRING_MANAGER, Role.ADMIN}),
    # Move an application through the stages (hiring managers: their requisitions only,
    # the object-level check lives in the scoring module's service).
    "application.decide": frozenset({Role.RECRUITER, Role.HIRING_MANAGER, Role.ADMIN}),
    "ai.invoke": frozenset({Role.RECRUITER, Role.HIRING_MANAGER, Role.ADMIN}),
    # The CV viewer's page images: recruiters for every document, hiring managers for the
    # documents of candidates they may see (the object-level check is in ats.web.viewer).
    "document.read": frozenset({Role.RECRUITER, Role.HIRING_MANAGER, Role.ADMIN}),
    # The original file as received (audited per download); hiring managers read the viewer.
    "document.download": frozenset({Role.RECRUITER, Role.ADMIN}),
    # GDPR art. 17 erasure (and re-admitting an erased person), art. 15 subject access.
    "candidate.erase": frozenset({Role.ADMIN}),
    "candidate.export": frozenset({Role.ADMIN}),
    # Voluntary self-identification (issue 27): only an admin enters a paper survey; no
    # role reads a person's answer (there is no such view); the fairness report shows
    # aggregates, to admins only.
    "selfid.enter": frozenset({Role.ADMIN}),
    "fairness.view": frozenset({Role.ADMIN}),
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
