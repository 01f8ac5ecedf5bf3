"""`just up`'s Prometheus: started the way `just up` starts it (ats.devtools.up's
start_prometheus, on a free port here), it has every alert rule the k8s PrometheusRule
ships loaded, and the console shows what fires in it."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

import pytest

from ats.devtools import prometheus_local, up
from ats.devtools._localproc import free_tcp_port

pytestmark = pytest.mark.skipif(prometheus_local.prometheus_path() is None, reason="prometheus is not installed")


def test_prometheus_as_just_up_starts_it_has_every_shipped_alert_rule_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(up.env, "STATE_DIR", tmp_path)
    environ = {"ATS_PROMETHEUS_PORT": str(free_tcp_port())}
    with contextlib.ExitStack() as stack:
        started = up.start_prometheus(stack, environ, {"web": "127.0.0.1:1", "worker-default": "127.0.0.1:2"})
        assert started is not None
        url, loaded = started
        assert environ["ATS_PROMETHEUS_URL"] == url == f"http://127.0.0.1:{environ['ATS_PROMETHEUS_PORT']}"
        prom = prometheus_local.PrometheusLocal(state_dir=tmp_path / "prometheus", port=int(url.rsplit(":", 1)[1]))
        shipped = prometheus_local.shipped_alert_names()
        assert len(shipped) >= 25
        assert prom.loaded_alert_names() == shipped
        assert loaded == len(shipped)
        config = prom.api("/api/v1/status/config")["data"]["yaml"]
        assert "job_name: ats-web" in config and "job_name: ats-worker-default" in config  # the stack's exporters
    assert f"Prometheus on {url} ({loaded} alert rules" in capsys.readouterr().out
    banner = up.banner("http://127.0.0.1:8000/", tmp_path / "none", started)
    assert f"Prometheus:  {url}" in banner and "/ops/alerts" in banner


@pytest.mark.django_db
def test_the_console_shows_alerts_firing_in_prometheus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, client: Any, django_user_model: Any
) -> None:
    from ats.iam import api as iam_api

    always = {
        "name": "test-always",
        "rules": [
            {
                "alert": "TestAlwaysFiring",
                "expr": "vector(1)",
                "labels": {"severity": "page"},
                "annotations": {"summary": "A test alert that always fires."},
            }
        ],
    }
    prom = prometheus_local.PrometheusLocal(
        state_dir=tmp_path, port=free_tcp_port(), evaluation_interval="1s", extra_groups=[always]
    )
    client.force_login(iam_api.user_create(username="op-alerts", password="pw-for-tests-1234", role="operator"))
    monkeypatch.setenv("ATS_PROMETHEUS_URL", "http://127.0.0.1:1")  # nothing listens there
    assert "did not answer" in client.get("/ops/alerts").content.decode()
    with prom:
        monkeypatch.setenv("ATS_PROMETHEUS_URL", prom.url)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if any(a["state"] == "firing" for a in prom.api("/api/v1/alerts")["data"]["alerts"]):
                break
            time.sleep(0.5)
        page = client.get("/ops/alerts").content.decode()
        assert "TestAlwaysFiring" in page and "A test alert that always fires." in page and "<strong>firing" in page
        console = client.get("/ops/").content.decode()
        assert "1 alert firing:" in console and "TestAlwaysFiring" in console
