from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model

from ats.iam.models import Membership, Role


def user_create(*, username: str, password: str, role: str, email: str = "") -> Any:
    user = get_user_model().objects.create_user(username=username, password=password, email=email)
    Membership.objects.create(user=user, role=Role(role))
    return user


def membership_set(*, user: Any, role: str) -> None:
    """Give a user this role (their one membership, created or changed)."""
    Membership.objects.update_or_create(user=user, defaults={"role": Role(role)})
