"""The authorization matrix, generated from the URL conf.

Every URL the project routes is requested as anonymous, hiring manager, recruiter,
operator and admin, and the answer is checked against the rule the view declares
(`ats.web.access.requires` / `public`) and iam's table. A view without a declared rule
fails the test, so a new URL cannot ship unguarded.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from ats.iam.policy import RULES, Role
from ats.selfid import api as selfid_api
from ats.web.access import LOGIN_ONLY
from tests.web import helpers

# Rolled back, not flushed, after each test (a flush of every table was ~0.45 CPU s a test):
# nothing here needs a commit - no other connection, thread or process reads the rows, and
# the code defers nothing to on_commit (ADR R1); deferred constraints are still checked.
pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "hiring_manager", "recruiter", "operator", "operator_readonly", "admin")
# Included apps with their own gate, checked as a whole at their root.
GATED_INCLUDES = {"admin/": "admin.site"}


def _flatten(patterns: list[Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for p in patterns:
        route = prefix + str(p.pattern)
        if isinstance(p, URLResolver):
            if route in GATED_INCLUDES:
                out.append((route, GATED_INCLUDES[route]))
                continue
            out.extend(_flatten(p.url_patterns, route))
        elif isinstance(p, URLPattern):
            out.append((route, p.callback))
    return out


def _rule(callback: Any) -> Any:
    if isinstance(callback, str):
        return callback
    if not hasattr(callback, "ats_rule"):
        return "MISSING"
    return callback.ats_rule


def test_every_routed_view_declares_its_rule() -> None:
    missing = [route for route, cb in _flatten(get_resolver().url_patterns) if _rule(cb) == "MISSING"]
    assert missing == [], f"views without @requires/@public: {missing}"


@pytest.fixture
def ids(users: dict[str, Any]) -> dict[str, Any]:
    from ats.jobs import ops_api as jobs_ops

    att = helpers.parse_failed()
    cand_id = helpers.candidate_from(helpers.parsed_ok(), name="Jane Doe", emails=("jane@example.org",))
    job_id = jobs_ops.job_search(jobs_ops.JobFilter(args_key="attachment_id", args_value=str(att.pk)))[0]["id"]
    return {
        "attachment_id": att.pk,
        "raw_intake_id": att.raw_intake_id,
        "candidate_id": cand_id,
        "job_id": job_id,
        "merge_id": 1,  # POST-only views: GET answers 405 after the check, never acts
        "change_id": 1,
        # No requisition/application exists: allowed roles get 404 after the check.
        "requisition_id": 999_999,
        "application_id": 999_999,
        "queue": "parse",
        "action": "__probe__",  # an action no view knows: never performs anything
        "page_no": 1,  # no page images exist: allowed roles get 404 after the check
        "token": selfid_api.selfid_token(candidate_id=cand_id),  # the public self-identification form
    }


def _concrete(route: str, ids: dict[str, Any]) -> str:
    def sub(m: re.Match[str]) -> str:
        return str(ids[m.group(2)])

    return "/" + re.sub(r"<(?:(\w+):)?(\w+)>", sub, route).lstrip("^").rstrip("$")


def _allowed(rule: str, role: str) -> bool:
    if role == "anonymous":
        return False
    if rule == LOGIN_ONLY:
        return True
    return Role(role) in RULES[rule]


def test_matrix(client: Any, users: dict[str, Any], ids: dict[str, Any]) -> None:
    rows = _flatten(get_resolver().url_patterns)
    checked = 0
    failures = []
    for route, cb in rows:
        rule = _rule(cb)
        url = _concrete(route, ids)
        is_api = url.startswith("/api/")
        for role in ROLES:
            client.logout()
            if role != "anonymous":
                client.force_login(users[role])
            res = client.get(url)
            code = res.status_code
            checked += 1
            if rule is None:  # public
                ok = code in (200, 302, 405) and "/login/?next" not in res.get("Location", "")
            elif rule == "admin.site":
                ok = code == 200 if role == "admin" else (code == 302 and "/admin/login/" in res["Location"])
            elif role == "anonymous":
                ok = code == 401 if is_api else (code == 302 and res["Location"].startswith("/login/?next="))
            elif _allowed(rule, role):
                # 405: POST-only views answer GET after the check; 404: the probe action.
                ok = code in (200, 302, 404, 405)
            else:
                ok = code == 403
            if not ok:
                failures.append(f"{role:15} GET {url:40} rule={rule!s:16} -> {code}")
    assert failures == [], "\n".join(failures)
    # Keeps the matrix honest: it really covers every route for every role.
    assert checked == len(rows) * len(ROLES) and len(rows) >= 20
    print(f"authorization matrix: {len(rows)} URLs x {len(ROLES)} roles = {checked} checks")


def test_post_actions_are_checked_before_they_act(client: Any, users: dict[str, Any]) -> None:
    """Denied roles cannot act: the document stays as it was and nothing is audited."""
    att = helpers.parse_failed()
    for role in ("hiring_manager", "operator"):
        client.force_login(users[role])
        res = client.post(f"/documents/{att.pk}/reparse")
        assert res.status_code == 403
    client.logout()
    assert client.post(f"/documents/{att.pk}/reparse").status_code == 302
    assert helpers.reload(att).state == "parse_failed"
    assert [a for a, _ in helpers.audit_actions(att.pk) if a.startswith("intake.reparse")] == []
    client.force_login(users["recruiter"])
    assert client.post("/ops/jobs/1/cancel").status_code == 403
