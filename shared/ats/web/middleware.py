"""Request handling shared by every page."""

from __future__ import annotations

from collections.abc import Callable

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
