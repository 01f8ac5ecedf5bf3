"""Issue 23 items 3-5 in the web (Django test client; the browser journeys are in
journeys/test_browser.py): requisitions created, edited (rescore status with its failures by
name), closed and assigned in the web; the points shown are the explanation's; people's
decisions on the application and candidate pages and in bulk, with the actor's name;
names instead of numbers (ranking, merge journal, upload outcome JSON); a merged-away
record ranked once under its survivor."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connection

from ats.candidates import api as candidates_api
from ats.scoring import api as scoring_api
from ats.scoring.models import ApplicationDecision
from tests.scoring import helpers as sh
from tests.web import helpers

# Rolled back, not flushed, after each test (a flush of every table was ~0.45 CPU s a test):
# nothing here needs a commit - no other connection, thread or process reads the rows, and
# the code defers nothing to on_commit (ADR R1); deferred constraints are still checked.
pytestmark = pytest.mark.django_db


@pytest.fixture
def named(users: dict[str, Any]) -> dict[str, Any]:
    for role, (first, last) in {"recruiter": ("Ann", "Recruiter"), "hiring_manager": ("Hal", "Manager")}.items():
        users[role].first_name, users[role].last_name = first, last
        users[role].save()
    return users


@pytest.fixture
def scored() -> dict[str, Any]:
    req = sh.requisition(must="Python,PostgreSQL", nice="", min_years=None, title="Backend")
    strong = sh.candidate(skills=("Python", "PostgreSQL"), name="Sam Strong")
    weak = sh.candidate(skills=("Python",), name="Wes Weak")
    apps = {"strong": sh.apply(strong, req.requisition_id), "weak": sh.apply(weak, req.requisition_id)}
    for app_id in apps.values():
        assert scoring_api.application_score(application_id=app_id) == "scored"
    return {"req": req.requisition_id, "strong_c": strong, "weak_c": weak, **apps}


def _audit(object_type: str, object_id: int) -> list[tuple[str, str]]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT action, actor FROM audit_event WHERE object_type = %s AND object_id = %s ORDER BY id",
            [object_type, str(object_id)],
        )
        return [(a, b) for a, b in cur.fetchall()]


# --- item 4: requisitions in the web -------------------------------------------------


def test_new_requisition_contract(login: Any, named: dict[str, Any]) -> None:
    c = login("recruiter")
    listing = c.get("/requisitions/").content.decode()
    assert re.search(r'<a href="/requisitions/new/"[^>]*>New requisition</a>', listing)
    form = c.get("/requisitions/new/").content.decode()
    for name in ("title", "must_have", "nice_to_have", "min_years"):
        assert f'name="{name}"' in form
    res = c.post(
        "/requisitions/new/",
        {"title": "Data engineer", "must_have": "python, postgresql", "nice_to_have": "Kubernetes", "min_years": "2.5"},
    )
    req = next(r for r in scoring_api.requisition_list(actor=sh.ACTOR) if r["title"] == "Data engineer")
    assert res.status_code == 303 and res["Location"] == f"/requisitions/{req['id']}/"
    assert (req["must_have"], req["nice_to_have"], req["min_years"]) == (["Python", "PostgreSQL"], ["Kubernetes"], 2.5)
    assert ("requisition.created", f"user:{named['recruiter'].pk}") in _audit("requisition", req["id"])
    # The title alone is enough (a draft); optional fields may be left out entirely.
    res = c.post("/requisitions/new/", {"title": "Just a title"})
    assert res.status_code == 303
    # Refusals say why, in the form, and create nothing.
    res = c.post("/requisitions/new/", {"title": "", "must_have": "Python"})
    assert res.status_code == 400 and "needs a title" in res.content.decode()
    res = c.post("/requisitions/new/", {"title": "X", "must_have": "Pythn"})
    assert res.status_code == 400 and "did you mean Python" in res.content.decode()
    res = c.post("/requisitions/new/", {"title": "X", "must_have": "Python", "min_years": "lots"})
    assert res.status_code == 400 and "must be a number" in res.content.decode()
    assert len(scoring_api.requisition_list(actor=sh.ACTOR)) == 2
    # Hiring managers neither see the link nor create.
    hm = login("hiring_manager")
    assert "New requisition" not in hm.get("/requisitions/").content.decode()
    assert hm.post("/requisitions/new/", {"title": "HM's"}).status_code == 403


def test_points_shown_are_the_explanations(login: Any, scored: dict[str, Any]) -> None:
    c = login("recruiter")
    page = c.get(f"/requisitions/{scored['req']}/").content.decode()
    shown = [int(x) for x in re.findall(r"<li>must-have: \w+: <strong>(\d+)</strong></li>", page)]
    app = scoring_api.application_detail(scored["weak"], actor=sh.ACTOR)
    assert app is not None
    assert shown == [e["max"] for e in app["explanation"]] == [50, 50]
    assert "must_have 70" not in page  # the stored default never shown as if it were used


def test_edit_rescores_and_the_status_names_who_could_not_be_scored(login: Any, scored: dict[str, Any]) -> None:
    gone = sh.candidate(skills=("Python",), name="Gina Gone")
    gone_app = sh.apply(gone, scored["req"])
    scoring_api.application_score(application_id=gone_app)
    c = login("recruiter")
    res = c.post(
        f"/requisitions/{scored['req']}/edit",
        {"title": "Backend", "must_have": "Python", "nice_to_have": "", "min_years": ""},
    )
    assert res.status_code == 303
    status = c.get(f"/requisitions/{scored['req']}/rescore").json()
    assert status["queued"] is True and status["version"] == 2 and status["finished"] is False
    page = c.get(f"/requisitions/{scored['req']}/").content.decode()
    assert "waiting for a worker" in page and 'data-finished="0"' in page
    # The worker's steps, in-process: the coordinator, then each application (one fails).
    from ats.scoring import services

    run = services.rescore_requisition_version(requisition_version_id=_version_id(scored["req"]), job_id=None)
    assert run is not None
    with connection.cursor() as cur:  # the coordinator job itself, as the worker would finish it
        cur.execute("UPDATE procrastinate_jobs SET status = 'succeeded' WHERE task_name = %s", [services.RESCORE])
    mid = c.get(f"/requisitions/{scored['req']}/rescore").json()
    assert mid["queued"] is False and mid["run"]["total"] == 3 and mid["run"]["pending"] == 3 and mid["done"] == 0
    for app_id in (scored["strong"], scored["weak"]):
        services.application_score(application_id=app_id, run_id=run.pk)
    services.rescore_application_exhausted(
        application_id=gone_app, run_id=run.pk, reason_code="candidate_erased", reason="The candidate was erased."
    )
    done = c.get(f"/requisitions/{scored['req']}/rescore").json()
    assert done["finished"] is True and done["run"]["failed"] == 1 and done["done"] == 3
    assert done["run"]["failures"][0]["person_name"] == "Gina Gone"
    page = c.get(f"/requisitions/{scored['req']}/").content.decode()
    summary = re.search(r'<p id="rescore-summary">(.*?)</p>', page)
    assert summary and "1 could not be scored" in summary.group(1)
    assert re.search(rf'<a href="/candidates/{gone}">Gina Gone</a> \(<a href="/applications/{gone_app}/">', page)
    assert "The candidate was erased." in page and 'data-finished="1"' in page


def _version_id(requisition_id: int) -> int:
    req = next(r for r in scoring_api.requisition_list(actor=sh.ACTOR) if r["id"] == requisition_id)
    return int(req["requisition_version_id"])


def test_close_hides_it_from_upload_and_assign_lets_the_manager_in(
    login: Any, named: dict[str, Any], scored: dict[str, Any]
) -> None:
    c = login("recruiter")
    assert f'<option value="{scored["req"]}">' in c.get("/upload/").content.decode()
    assert c.post(f"/requisitions/{scored['req']}/close").status_code == 303
    assert f'<option value="{scored["req"]}">' not in c.get("/upload/").content.decode()
    assert "Closed" in c.get(f"/requisitions/{scored['req']}/").content.decode()
    assert ("requisition.closed", f"user:{named['recruiter'].pk}") in _audit("requisition", scored["req"])
    c.post(f"/requisitions/{scored['req']}/close", {"reopen": "1"})
    assert f'<option value="{scored["req"]}">' in c.get("/upload/").content.decode()

    hm_user = named["hiring_manager"]
    page = c.get(f"/requisitions/{scored['req']}/").content.decode()
    assert f'<option value="{hm_user.pk}">Hal Manager</option>' in page
    assert c.post(f"/requisitions/{scored['req']}/assign", {"user_id": str(named["admin"].pk)}).status_code == 303
    hm = login("hiring_manager")
    assert hm.get(f"/requisitions/{scored['req']}/").status_code == 404  # an admin is no hiring manager
    c = login("recruiter")
    c.post(f"/requisitions/{scored['req']}/assign", {"user_id": str(hm_user.pk)})
    assert "Hiring managers: Hal Manager" in c.get(f"/requisitions/{scored['req']}/").content.decode()
    hm = login("hiring_manager")
    assert hm.get(f"/requisitions/{scored['req']}/").status_code == 200
    assert hm.post(f"/requisitions/{scored['req']}/close").status_code == 403
    c = login("recruiter")
    c.post(f"/requisitions/{scored['req']}/assign", {"user_id": str(hm_user.pk), "remove": "1"})
    assert login("hiring_manager").get(f"/requisitions/{scored['req']}/").status_code == 404


# --- item 5: decisions ----------------------------------------------------------------


def test_decide_on_the_application_page_shows_the_actor_by_name(
    login: Any, named: dict[str, Any], scored: dict[str, Any]
) -> None:
    c = login("recruiter")
    url = f"/applications/{scored['weak']}/"
    res = c.post(f"{url}decide", {"to_stage": "rejected", "reason": "no PostgreSQL"})
    assert res.status_code == 303 and res["Location"] == url
    page = c.get(url).content.decode()
    assert '<dd id="stage" class="stage stage-rejected">Rejected</dd>' in page
    assert '<td data-label="By" class="decided-by">Ann Recruiter</td>' in page and "no PostgreSQL" in page
    d = ApplicationDecision.objects.get(application_id=scored["weak"])
    assert d.actor == f"user:{named['recruiter'].pk}" and d.score is not None and len(d.input_fingerprint) == 64
    assert ("application.decided", f"user:{named['recruiter'].pk}") in _audit("application", scored["weak"])
    # A refusal is a message, nothing recorded.
    page = c.post(f"{url}decide", {"to_stage": "screening", "reason": " "}, follow=True).content.decode()
    assert "needs a reason" in page and ApplicationDecision.objects.count() == 1


def test_unassigned_hiring_manager_gets_404_assigned_one_decides(
    login: Any, named: dict[str, Any], scored: dict[str, Any]
) -> None:
    hm = login("hiring_manager")
    res = hm.post(f"/applications/{scored['strong']}/decide", {"to_stage": "interview", "reason": "good"})
    assert res.status_code == 404 and ApplicationDecision.objects.count() == 0
    res = hm.post(f"/requisitions/{scored['req']}/decide", {"application": [scored["strong"]], "to_stage": "interview"})
    assert res.status_code == 404
    scoring_api.requisition_assign(requisition_id=scored["req"], user_id=named["hiring_manager"].pk, actor=sh.ACTOR)
    res = hm.post(f"/applications/{scored['strong']}/decide", {"to_stage": "interview", "reason": "good"})
    assert res.status_code == 303
    page = hm.get(f"/applications/{scored['strong']}/").content.decode()
    assert "Hal Manager" in page and "Interview" in page
    assert login("operator").post(f"/applications/{scored['strong']}/decide", {}).status_code == 403


def test_bulk_decide_confirms_the_count_then_one_audited_decision_per_row(
    login: Any, named: dict[str, Any], scored: dict[str, Any]
) -> None:
    c = login("recruiter")
    page = c.get(f"/requisitions/{scored['req']}/").content.decode()
    assert f'name="application" value="{scored["strong"]}"' in page
    chosen = {"application": [scored["strong"], scored["weak"]], "to_stage": "screening", "reason": "phone screen"}
    res = c.post(f"/requisitions/{scored['req']}/decide", chosen)
    html = res.content.decode()
    assert res.status_code == 200 and "Move 2 applications to Screening?" in html
    assert "Sam Strong" in html and "Wes Weak" in html
    assert ApplicationDecision.objects.count() == 0  # nothing happens before the confirmation
    # One was already moved by someone else meanwhile: the summary says so, the rest move.
    scoring_api.application_decide(application_id=scored["weak"], to_stage="screening", reason="x", actor=sh.ACTOR)
    res = c.post(f"/requisitions/{scored['req']}/decide", {**chosen, "confirm": "1"}, follow=True)
    html = res.content.decode()
    assert "1 of 2 application(s) moved to Screening." in html and "Wes Weak: the application is already at" in html
    mine = ApplicationDecision.objects.filter(actor=f"user:{named['recruiter'].pk}")
    assert [d.application_id for d in mine] == [scored["strong"]]
    assert _audit("application", scored["strong"]) == [("application.decided", f"user:{named['recruiter'].pk}")]
    assert re.search(r'class="stage stage-screening">Screening</td>', html)


def test_candidate_page_lists_applications_with_score_explanation_and_decide(
    login: Any, named: dict[str, Any], scored: dict[str, Any]
) -> None:
    other = sh.requisition(must="Java", nice="", min_years=None, title="Java dev")
    java_app = sh.apply(scored["weak_c"], other.requisition_id)
    scoring_api.application_score(application_id=java_app)
    c = login("recruiter")
    page = c.get(f"/candidates/{scored['weak_c']}").content.decode()
    section = page.split('id="applications-section"', 1)[1].split("end of applications", 1)[0]
    assert "Backend" in section and "Java dev" in section
    weak = scoring_api.application_detail(scored["weak"], actor=sh.ACTOR)
    assert weak is not None
    assert f'<td class="score" data-label="Score">{weak["score"]} / 100</td>' in section
    assert "must-have: Python: 50 / 50" in section and "must-have: PostgreSQL: 0 / 50" in section
    back = f"/candidates/{scored['weak_c']}"
    res = c.post(f"/applications/{java_app}/decide", {"to_stage": "rejected", "reason": "no Java", "next": back})
    assert res.status_code == 303 and res["Location"] == back
    assert "Rejected" in c.get(back).content.decode().split('id="cand-app-' + str(java_app), 1)[1][:600]
    # A hiring manager assigned only to Java dev sees that application and not Backend's.
    scoring_api.requisition_assign(
        requisition_id=other.requisition_id, user_id=named["hiring_manager"].pk, actor=sh.ACTOR
    )
    page = login("hiring_manager").get(back).content.decode()
    section = page.split('id="applications-section"', 1)[1].split("end of applications", 1)[0]
    assert "Java dev" in section and "Backend" not in section


# --- item 3: names and links ---------------------------------------------------------


def test_ranking_shows_names_with_links_and_a_merged_away_record_ranks_once(
    login: Any, named: dict[str, Any], scored: dict[str, Any]
) -> None:
    # The weak candidate's second record (same person) applied too and scored lower.
    twin = sh.candidate(skills=(), name="Wes Weak")
    twin_app = sh.apply(twin, scored["req"])
    scoring_api.application_score(application_id=twin_app)
    c = login("recruiter")
    page = c.get(f"/requisitions/{scored['req']}/").content.decode()
    assert f'<a href="/candidates/{scored["strong_c"]}" class="person">Sam Strong</a>' in page
    assert page.count('class="person">Wes Weak</a>') == 2  # two records, not yet merged
    candidates_api.candidate_merge(
        survivor_id=scored["weak_c"], merged_id=twin, actor=named["recruiter"], reason="same person"
    )
    page = c.get(f"/requisitions/{scored['req']}/").content.decode()
    assert page.count('class="person">Wes Weak</a>') == 1  # one person, ranked once
    ranks = re.findall(r'<td data-label="Rank">(\d+)</td>', page)
    assert ranks == ["1", "2"]
    assert f'href="/candidates/{twin}"' not in page  # the survivor, never the merged-away record
    assert "merged into this person" in page and f'href="/applications/{twin_app}/"' in page
    assert "Candidate #" not in page
    # The merge journal names the people and who merged them.
    cand = c.get(f"/candidates/{scored['weak_c']}").content.decode()
    journal = cand.split('id="merges"', 1)[1]
    assert "Ann Recruiter" in journal and f"user:{named['recruiter'].pk}" not in journal
    assert f'<a href="/candidates/{twin}">Wes Weak</a>' in journal


def test_upload_outcome_json_names_the_candidate_with_a_link(login: Any) -> None:
    att = helpers.parsed_ok("ada.pdf")
    cand = helpers.candidate_from(att, name="Ada Lovelace", emails=("ada@example.org",))
    body = login("recruiter").get(f"/api/intake/{att.raw_intake_id}").json()
    row = body["attachments"][0]
    assert row["candidate_id"] == cand
    assert row["candidate_name"] == "Ada Lovelace" and row["candidate_url"] == f"/candidates/{cand}"


def test_inbox_rows_and_document_timeline_name_people(login: Any, named: dict[str, Any]) -> None:
    att = helpers.parsed_ok("ada.pdf")
    cand = helpers.candidate_from(att, name="Ada Lovelace", emails=("ada@example.org",))
    failed = helpers.parse_failed("locked.pdf")
    c = login("recruiter")
    assert c.post(f"/documents/{failed.pk}/discard", {"reason": "not a CV"}).status_code == 303
    # The document timeline names the actor of each audited step.
    page = c.get(f"/documents/{failed.pk}").content.decode()
    assert "by Ann Recruiter" in page and f"by user:{named['recruiter'].pk}" not in page
    # Inbox rows carry the candidate's name and page (h23u's template renders them).
    res = c.get("/?state=")
    row = next(r for r in res.context["rows"] if r["attachment_id"] == att.pk)
    assert (row["candidate_name"], row["candidate_url"]) == ("Ada Lovelace", f"/candidates/{cand}")
    assert next(r for r in res.context["rows"] if r["attachment_id"] == failed.pk)["candidate_name"] is None
    assert f'<a href="/candidates/{cand}">Ada Lovelace</a>' in res.content.decode()  # the inbox shows it
    # The document page names its person too (not "candidate 12").
    doc_page = c.get(f"/documents/{att.pk}").content.decode()
    assert f'href="/candidates/{cand}" id="doc-candidate">Ada Lovelace</a>' in doc_page
    # An upload's sender is the uploader's name.
    up = helpers.received("mine.pdf", actor=named["recruiter"])
    assert intake_sender(up) == "Ann Recruiter"


def intake_sender(att: Any) -> str:
    from ats.intake import api as intake_api

    doc = intake_api.attachment_get(att.pk)
    assert doc is not None
    return doc.sender


def test_merge_messages_and_status_name_the_people(login: Any, named: dict[str, Any]) -> None:
    a = sh.candidate(skills=("Python",), name="Jo Survivor")
    b = sh.candidate(skills=("Go",), name="Jo Merged")
    c = login("recruiter")
    res = c.post(f"/candidates/{a}/merge", {"merged_id": str(b), "reason": "same"}, follow=True)
    assert "Jo Merged merged into Jo Survivor." in res.content.decode()
    page = c.get(f"/candidates/{b}").content.decode()
    now = candidates_api.candidate_detail(a, actor=sh.ACTOR)
    assert now is not None and now["name"]
    assert f'into <a href="/candidates/{a}">{now["name"]}</a>' in page  # a name, not "candidate 12"


def test_merge_finds_the_other_person_by_name_not_by_number(login: Any, named: dict[str, Any]) -> None:
    a = sh.candidate(skills=("Python",), name="Kim Survivor")
    b = sh.candidate(skills=("Go",), name="Kim Other")
    c = login("recruiter")
    page = c.get(f"/candidates/{a}").content.decode()
    assert 'id="merge-q"' in page and 'inputmode="numeric"' not in page  # no "type a number" box
    found = c.get(f"/candidates/{a}", {"merge_q": "Kim"}).content.decode()
    results = found[found.index('id="merge-results"') :]
    results = results[: results.index("</ul>")]
    # The other Kim is offered by name with a merge button; this candidate never offers itself.
    assert f'href="/candidates/{b}">Kim Other</a>' in results and f'id="merge-{b}"' in results
    assert f'id="merge-{a}"' not in results
    assert "No other active candidate matches" in c.get(f"/candidates/{a}", {"merge_q": "Nobody Here"}).content.decode()
    res = c.post(f"/candidates/{a}/merge", {"merged_id": str(b), "reason": "same person"}, follow=True)
    assert "Kim Other merged into Kim Survivor." in res.content.decode()
