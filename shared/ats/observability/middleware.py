"""Request id for every web request: bound to the log context, returned as X-Request-ID,
and carried into the jobs the request defers (ats.jobs.deferral). Also times the request
(`ats_http_request_duration_seconds`)."""

from __future__ import annotations

import time
from collections.abc import Callable

import structlog
from django.http import HttpRequest, HttpResponse

from ats.observability.data import record_request
from ats.observability.logs import REQUEST_ID_HEADER, new_request_id


class RequestIdMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        rid = new_request_id(request.META.get(REQUEST_ID_HEADER))
        started = time.perf_counter()
        with structlog.contextvars.bound_contextvars(request_id=rid):
            response = self.get_response(request)
        record_request(request.method or "", response.status_code, time.perf_counter() - started)
        response["X-Request-ID"] = rid
        return response
