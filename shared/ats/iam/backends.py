"""Django permissions derived from the iam role, so the admin site follows `iam.can`.

Admins (the iam role) may view everything and manage users and roles; domain models are
registered read-only on the admin site (writes go through services and the audit log),
so a view permission is all the admin needs there.
"""

from __future__ import annotations

from typing import Any

from ats.iam.models import Role
from ats.iam.policy import role_of

MANAGED_APPS = frozenset({"auth", "iam"})


class RolePermissionBackend:
    def authenticate(self, request: Any, **credentials: Any) -> None:
        return None  # permissions only; ModelBackend authenticates

    def has_perm(self, user_obj: Any, perm: str, obj: Any = None) -> bool:
        if role_of(user_obj) is not Role.ADMIN:
            return False
        app_label, _, codename = perm.partition(".")
        return codename.startswith("view_") or app_label in MANAGED_APPS

    def has_module_perms(self, user_obj: Any, app_label: str) -> bool:
        return role_of(user_obj) is Role.ADMIN
