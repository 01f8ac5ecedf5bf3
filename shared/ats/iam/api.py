"""Facade of the iam module."""

from ats.iam.models import Role
from ats.iam.policy import SystemActor, actor_label, actor_names, can, role_of, users_with_role
from ats.iam.services import membership_set, user_create
from ats.iam.throttle import WINDOW as LOGIN_THROTTLE_WINDOW
from ats.iam.throttle import login_attempt_record, login_blocked, login_wait

__all__ = [
    "LOGIN_THROTTLE_WINDOW",
    "Role",
    "SystemActor",
    "actor_label",
    "actor_names",
    "can",
    "login_attempt_record",
    "login_blocked",
    "login_wait",
    "membership_set",
    "role_of",
    "user_create",
    "users_with_role",
]
