"""The container stage: the compose stack from freshly built images, exercised end to end.

Skipped unless ATS_CONTAINER_TESTS=1 (`just compose-smoke` sets it after `just images`), so
`just test` on a machine without podman behaves exactly as before. Needs root (rootful
podman, the firewall rule) and CONTAINERS_CONF from scripts/containers/env.sh.
ATS_COMPOSE_REUSE=1 keeps a running stack (and leaves it up) - for iterating on the tests;
ATS_CONTAINER_SKIP_BUILD=1 skips the image build the session starts with.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]

ENABLED = os.environ.get("ATS_CONTAINER_TESTS") == "1"
REUSE = os.environ.get("ATS_COMPOSE_REUSE") == "1"
WEB_PORT = int(os.environ.get("ATS_COMPOSE_WEB_PORT", "18000"))
SMOKE_USER = "smoke-" + uuid.uuid4().hex[:8]
SMOKE_PASSWORD = "smoke-" + uuid.uuid4().hex


# The session's first test carries the image build and the stack start (minutes on a
# contended CI host); the suite-wide 300 s pytest-timeout would cut them off.
STAGE_TIMEOUT_S = 1800


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if ENABLED:
        for item in items:
            if "tests/containers/" in str(item.fspath):
                item.add_marker(pytest.mark.timeout(STAGE_TIMEOUT_S))
        return
    skip = pytest.mark.skip(reason="container stage: set ATS_CONTAINER_TESTS=1 (just compose-smoke)")
    for item in items:
        if "tests/containers/" in str(item.fspath):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def _settings_for_in_process_calls() -> None:
    """Override tests/conftest.py's autouse fixture: these tests talk to containers only."""
    return None


def _podman_environment() -> None:
    """CONTAINERS_CONF & co. from scripts/containers/env.sh, when the caller did not source it
    (e.g. `ATS_CONTAINER_TESTS=1 just test`)."""
    if os.environ.get("CONTAINERS_CONF"):
        return
    out = subprocess.run(
        ["bash", "-c", ". scripts/containers/env.sh && env -0"],
        cwd=REPO,
        capture_output=True,
        check=True,
        timeout=30,
    ).stdout
    for item in out.split(b"\0"):
        key, _, value = item.decode().partition("=")
        if key in {"CONTAINERS_CONF", "BUILDAH_FORMAT"}:
            os.environ[key] = value


@pytest.fixture(scope="session")
def stack() -> Iterator[Any]:
    from ats.devtools.compose_stack import Stack

    _podman_environment()
    if not REUSE and os.environ.get("ATS_CONTAINER_SKIP_BUILD") != "1":
        # Fresh images every run (layer-cached: seconds when nothing changed).
        subprocess.run([str(REPO / "scripts" / "containers" / "images.sh")], cwd=REPO, check=True, timeout=3600)
    s = Stack()
    started = time.monotonic()
    if not REUSE:
        s.down(volumes=True)
        s.up()
    s.up_seconds = time.monotonic() - started  # type: ignore[attr-defined]
    yield s
    if not REUSE:
        s.down(volumes=True)


@dataclass
class WebClient:
    """A recruiter's session against the containerised web, through its published port."""

    base: str
    opener: urllib.request.OpenerDirector
    jar: http.cookiejar.CookieJar

    def _csrf(self) -> str:
        return next(c.value for c in self.jar if c.name == "csrftoken")

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None) -> Any:
        req = urllib.request.Request(self.base + path, data=body, method=method, headers=headers or {})
        with self.opener.open(req, timeout=60) as resp:
            return json.loads(resp.read())

    def login(self, user: str, password: str) -> None:
        with self.opener.open(self.base + "/login/", timeout=30) as resp:
            page = resp.read().decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert token, "login page has no CSRF token"
        form = urllib.parse.urlencode(
            {"username": user, "password": password, "csrfmiddlewaretoken": token.group(1), "next": "/healthz"}
        ).encode()
        req = urllib.request.Request(self.base + "/login/", data=form, method="POST", headers={"Referer": self.base})
        with self.opener.open(req, timeout=30) as resp:
            resp.read()
        assert any(c.name == "sessionid" for c in self.jar), "login did not create a session"

    def upload(self, files: dict[str, bytes]) -> dict[str, Any]:
        boundary = uuid.uuid4().hex
        parts = []
        for filename, data in files.items():
            parts.append(
                f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="{filename}"\r\n'
                "Content-Type: application/octet-stream\r\n\r\n".encode()
                + data
                + b"\r\n"
            )
        body = b"".join(parts) + f"--{boundary}--\r\n".encode()
        headers = {
            "Content-Type": f"multipart/form-data; boundary={boundary}",
            "X-CSRFToken": self._csrf(),
            "Referer": self.base,
        }
        result: dict[str, Any] = self.request("POST", "/api/intake/upload", body, headers)
        return result

    def intake(self, raw_intake_id: int) -> dict[str, Any]:
        result: dict[str, Any] = self.request("GET", f"/api/intake/{raw_intake_id}")
        return result

    def wait_terminal(self, raw_intake_ids: list[int], timeout: float = 300) -> dict[str, dict[str, Any]]:
        """{filename: attachment status} once every attachment is terminal."""
        deadline = time.monotonic() + timeout
        while True:
            attachments = [a for rid in raw_intake_ids for a in self.intake(rid)["attachments"]]
            if attachments and all(a["terminal"] for a in attachments):
                return {a["filename"]: a for a in attachments}
            if time.monotonic() > deadline:
                pending = {a["filename"]: a["state"] for a in attachments if not a["terminal"]}
                raise AssertionError(f"not terminal after {timeout:.0f} s: {pending}")
            time.sleep(1.0)


@pytest.fixture(scope="session")
def web(stack: Any) -> WebClient:
    from ats.devtools.compose_stack import podman

    # An admin in the containerised database, created through the web image's own CLI.
    podman(
        "exec",
        "-e",
        f"DJANGO_SUPERUSER_PASSWORD={SMOKE_PASSWORD}",
        stack.container("web"),
        "ats",
        "createsuperuser",
        "--noinput",
        "--username",
        SMOKE_USER,
        "--email",
        "smoke@example.invalid",
    )
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    client = WebClient(f"http://127.0.0.1:{WEB_PORT}", opener, jar)
    client.login(SMOKE_USER, SMOKE_PASSWORD)
    return client
