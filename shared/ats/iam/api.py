"""Facade of the iam module."""

from ats.iam.models import Role
from ats.iam.policy import can, role_of
from ats.iam.services import membership_set, user_create

__all__ = ["Role", "can", "membership_set", "role_of", "user_create"]
