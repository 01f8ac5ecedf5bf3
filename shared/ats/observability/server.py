"""The metrics HTTP endpoint: its own port, optional bearer token (no Django, no database).

Metrics get their own port because a NetworkPolicy filters by port, not URL path: the
recruiters' port (8000) never answers /metrics, and the metrics port is open only to the
monitoring namespace (k8s/components/monitoring). Where no NetworkPolicy exists,
`ATS_METRICS_TOKEN` (or `ATS_METRICS_TOKEN_FILE`) makes the endpoint ask for
`Authorization: Bearer <token>`.
"""

from __future__ import annotations

import hmac
import os
import threading
from collections.abc import Callable, Iterable
from typing import Any
from wsgiref.simple_server import make_server

from prometheus_client import CollectorRegistry, make_wsgi_app
from prometheus_client.exposition import ThreadingWSGIServer, _SilentHandler

BIND_ENV = "ATS_METRICS_BIND"


def parse_bind(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    return (host or "127.0.0.1").strip("[]"), int(port)


def configured_token() -> str | None:
    token = os.environ.get("ATS_METRICS_TOKEN", "")
    path = os.environ.get("ATS_METRICS_TOKEN_FILE", "")
    if not token and path:
        with open(path, encoding="utf-8") as fh:
            token = fh.read().strip()
    return token or None


def guarded_app(registry: CollectorRegistry, token: str | None) -> Callable[..., Iterable[bytes]]:
    metrics_app = make_wsgi_app(registry)

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO", "/") not in {"/", "/metrics"}:
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"not found\n"]
        if token is not None:
            sent = environ.get("HTTP_AUTHORIZATION", "")
            if not hmac.compare_digest(sent.encode(), f"Bearer {token}".encode()):
                start_response("401 Unauthorized", [("Content-Type", "text/plain"), ("WWW-Authenticate", "Bearer")])
                return [b"unauthorized\n"]
        return metrics_app(environ, start_response)

    return app


def serve(registry: CollectorRegistry, bind: str, *, token: str | None = None, background: bool = True) -> Any:
    """Serve `registry` on `bind` (host:port). Returns the server (its thread is a daemon)."""
    host, port = parse_bind(bind)
    httpd = make_server(host, port, guarded_app(registry, token), ThreadingWSGIServer, handler_class=_SilentHandler)
    httpd.daemon_threads = True
    if background:
        threading.Thread(target=httpd.serve_forever, name="ats-metrics", daemon=True).start()
    else:
        httpd.serve_forever()
    return httpd
