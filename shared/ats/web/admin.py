"""The Django admin: admins only (iam), users and roles editable, domain data read-only.

Domain writes go through services, `iam.can` and the audit log - never through admin
forms - so every domain model is registered with add/change/delete refused. procrastinate
registers its own (read-only) job, event and worker views on this same site.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from ats.candidates import api as candidates_api
from ats.intake import api as intake_api


class ReadOnlyAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(intake_api.Attachment)
class AttachmentAdmin(ReadOnlyAdmin):
    list_display = ("id", "filename", "state", "virus_scan_status", "state_changed_at")
    list_filter = ("state", "virus_scan_status")
    search_fields = ("filename", "sha256")


@admin.register(intake_api.RawIntake)
class RawIntakeAdmin(ReadOnlyAdmin):
    list_display = ("id", "channel", "source_ref", "received_at")
    list_filter = ("channel",)


# No column list: the candidates module's model is being reshaped; str() is stable.
admin.site.register(candidates_api.Candidate, ReadOnlyAdmin)
