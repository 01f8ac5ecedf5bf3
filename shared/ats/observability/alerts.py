"""The alerts a real Prometheus evaluates from the shipped rules, read for the console
(`/ops/alerts` and the console's banner). ATS_PROMETHEUS_URL names it (`just up` starts
one on 127.0.0.1:9090 and sets it; in k8s, the cluster's Prometheus service)."""

from __future__ import annotations

import dataclasses
import json
import os
import urllib.request
from typing import Any

URL_ENV = "ATS_PROMETHEUS_URL"


@dataclasses.dataclass(frozen=True)
class AlertsRead:
    url: str
    ok: bool
    error: str
    alerts: list[dict[str, Any]]

    @property
    def firing(self) -> list[dict[str, Any]]:
        return [a for a in self.alerts if a["state"] == "firing"]


def prometheus_url() -> str:
    return os.environ.get(URL_ENV, "").rstrip("/")


def read_alerts(*, timeout_s: float = 2.0) -> AlertsRead:
    """Firing and pending alerts, firing first; never raises (the console must load with
    Prometheus down - that itself is said on the page)."""
    url = prometheus_url()
    if not url:
        return AlertsRead("", False, f"no Prometheus configured ({URL_ENV} is not set)", [])
    try:
        with urllib.request.urlopen(url + "/api/v1/alerts", timeout=timeout_s) as resp:  # noqa: S310 (operator-set URL)
            body = json.loads(resp.read())
    except (OSError, ValueError) as exc:
        return AlertsRead(url, False, f"Prometheus at {url} did not answer: {exc}", [])
    out = []
    for a in body.get("data", {}).get("alerts", []):
        labels = dict(a.get("labels", {}))
        ann = dict(a.get("annotations", {}))
        out.append(
            {
                "name": labels.pop("alertname", ""),
                "state": a.get("state", ""),
                "severity": labels.pop("severity", ""),
                "labels": labels,
                "summary": ann.get("summary", ""),
                "description": ann.get("description", ""),
                "runbook": ann.get("runbook_url", ""),
                "active_at": a.get("activeAt", ""),
            }
        )
    out.sort(key=lambda a: (a["state"] != "firing", a["severity"] != "page", a["name"]))
    return AlertsRead(url, True, "", out)
