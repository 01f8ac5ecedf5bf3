"""Issue 21 N8: the web pod of the production overlays is secure by default - Secure session
and CSRF cookies, the ingress's X-Forwarded-Proto believed, HSTS on HTTPS answers.

The test renders the overlay, builds the web container's environment exactly as the kubelet
would (its `env`, its ConfigMaps through `envFrom`; stand-ins for the externally provisioned
Secrets), loads the real Django settings with that environment and nothing else in a fresh
process, and asks a request through the real middleware stack."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tests.deploy.helpers import REPO, container, name, of_kind, workload

# Stand-ins for secretKeyRef values (the Secrets are provisioned out of band).
SECRET_STAND_INS = {
    "DATABASE_URL": "postgresql://ats:x@127.0.0.1:1/ats",
    "DATABASE_URL_POOLED": "postgresql://ats:x@127.0.0.1:2/ats",
    "ATS_SECRET_KEY": "s" * 64,
    "REDIS_URL": "",
}

PROBE = r"""
import json, django
django.setup()
from django.conf import settings
from django.test import Client
c = Client(SERVER_NAME="localhost")
https = c.get("/login/", headers={"X-Forwarded-Proto": "https"})
plain = c.get("/healthz")
cookie = https.cookies.get("csrftoken")
print(json.dumps({
    "session_secure": settings.SESSION_COOKIE_SECURE,
    "csrf_secure": settings.CSRF_COOKIE_SECURE,
    "proxy_header": list(getattr(settings, "SECURE_PROXY_SSL_HEADER", None) or []),
    "hsts_seconds": settings.SECURE_HSTS_SECONDS,
    "https_status": https.status_code,
    "https_hsts": https.headers.get("Strict-Transport-Security"),
    "plain_hsts": plain.headers.get("Strict-Transport-Security"),
    "csrf_cookie_secure": bool(cookie and cookie["secure"]),
    "hashers": settings.PASSWORD_HASHERS,
}))
"""


def web_environment(docs: list[dict[str, Any]]) -> dict[str, str]:
    _, template = workload(docs, "web")
    web = container(template["spec"], "web")
    config_maps = {name(cm): cm.get("data") or {} for cm in of_kind(docs, "ConfigMap")}
    out: dict[str, str] = {}
    for source in web.get("envFrom", []):
        if "configMapRef" in source:
            out.update(config_maps[source["configMapRef"]["name"]])
        assert "secretRef" not in source, "web takes secrets by key, each named"
    for item in web.get("env", []):
        if "value" in item:
            out[item["name"]] = str(item["value"])
        elif "secretKeyRef" in (item.get("valueFrom") or {}):
            # By the Secret's key, not the variable's name: the pooled overlay hands the
            # direct DATABASE_URL to ATS_SESSION_DATABASE_URL.
            out[item["name"]] = SECRET_STAND_INS[item["valueFrom"]["secretKeyRef"]["key"]]
        elif "configMapKeyRef" in (item.get("valueFrom") or {}):
            ref = item["valueFrom"]["configMapKeyRef"]
            out[item["name"]] = config_maps[ref["name"]][ref["key"]]
    return out


def settings_under(environment: dict[str, str]) -> dict[str, Any]:
    # Nothing from this process's environment (the test plugin opts out of the secure
    # defaults): only what the pod would hold, plus what Python needs to run.
    proc_env = {
        **environment,
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(REPO / "shared"),
        "DJANGO_SETTINGS_MODULE": "ats.config.settings",
        "ATS_STATE_DIR": "/tmp/ats-n8-probe",
    }
    proc = subprocess.run(
        [sys.executable, "-c", PROBE], env=proc_env, capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.parametrize("overlay_name", ["production", "scaled"])
def test_production_web_settings_are_secure(rendered: dict[str, list[dict[str, Any]]], overlay_name: str) -> None:
    environment = web_environment(rendered[overlay_name])
    assert "ATS_DEV_PLAIN_HTTP" not in environment  # the development opt-out never ships
    got = settings_under(environment)
    assert got["session_secure"] is True and got["csrf_secure"] is True
    assert got["proxy_header"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert got["hsts_seconds"] >= 180 * 24 * 3600
    assert got["https_status"] == 200
    assert got["https_hsts"] and got["https_hsts"].startswith(f"max-age={got['hsts_seconds']}")
    assert got["csrf_cookie_secure"] is True
    # Plain http (the kubelet's probes) is not HTTPS: no HSTS header claimed there.
    assert got["plain_hsts"] is None
    # Passwords: Django's PBKDF2 first, and the test suite's cheap MD5 hasher (put first by
    # the test-only app, tests/testapp) neither used nor accepted.
    assert got["hashers"][0] == "django.contrib.auth.hashers.PBKDF2PasswordHasher"
    assert not any("MD5" in h for h in got["hashers"]), got["hashers"]


def test_the_development_opt_out_is_explicit(rendered: dict[str, list[dict[str, Any]]]) -> None:
    environment = {**web_environment(rendered["production"]), "ATS_DEV_PLAIN_HTTP": "1"}
    got = settings_under(environment)
    assert got["session_secure"] is False and got["proxy_header"] == [] and got["https_hsts"] is None


def test_the_fast_test_hasher_comes_from_the_test_only_app() -> None:
    """What puts the cheap hasher first is tests.testapp (so the proof above, its absence in
    production, is about the right place): in this test process, which loads that app as
    every process of a test stack does, it hashes and is first."""
    from django.conf import settings
    from django.contrib.auth.hashers import get_hashers, make_password

    assert "tests.testapp" in settings.INSTALLED_APPS
    assert get_hashers()[0].algorithm == "md5"
    assert make_password("s3cret").startswith("md5$")
