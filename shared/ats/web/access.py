"""Every web view declares who may call it: `@requires(action)` or `@public(why)`.

The declaration is kept on the view (`view.ats_rule`), and the authorization-matrix test
walks the URL conf and fails on any view without one - a new URL cannot ship unguarded.
The check runs before the method check, so an anonymous caller learns nothing about
which methods a URL accepts.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import quote

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render

from ats.iam import api as iam_api

F = TypeVar("F", bound=Callable[..., HttpResponseBase])

LOGIN_ONLY = "login"  # any signed-in user with a role


def _allowed(request: HttpRequest, action: str) -> bool:
    if action == LOGIN_ONLY:
        return iam_api.role_of(request.user) is not None
    return iam_api.can(request.user, action)


def api_error(status: int, code: str, message: str) -> JsonResponse:
    """The one error body of the JSON API: {"error": <human text>, "code": <stable code>}."""
    return JsonResponse({"error": message, "code": code}, status=status)


def requires(action: str, *, api: bool = False, denied_message: str = "forbidden") -> Callable[[F], F]:
    def decorate(view: F) -> F:
        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            if not request.user.is_authenticated:
                if api:
                    return api_error(401, "unauthenticated", "authentication required")
                return HttpResponseRedirect(f"{settings.LOGIN_URL}?next={quote(request.get_full_path())}")
            if not _allowed(request, action):
                if api:
                    return api_error(403, "forbidden", denied_message)
                return render(request, "ats/403.html", {"action": action}, status=403)
            return view(request, *args, **kwargs)

        wrapped.ats_rule = action  # type: ignore[attr-defined]
        return wrapped  # type: ignore[return-value]

    return decorate


def public(why: str) -> Callable[[F], F]:
    """Mark a view as deliberately open (health probes, sign-in), with the reason."""

    def decorate(view: F) -> F:
        view.ats_rule = None  # type: ignore[attr-defined]
        view.ats_public_because = why  # type: ignore[attr-defined]
        return view

    return decorate


def actor_label(request: HttpRequest) -> str:
    return f"user:{request.user.pk}"


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponseBase:
    """CSRF refusals in the API's error shape for API paths; a page elsewhere."""
    if request.path.startswith("/api/"):
        return api_error(403, "csrf_failed", f"CSRF check failed: {reason}")
    return render(request, "ats/403.html", {"action": "csrf"}, status=403)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponseBase:
    """Requests Django refuses before any view (too many files, malformed multipart...)."""
    if request.path.startswith("/api/"):
        return api_error(400, "bad_request", "the request could not be read (malformed or over a limit)")
    return render(request, "ats/error.html", {"title": "Bad request"}, status=400)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponseBase:
    if request.path.startswith("/api/"):
        return api_error(404, "not_found", "not found")
    return render(request, "ats/error.html", {"title": "Not found"}, status=404)


# How long a client should wait before trying again while the database is unreachable (a
# Postgres restart or fail-over takes seconds; the upload page tells people the same).
DATABASE_RETRY_AFTER_S = 5
DATABASE_UNAVAILABLE = (
    "The database is unavailable for a moment (it may be restarting). Nothing was saved: try again in a moment."
)


def _database_down(exc: BaseException | None) -> bool:
    from django.db import InterfaceError, OperationalError

    return isinstance(exc, (OperationalError, InterfaceError))


def server_error(request: HttpRequest) -> HttpResponseBase:
    """handler500: a database outage is a 503 with Retry-After (the client may simply try
    again), in the API's error shape for /api/; anything else stays Django's 500.

    Called by Django inside its exception handler, so sys.exc_info() is the error. The
    page is rendered without the request's context processors: they read the database.
    """
    from django.template.loader import render_to_string
    from django.views import defaults

    if _database_down(sys.exc_info()[1]):
        if request.path.startswith("/api/"):
            response: HttpResponseBase = JsonResponse(
                {
                    "error": DATABASE_UNAVAILABLE,
                    "code": "database_unavailable",
                    "retry_after_s": DATABASE_RETRY_AFTER_S,
                },
                status=503,
            )
        else:
            html = render_to_string(
                "ats/error.html", {"title": "Try again in a moment", "message": DATABASE_UNAVAILABLE}
            )
            response = HttpResponse(html, status=503)
        response["Retry-After"] = str(DATABASE_RETRY_AFTER_S)
        response["Cache-Control"] = "no-store"
        return response
    if request.path.startswith("/api/"):
        return api_error(500, "internal_error", "something went wrong on our side (it is logged)")
    return defaults.server_error(request)
