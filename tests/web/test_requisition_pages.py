"""Requisition and application pages: ranking, the explained score, who sees what, AI."""

from __future__ import annotations

import re
from typing import Any

import pytest

from ats.scoring import api as scoring_api
from tests.scoring import helpers as sh

# Rolled back, not flushed, after each test (a flush of every table was ~0.45 CPU s a test):
# nothing here needs a commit - no other connection, thread or process reads the rows, and
# the code defers nothing to on_commit (ADR R1); deferred constraints are still checked.
pytestmark = pytest.mark.django_db


@pytest.fixture
def ranked() -> dict[str, Any]:
    req = sh.requisition(must="Python,PostgreSQL", nice="Kubernetes", min_years=3, title="Backend")
    other = sh.requisition(must="Java", nice="", min_years=None, title="Java dev")
    strong = sh.candidate(skills=("Python", "PostgreSQL", "Kubernetes"), years=6, name="Strong")
    weak = sh.candidate(skills=("Python",), prose_skills=("PostgreSQL",), years=1, name="Weak")
    apps = {"strong": sh.apply(strong, req.requisition_id), "weak": sh.apply(weak, req.requisition_id)}
    for app_id in apps.values():
        assert scoring_api.application_score(application_id=app_id) == "scored"
    return {"req": req.requisition_id, "other": other.requisition_id, **apps}


def _scores(html: str) -> list[int]:
    return [int(s) for s in re.findall(r'<td class="score"[^>]*>(\d+)</td>', html)]


def test_recruiter_sees_ranked_applications(login: Any, ranked: dict[str, Any]) -> None:
    client = login("recruiter")
    res = client.get("/requisitions/")
    assert res.status_code == 200
    html = res.content.decode()
    assert "Backend" in html and "Java dev" in html
    res = client.get(f"/requisitions/{ranked['req']}/")
    html = res.content.decode()
    assert res.status_code == 200
    scores = _scores(html)
    assert len(scores) == 2 and scores == sorted(scores, reverse=True) and scores[0] > scores[1]
    # The stronger candidate's application is listed first.
    strong_at, weak_at = (html.index(f'href="/applications/{ranked[k]}/"') for k in ("strong", "weak"))
    assert strong_at < weak_at
    assert "Python, PostgreSQL" in html  # the current version's criteria


def test_application_explanation_sums_to_score(login: Any, ranked: dict[str, Any]) -> None:
    client = login("recruiter")
    res = client.get(f"/applications/{ranked['weak']}/")
    assert res.status_code == 200
    html = res.content.decode()
    score = int(re.search(r'<dd id="score">(\d+) / 100', html).group(1))  # type: ignore[union-attr]
    contributions = [int(c) for c in re.findall(r'<td class="contribution"[^>]*>(\d+)', html)]
    assert len(contributions) == 4  # two must-haves, one nice-to-have, years
    assert sum(contributions) == score
    assert 0 < score < 100
    assert "skill.text" in html  # evidence is shown
    assert 'id="results"' in html


def test_hiring_manager_sees_only_assigned(login: Any, users: dict[str, Any], ranked: dict[str, Any]) -> None:
    scoring_api.requisition_assign(requisition_id=ranked["other"], user_id=users["hiring_manager"].pk, actor=sh.ACTOR)
    client = login("hiring_manager")
    html = client.get("/requisitions/").content.decode()
    assert "Java dev" in html and "Backend" not in html
    assert client.get(f"/requisitions/{ranked['req']}/").status_code == 404
    assert client.get(f"/applications/{ranked['strong']}/").status_code == 404
    assert client.get(f"/requisitions/{ranked['other']}/").status_code == 200


def test_ai_unavailable_when_disabled(login: Any, ranked: dict[str, Any]) -> None:
    client = login("recruiter")
    html = client.get(f"/applications/{ranked['strong']}/").content.decode()
    assert '<p id="ai-unavailable">AI unavailable: no AI provider is configured.' in html  # why, and how to fix
    assert "Ask AI" not in html  # no button to a provider that is not there
    # Posting anyway records an unavailable run; the page shows "AI unavailable", never text.
    res = client.post(f"/applications/{ranked['strong']}/explain")
    assert res.status_code == 302 and "ai_run=" in res["Location"]
    html = client.get(res["Location"]).content.decode()
    assert 'id="ai-unavailable">AI unavailable' in html and 'id="ai-text"' not in html


def test_upload_page_lists_requisitions(login: Any, ranked: dict[str, Any]) -> None:
    html = login("recruiter").get("/upload/").content.decode()
    assert f'<option value="{ranked["req"]}">Backend' in html
    assert f'<option value="{ranked["other"]}">Java dev' in html


def test_ai_enabled_button_asks_and_page_shows_the_answer(settings: Any, login: Any, ranked: dict[str, Any]) -> None:
    from ats.ai import api as ai_api
    from tests.ai.fake_provider import FakeProvider

    with FakeProvider() as fake:
        settings.AI_BASE_URL = fake.url
        settings.AI_MODEL = "test-model"
        settings.AI_API_KEY = "sk-test"
        settings.AI_TIMEOUT_S = 0.5
        client = login("recruiter")
        url = f"/applications/{ranked['strong']}/"
        html = client.get(url).content.decode()
        assert "Ask AI to explain this score" in html and "ai-unavailable" not in html
        res = client.post(f"{url}explain")
        assert res.status_code == 302
        run_id = int(res["Location"].rsplit("ai_run=", 1)[1])
        html = client.get(res["Location"]).content.decode()
        assert 'id="ai-pending">Request pending' in html  # the run row exists before any call
        # The worker's step, in-process: the page then shows the provider's answer.
        assert ai_api.ai_run_execute(ai_run_id=run_id) == "succeeded"
        html = client.get(res["Location"]).content.decode()
        assert '<p id="ai-text">The score reflects Python found.</p>' in html
        assert len(fake.requests) == 1
        # Another user cannot read this run through the page.
        other = login("admin").get(res["Location"]).content.decode()
        assert "ai-text" not in other


def test_failed_application_shows_its_reason_never_a_score(login: Any, ranked: dict[str, Any]) -> None:
    gone = sh.apply(sh.candidate(skills=("Python",), name="Gone"), ranked["req"])
    scoring_api.application_mark_failed(application_id=gone, code="candidate_erased", reason="candidate was erased")
    client = login("recruiter")
    html = client.get(f"/requisitions/{ranked['req']}/").content.decode()
    assert len(_scores(html)) == 2  # the failed one has no score...
    assert "no score: candidate was erased" in html  # ...but its reason, ranked last
    assert html.index(f'href="/applications/{ranked["weak"]}/"') < html.index(f'href="/applications/{gone}/"')
    html = client.get(f"/applications/{gone}/").content.decode()
    assert '<dd id="state" data-state="scoring_failed">Could not be scored</dd>' in html
    assert '<dd id="score">none - candidate was erased</dd>' in html and 'id="explanation"' not in html


def test_pages_name_people_not_record_numbers_and_keep_settings_for_admins(
    login: Any, ranked: dict[str, Any], users: dict[str, Any]
) -> None:
    """Issue 23 item 3/8, found using the pages as a recruiter: no "Application #N",
    "Candidate #N", extraction counter or JSON link on the reader's pages; the candidate's
    status in words; how to configure AI (environment variables) only for those who run
    the deployment - a recruiter is told who can."""
    from ats.candidates.models import Candidate

    client = login("recruiter")
    html = client.get(f"/requisitions/{ranked['req']}/").content.decode()
    assert "Application #" not in html
    assert re.search(r'class="app-link">Score and decisions<span class="visually-hidden"> for Strong</span>', html)
    strong = Candidate.objects.get(display_name="Strong").pk
    page = client.get(f"/candidates/{strong}").content.decode()
    for internal in ("Application #", f"#{strong}<", "Extraction version", f'href="/api/candidates/{strong}"'):
        assert internal not in page, internal
    assert re.search(r'id="candidate-status">Active<', page)
    listing = client.get("/candidates/").content.decode()
    assert "Extraction version" not in listing and "<td>Active</td>" in listing
    assert "Score and decisions" in page
    app = client.get(f"/applications/{ranked['strong']}/").content.decode()
    assert f"#{ranked['strong']}<" not in app
    assert "An administrator can set one up." in app and "ATS_AI_BASE_URL" not in app
    client.force_login(users["admin"])
    admin = client.get(f"/applications/{ranked['strong']}/").content.decode()
    assert "ATS_AI_BASE_URL" in admin and "An administrator can set one up." not in admin


def test_the_ranking_page_makes_as_many_queries_for_12_applications_as_for_2(login: Any) -> None:
    """bench/page_load.py found the ranked requisition the slowest page (0.46 s to the first
    byte with 100 applications): following merges cost one query per application. Merges
    are now followed for all of them at once, one query per hop."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    req = sh.requisition(title="Backend").requisition_id
    client = login("recruiter")

    def queries() -> int:
        client.get(f"/requisitions/{req}/")  # warm: session, caches
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(f"/requisitions/{req}/").status_code == 200
        return len(ctx.captured_queries)

    for i in range(2):
        sh.apply(sh.candidate(skills=("Python",), name=f"Few {i}", email=f"few{i}@x.example"), req)
    few = queries()
    for i in range(10):
        sh.apply(sh.candidate(skills=("Python",), name=f"Many {i}", email=f"many{i}@x.example"), req)
    assert queries() == few
