"""Template context: what the signed-in user may open (drives the navigation)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest

from ats.iam import api as iam_api


def nav(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"nav": {}}
    role = iam_api.role_of(user)
    return {
        "nav": {
            "role": role.label if role else "no role",
            "triage": iam_api.can(user, "intake.view"),
            "upload": iam_api.can(user, "intake.upload"),
            "candidates": iam_api.can(user, "candidate.view"),
            "ops": iam_api.can(user, "ops.view"),
            "requisitions": iam_api.can(user, "requisition.view"),
            "ai": iam_api.can(user, "ai.invoke"),
            "admin": iam_api.can(user, "admin.site"),
            "fairness": iam_api.can(user, "fairness.view"),
        }
    }


def live(request: HttpRequest) -> dict[str, Any]:
    """The in-place refresh interval of the live regions (settings.WEB_LIVE_REFRESH_S)."""
    return {"live_refresh_s": int(settings.WEB_LIVE_REFRESH_S)}
