"""Users and their iam role on the admin site (admins only: see ats.web.admin.AtsAdminSite)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.http import HttpRequest

from ats.iam.models import LoginAttempt, Membership


class MembershipInline(admin.StackedInline):  # type: ignore[type-arg]
    model = Membership
    can_delete = False
    verbose_name = "role"


User = get_user_model()
if admin.site.is_registered(User):
    admin.site.unregister(User)


@admin.register(User)
class UserWithRoleAdmin(UserAdmin):  # type: ignore[type-arg]
    inlines = (MembershipInline,)


@admin.register(LoginAttempt)
class LoginAttemptAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("at", "username", "ip", "succeeded")
    list_filter = ("succeeded",)
    search_fields = ("username", "ip")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
