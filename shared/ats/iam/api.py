"""Facade of the iam module."""

from ats.iam.models import Role
from ats.iam.policy import SystemActor, actor_label, can, role_of
from ats.iam.services import membership_set, user_create

__all__ = ["Role", "SystemActor", "actor_label", "can", "membership_set", "role_of", "user_create"]
