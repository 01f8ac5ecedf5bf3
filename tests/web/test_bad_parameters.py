"""Issue 21 N7: a NUL byte, a 10 kB value or invalid UTF-8 in any parameter of any list
view or API filter answers 400 with a message in words - never a 500, never a query."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.web import helpers

# Rolled back, not flushed, after each test (a flush of every table was ~0.45 CPU s a test):
# nothing here needs a commit - no other connection, thread or process reads the rows, and
# the code defers nothing to on_commit (ADR R1); deferred constraints are still checked.
pytestmark = pytest.mark.django_db

# (role, path, parameters): every list view and API filter, each parameter it reads.
LISTS: list[tuple[str, str, tuple[str, ...]]] = [
    ("recruiter", "/", ("q", "state", "channel", "since", "until", "page")),
    ("recruiter", "/candidates/", ("q", "all", "page")),
    ("hiring_manager", "/candidates/", ("q",)),
    ("operator", "/ops/jobs/", ("id", "task", "status", "queue", "args")),
    ("operator", "/ops/", ("x",)),
    ("recruiter", "/requisitions/", ("x",)),
    ("recruiter", "/upload/", ("x",)),
]
API: list[tuple[str, str]] = [
    ("recruiter", "/api/candidates/{cid}"),
    ("recruiter", "/api/intake/{raw}"),
    ("operator", "/api/jobs/1"),
]

BAD = {
    "nul": "%00",
    "nul-inside": "ab%00cd",
    "10kB": "x" * 10_240,
    "bad-utf8": "%ff%fe",
}


@pytest.fixture
def ids() -> dict[str, int]:
    att = helpers.parsed_ok()
    cid = helpers.candidate_from(att, name="Nul Tester", emails=("nul@example.org",))
    return {"cid": cid, "raw": att.raw_intake_id}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_every_list_view_refuses_a_bad_value_with_a_message(login: Any, kind: str) -> None:
    for role, path, params in LISTS:
        c = login(role)
        for param in params:
            res = c.get(f"{path}?{param}={BAD[kind]}")
            assert res.status_code == 400, (role, path, param, kind, res.status_code)
            page = res.content.decode()
            assert 'role="alert"' in page, (path, param)
            if kind.startswith("nul"):
                assert f"“{param}” contains a NUL character" in page
            elif kind == "10kB":
                assert f"“{param}” is too long: at most 1,000 characters" in page
            else:
                assert "not valid text" in page
        # A NUL in a parameter's name is refused too.
        assert c.get(f"{path}?a%00b=1").status_code == 400


@pytest.mark.parametrize("kind", sorted(BAD))
def test_the_api_refuses_a_bad_value_in_its_error_shape(login: Any, ids: dict[str, int], kind: str) -> None:
    for role, path in API:
        res = login(role).get(path.format(**ids) + f"?q={BAD[kind]}")
        assert res.status_code == 400, (path, kind)
        body = json.loads(res.content)
        assert body["code"] == "bad_parameter" and body["error"]


def test_good_values_still_work(login: Any, ids: dict[str, int]) -> None:
    c = login("recruiter")
    assert c.get("/?q=cv&state=attention").status_code == 200
    assert c.get("/candidates/?q=" + "n" * 1000).status_code == 200  # at the limit
    assert c.get("/candidates/?q=%C3%A9l%C3%A8ve").status_code == 200  # UTF-8 accents
    assert login("operator").get("/ops/jobs/?queue=ingest&args=attachment_id=1").status_code == 200


def test_a_nul_in_a_form_field_is_refused_not_a_500(client: Any, users: dict[str, Any]) -> None:
    # The sign-in form reached the throttle's query with the raw user name.
    res = client.post("/login/", {"username": "admin\x00", "password": "x"})
    assert res.status_code == 400 and "contains a NUL character" in res.content.decode()
    att = helpers.parse_failed()
    client.force_login(users["recruiter"])
    res = client.post(f"/documents/{att.pk}/discard", {"reason": "spam\x00"})
    assert res.status_code == 400
    assert helpers.reload(att).state == "parse_failed"
