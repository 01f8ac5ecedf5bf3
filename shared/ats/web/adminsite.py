"""The admin site class (kept apart from admin.py: admin.py registers on `admin.site`,
which is built from this class, and must not be imported while it is being built)."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from ats.iam import api as iam_api


class AtsAdminSite(admin.AdminSite):
    site_header = "ATS administration"
    site_title = "ATS admin"

    def has_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_active and iam_api.can(request.user, "admin.site"))
