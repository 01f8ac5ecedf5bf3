"""Request handling shared by every page."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import unquote_to_bytes

from django.http import HttpRequest, HttpResponseBase, HttpResponsePermanentRedirect
from django.urls import Resolver404, resolve


class TrailingSlashMiddleware:
    """A page's path typed with a trailing slash ("/candidates/4/") redirects to the page.

    Lists end in "/" and pages do not, and people type or paste either; Django's
    APPEND_SLASH covers only the other way. Acts on a 404 for GET/HEAD only, only when the
    path without its slash is routed here, never for the JSON API (clients get the 404 they
    asked for) and never to another host ("//evil.example" is not a path of this site).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        path = request.path_info
        if (
            response.status_code != 404
            or request.method not in ("GET", "HEAD")
            or len(path) < 3
            or not path.endswith("/")
            or path.endswith("//")
            or path.startswith(("/api/", "//"))
            or "\\" in path
        ):
            return response
        try:
            resolve(path[:-1])
        except Resolver404:
            return response
        query = request.META.get("QUERY_STRING", "")
        target = request.path[:-1]
        return HttpResponsePermanentRedirect(f"{target}?{query}" if query else target)


# The longest value a filter, search or page parameter may carry. Searches are cut to 200
# characters by the views; a value this long is not a search but a mistake or a probe.
MAX_PARAM_CHARS = 1000
# POST bodies the guard leaves to their view (which checks its few form fields itself).
STREAMED_PATHS = frozenset({"/api/intake/upload"})


def _query_problem(request: HttpRequest) -> str | None:
    """What is wrong with the request's parameters, in words, or None.

    Postgres refuses a NUL in any text value (a 500 when a filter reached a query), so a
    NUL is refused here for every query parameter and every form field; the query string
    must also be UTF-8 (Django would silently replace bad bytes) and no value may be
    longer than MAX_PARAM_CHARS. The upload API's body is not read here: the upload view
    streams it (reading it here would parse every file first).
    """
    raw = request.META.get("QUERY_STRING", "")
    try:
        unquote_to_bytes(raw.replace("+", " ")).decode("utf-8")
    except UnicodeDecodeError:
        return "The address has characters that are not valid text (not UTF-8). Check the link and try again."
    for name, values in request.GET.lists():
        for value in [name, *values]:
            if "\x00" in value:
                return f"The parameter “{_shown(name)}” contains a NUL character, which is not allowed."
            if len(value) > MAX_PARAM_CHARS:
                return f"The parameter “{_shown(name)}” is too long: at most {MAX_PARAM_CHARS:,} characters."
    if request.method == "POST" and request.path_info not in STREAMED_PATHS:
        for name, values in request.POST.lists():
            if any("\x00" in v for v in [name, *values]):
                return f"The field “{_shown(name)}” contains a NUL character, which is not allowed."
    return None


def _shown(name: str) -> str:
    return name.replace("\x00", "").strip()[:40] or "(unnamed)"


class ParameterGuardMiddleware:
    """Refuse unusable parameters (NUL, over-long, not UTF-8) with a 400 and a message,
    before any view or database query sees them (issue 21 N7)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        problem = _query_problem(request)
        if problem is None:
            return self.get_response(request)
        if request.path.startswith("/api/"):
            from ats.web.access import api_error

            return api_error(400, "bad_parameter", problem)
        from django.shortcuts import render

        return render(request, "ats/error.html", {"title": "Bad request", "message": problem}, status=400)
