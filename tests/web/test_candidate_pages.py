"""The candidate screens through the Django test client: list with search, the candidate
page with provenance, documents, duplicate pairs and the merge journal, and the
recruiter's actions (edit a field, merge/unmerge, accept/dismiss a proposed change) -
each a CSRF-protected POST, checked against iam and audited with the signed-in user."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from ats.candidates import api as candidates_api
from ats.iam import api as iam_api
from tests.candidates.helpers import extraction
from tests.web import helpers

# Rolled back, not flushed, after each test (a flush of every table was ~0.45 CPU s a test):
# nothing here needs a commit - no other connection, thread or process reads the rows, and
# the code defers nothing to on_commit (ADR R1); deferred constraints are still checked.
pytestmark = pytest.mark.django_db

VIEWER = iam_api.SystemActor("test:viewer")
VIEWER_EDITOR = iam_api.SystemActor("test:recruiter")


def detail(candidate_id: int) -> dict[str, Any]:
    d = candidates_api.candidate_detail(candidate_id, actor=VIEWER)
    assert d is not None
    return d


def two_of_one_person() -> tuple[Any, int, Any, int]:
    """Two documents, two candidates sharing a phone: a same_person pair (no auto-merge:
    their contact blocks name different e-mails)."""
    att_a, att_b = helpers.parsed_ok("jane-2024.pdf"), helpers.parsed_ok("jane-2026.pdf")
    a = helpers.candidate_from(
        att_a, name="Jane Doe", emails=("jane@a.example",), phones=("+441632960001",), skills=("PostgreSQL",)
    )
    b = helpers.candidate_from(att_b, name="Jane Doe", emails=("jane@b.example",), phones=("+441632960001",))
    for cid in (a, b):
        candidates_api.candidate_dedupe(candidate_id=cid)
    return att_a, a, att_b, b


def test_list_searches_by_name_email_and_skill(login: Any) -> None:
    _, a, _, b = two_of_one_person()
    other = helpers.candidate_from(helpers.parsed_ok(), name="Ola Nordmann", emails=("ola@example.no",))
    c = login("recruiter")
    page = c.get("/candidates/").content.decode()
    assert f'href="/candidates/{a}"' in page and f'href="/candidates/{other}"' in page
    page = c.get("/candidates/?q=jane@b").content.decode()
    assert f'href="/candidates/{b}"' in page and f'href="/candidates/{a}"' not in page
    page = c.get("/candidates/?q=postgres").content.decode()  # a skill, through the search seam
    assert f'href="/candidates/{a}"' in page and f'href="/candidates/{b}"' not in page
    page = c.get("/candidates/?q=nobody-at-all").content.decode()
    assert "No candidates." in page


def test_page_shows_fields_with_provenance_documents_and_pairs(login: Any) -> None:
    att_a, a, _, b = two_of_one_person()
    page = login("recruiter").get(f"/candidates/{a}").content.decode()
    assert '<h1 id="candidate-name">Jane Doe</h1>' in page
    assert "jane@a.example" in page and "+441632960001" in page and "PostgreSQL" in page
    # Provenance: document link, then - folded behind "details" - attempt, page and box,
    # source text, rule, extractor version.
    assert f'<a href="/documents/{att_a.pk}">jane-2024.pdf</a>' in page
    assert "<details><summary>details</summary>attempt 1, page 1 box 10, 20, 200, 34<br>" in page
    assert "rule <code>email.contact</code>, extractor test-1" in page
    # Duplicate pair with kind, score and reason, and the merge buttons.
    [pair] = detail(a)["duplicates"]
    assert pair["other_candidate_id"] == b and pair["kind"] == "same_person"
    assert "same person" in page and pair["reason"] in page and "1.00" in page
    assert f'id="merge-in-{b}"' in page and f'id="merge-into-{b}"' in page
    assert 'name="csrfmiddlewaretoken"' in page and 'id="edit-name"' in page


def _assigned_to_hiring_manager(users: dict[str, Any], candidate_id: int) -> None:
    """An application of the candidate in a requisition assigned to the hiring manager (N2)."""
    from tests.scoring import helpers as sh

    req = sh.requisition(title="Backend").requisition_id
    sh.apply(candidate_id, req)
    from ats.scoring import api as scoring_api

    scoring_api.requisition_assign(requisition_id=req, user_id=users["hiring_manager"].pk, actor=sh.ACTOR)


def test_hiring_managers_read_but_get_no_actions_and_no_document_links(login: Any, users: dict[str, Any]) -> None:
    att_a, a, _, _ = two_of_one_person()
    _assigned_to_hiring_manager(users, a)
    page = login("hiring_manager").get(f"/candidates/{a}").content.decode()
    assert "jane@a.example" in page and "jane-2024.pdf" in page
    assert f'href="/documents/{att_a.pk}"' not in page  # hiring managers do not open intake documents
    assert '<form method="post" action="/candidates/' not in page and 'id="edit-name"' not in page


def test_denied_roles_cannot_act_and_nothing_changes(login: Any) -> None:
    _, a, _, b = two_of_one_person()
    before = detail(a)
    for role in ("hiring_manager", "operator"):
        c = login(role)
        assert c.post(f"/candidates/{a}/edit", {"field": "name", "value": "Mallory"}).status_code == 403
        assert c.post(f"/candidates/{a}/merge", {"merged_id": b}).status_code == 403
    assert detail(a) == before
    assert [x for x, _ in helpers.audit_candidate(a)] == []
    anon = Client()
    assert anon.post(f"/candidates/{a}/edit", {"field": "name", "value": "Mallory"})["Location"].startswith("/login/")


def test_every_action_needs_the_csrf_token(users: dict[str, Any]) -> None:
    _, a, _, b = two_of_one_person()
    c = Client(enforce_csrf_checks=True)
    c.force_login(users["recruiter"])
    assert c.post(f"/candidates/{a}/edit", {"field": "name", "value": "X"}).status_code == 403
    assert c.post(f"/candidates/{a}/merge", {"merged_id": b}).status_code == 403
    assert detail(a)["name"] == "Jane Doe" and detail(b)["status"] == "active"
    # With the token from the page the same form works.
    page = c.get(f"/candidates/{a}").content.decode()
    token = page.split('name="csrfmiddlewaretoken" value="', 1)[1].split('"', 1)[0]
    res = c.post(f"/candidates/{a}/edit", {"field": "name", "value": "Jane Q. Doe", "csrfmiddlewaretoken": token})
    assert res.status_code == 303 and detail(a)["name"] == "Jane Q. Doe"


def test_edit_marks_the_field_recruiter_edited_and_is_audited(login: Any, users: dict[str, Any]) -> None:
    _, a, _, _ = two_of_one_person()
    users["recruiter"].first_name, users["recruiter"].last_name = "Ann", "Recruiter"
    users["recruiter"].save()
    c = login("recruiter")
    res = c.post(f"/candidates/{a}/edit", {"field": "skills", "value": "SQL, Kubernetes"})
    assert res.status_code == 303 and res["Location"] == f"/candidates/{a}"
    d = detail(a)
    assert d["skills"] == ["SQL", "Kubernetes"] and d["edited_fields"] == ["skills"]
    assert d["provenance"]["skills"][0]["rule"] == "recruiter.edit"
    assert ("candidate.field_edited", f"user:{users['recruiter'].pk}") in helpers.audit_candidate(a)
    page = c.get(f"/candidates/{a}").content.decode()
    assert "Skills saved" in page and "(edited)" in page and "edited by Ann Recruiter" in page
    assert f"user:{users['recruiter'].pk}" not in page  # a person's name, never an internal label
    # A refused value is a message on the page, not an error page; nothing changes.
    res = c.post(f"/candidates/{a}/edit", {"field": "years_experience", "value": "lots"}, follow=True)
    assert res.status_code == 200 and "years_experience must be a number" in res.content.decode()
    res = c.post(f"/candidates/{a}/edit", {"field": "no_such_field", "value": "x"}, follow=True)
    assert "unknown field" in res.content.decode()
    assert detail(a)["edited_fields"] == ["skills"]
    assert c.post("/candidates/999999/edit", {"field": "name", "value": "x"}).status_code == 404


def test_merge_then_unmerge_from_the_journal(login: Any, users: dict[str, Any]) -> None:
    att_a, a, att_b, b = two_of_one_person()
    c = login("recruiter")
    res = c.post(f"/candidates/{b}/merge", {"merged_id": a, "back_to": a, "reason": "same phone"})
    assert res.status_code == 303 and res["Location"] == f"/candidates/{b}"  # the survivor's page
    assert detail(a)["status"] == "merged" and detail(a)["merged_into"] == b
    assert sorted(detail(b)["documents"]) == sorted([att_a.pk, att_b.pk])
    [merge] = detail(b)["merges"]
    assert merge["actor"] == f"user:{users['recruiter'].pk}" and merge["reason"] == "same phone"
    assert ("candidate.merged", f"user:{users['recruiter'].pk}") in helpers.audit_candidate(b)
    page = c.get(f"/candidates/{b}").content.decode()
    assert f'id="unmerge-{merge["merge_id"]}"' in page and "jane-2024.pdf" in page
    merged_page = c.get(f"/candidates/{a}").content.decode()
    assert f'into <a href="/candidates/{b}">' in merged_page and 'id="edit-name"' not in merged_page
    # Merging again refuses cleanly (a message, the page).
    res = c.post(f"/candidates/{b}/merge", {"merged_id": a}, follow=True)
    assert res.status_code == 200 and f"candidate {a} is merged" in res.content.decode()

    res = c.post(f"/candidates/merges/{merge['merge_id']}/unmerge", {"back_to": b})
    assert res.status_code == 303 and res["Location"] == f"/candidates/{b}"
    assert detail(a)["status"] == "active" and detail(a)["documents"] == [att_a.pk]
    assert detail(b)["documents"] == [att_b.pk]
    assert ("candidate.unmerged", f"user:{users['recruiter'].pk}") in helpers.audit_candidate(b)
    res = c.post(f"/candidates/merges/{merge['merge_id']}/unmerge", {"back_to": b}, follow=True)
    assert "already undone" in res.content.decode()
    assert c.post("/candidates/merges/999999/unmerge").status_code == 404
    res = c.post(f"/candidates/{b}/merge", {"merged_id": "x"}, follow=True)
    assert "Give the number" in res.content.decode()


def test_proposed_changes_accept_and_dismiss(login: Any, users: dict[str, Any]) -> None:
    att_a, a, _, _ = two_of_one_person()
    c = login("recruiter")
    c.post(f"/candidates/{a}/edit", {"field": "name", "value": "Jane Q. Doe"})
    c.post(f"/candidates/{a}/edit", {"field": "location", "value": "Leeds"})
    # A re-parse (attempt 2) disagrees with both edits: two proposed changes.
    candidates_api.candidate_apply_document(
        attachment_id=att_a.pk,
        parse_attempt=2,
        extraction=extraction(name="Jane Doe-Smith", emails=("jane@a.example",), location="York"),
    )
    changes = {pc["field"]: pc for pc in detail(a)["proposed_changes"]}
    assert set(changes) == {"name", "location"}
    page = c.get(f"/candidates/{a}").content.decode()
    assert "Jane Doe-Smith" in page and f'id="accept-{changes["name"]["change_id"]}"' in page
    assert 'id="accept-' not in login("hiring_manager").get(f"/candidates/{a}").content.decode()
    assert login("hiring_manager").post(f"/candidates/changes/{changes['name']['change_id']}/accept").status_code == 403

    c = login("recruiter")
    res = c.post(f"/candidates/changes/{changes['name']['change_id']}/accept", {"back_to": a})
    assert res.status_code == 303 and res["Location"] == f"/candidates/{a}"
    res = c.post(f"/candidates/changes/{changes['location']['change_id']}/dismiss", {"back_to": a})
    assert res.status_code == 303
    d = detail(a)
    assert d["name"] == "Jane Doe-Smith" and d["location"] == "Leeds" and d["proposed_changes"] == []
    assert "name" in d["edited_fields"]  # accepted values stay pinned
    actions = [x for x, actor in helpers.audit_candidate(a) if actor == f"user:{users['recruiter'].pk}"]
    assert "candidate.change_accepted" in actions and "candidate.change_dismissed" in actions
    res = c.post(f"/candidates/changes/{changes['location']['change_id']}/accept", {"back_to": a}, follow=True)
    assert "already dismissed" in res.content.decode()


def test_candidate_api_is_the_cli_show_json(login: Any) -> None:
    _, a, _, b = two_of_one_person()
    api = json.loads(login("recruiter").get(f"/api/candidates/{a}").content)
    out = io.StringIO()
    call_command("candidate", "show", str(a), "--json", stdout=out)
    assert api == json.loads(out.getvalue())
    contract = {
        "id", "name", "emails", "phones", "links", "location", "skills", "years_experience", "provenance",
        "duplicates", "documents", "extraction_version", "edited_fields", "proposed_changes",
    }  # fmt: skip
    assert contract <= set(api) and api["duplicates"][0]["other_candidate_id"] == b
    assert all(api["provenance"]["emails"]) and api["provenance"]["emails"][0]["rule"] == "email.contact"
    missing = login("recruiter").get("/api/candidates/999999")
    assert missing.status_code == 404 and json.loads(missing.content) == {"error": "not found", "code": "not_found"}
    assert login("operator").get(f"/api/candidates/{a}").status_code == 403


# Flushed: schemathesis' WSGI call ends its request by closing the database connection,
# which a test transaction does not survive (503 database_unavailable as a rollback test).
@pytest.mark.django_db(transaction=True)
def test_candidate_api_response_matches_the_openapi_file(client: Any, users: dict[str, Any]) -> None:
    """schemathesis's generated ids rarely hit a real candidate: check a real one here,
    a merged one with a pair and a journal entry, against docs/api/openapi.yaml."""
    from django.core.wsgi import get_wsgi_application

    from tests.web.test_openapi import CHECKS, CSRF, schema

    _, a, _, b = two_of_one_person()
    candidates_api.candidate_edit_field(candidate_id=a, field="location", value="Leeds", actor=VIEWER_EDITOR)
    candidates_api.candidate_merge(survivor_id=a, merged_id=b, actor=VIEWER_EDITOR)
    client.force_login(users["recruiter"])
    session = {
        "cookies": {"sessionid": client.cookies["sessionid"].value, "csrftoken": CSRF},
        "headers": {"X-CSRFToken": CSRF},
    }
    operation = schema["/api/candidates/{candidate_id}"]["GET"]
    for cid in (a, b):
        case = operation.Case(path_parameters={"candidate_id": cid})
        response = case.call(app=get_wsgi_application(), **session)
        assert response.status_code == 200, response.text
        case.validate_response(response, checks=CHECKS)
    assert response.json()["status"] == "merged" and response.json()["merged_into"] == a


def test_possible_duplicate_shows_score_reason_and_evidence(login: Any) -> None:
    a = helpers.candidate_from(helpers.parsed_ok(), name="Zofia Kowalska", emails=("z1@a.example",), location="Kraków")
    b = helpers.candidate_from(helpers.parsed_ok(), name="Zofia Kowalska", emails=("z2@b.example",), location="Kraków")
    candidates_api.candidate_dedupe(candidate_id=b)
    [pair] = detail(a)["duplicates"]
    assert pair["kind"] == "possible_duplicate" and pair["other_candidate_id"] == b
    page = login("recruiter").get(f"/candidates/{a}").content.decode()
    assert "possible duplicate" in page and pair["reason"] in page
    assert "name: Zofia Kowalska / Zofia Kowalska (similarity 100.0)" in page
    assert "location: " in page and f"{pair['score']:.2f}" in page


# ruff: noqa: RUF001 (CV text has typographic dashes)
WORK_HISTORY_CV = """Jane Doe
jane@example.org
Skills
Python, Docker
Experience
Lead Data Engineer, Northwind Analytics
2019 – now
• Python pipelines for every dashboard.
Mar 2015 - 06/2019  Software Engineer – Globex GmbH
• Shipped the billing service.
Education
MSc Computer Science, University of Manchester, 2010 - 2011
"""


def _from_text(text: str) -> int:
    """A candidate made the way the candidate task makes one: the real extractor's answer
    for a parsed document, applied."""
    import datetime

    from django.db import transaction

    from ats.extraction.api import extract
    from ats.intake import services

    att = helpers.parsed_ok("jane-history.pdf")
    with transaction.atomic():
        cand = candidates_api.candidate_apply_document(
            attachment_id=att.pk, parse_attempt=1, extraction=extract({"text": text}, as_of=datetime.date(2026, 12, 1))
        )
        assert cand is not None
        services.attachment_mark_candidate_created(attachment_id=att.pk, candidate_id=cand.id)
    return cand.id


def test_work_history_section_shows_roles_and_the_years_they_add_up_to(login: Any) -> None:
    cid = _from_text(WORK_HISTORY_CV)
    d = detail(cid)
    # Contract: the existing keys keep their types; the entries are new keys.
    assert d["skills"] == ["Python", "Docker"] and isinstance(d["years_experience"], float)
    assert d["work_history"][0] == {"employer": "Northwind Analytics", "title": "Lead Data Engineer",
                                    "location": None, "start": "2019", "end": "present"}  # fmt: skip
    assert d["education_entries"][0]["institution"] == "University of Manchester"
    page = login("recruiter").get(f"/candidates/{cid}").content.decode()
    section = page[page.index('id="work-history-section"') :]
    assert '<td data-label="Role">Lead Data Engineer</td><td data-label="Employer">Northwind Analytics</td>' in section
    # each date kept whole on a narrow column: it breaks between the dates, not at a hyphen
    when = '<td data-label="When"><span class="nowrap">2015-03</span> – <span class="nowrap">2019-06</span></td>'
    assert when in section
    assert "Years of experience: <strong>11.8</strong>, added up from these roles" in section
    assert "<li>Software Engineer · Globex GmbH · 2015-03 – 2019-06</li>" in section
    assert '<td data-label="Institution">University of Manchester</td>' in section
    assert "rule <code>work_history.entry</code>" in section
    # The entries are not squeezed into the fields table as text.
    assert 'id="field-work_history"' not in page


def test_a_skill_seen_twice_is_shown_once_with_both_sources(login: Any) -> None:
    cid = _from_text(WORK_HISTORY_CV)
    page = login("recruiter").get(f"/candidates/{cid}").content.decode()
    row = page[page.index('id="field-skills"') :]
    row = row[: row.index("</tr>")]
    assert row.count("<strong>Python</strong>") == 1
    assert '<strong>Python</strong> <span class="action-hint">(2 sources)</span>' in row
    assert "rule <code>skill.section</code>" in row and "rule <code>skill.text</code>" in row
    assert "taxonomy <code>esco:ccd0a1d9-afda-43d9-b901-96344886e14d</code>" in row
    assert row.count("<strong>Docker</strong>") == 1


def test_template_placeholders_are_shown_as_such(login: Any) -> None:
    from ats.extraction.data import Extraction, FieldValue, Source

    def value(v: str, *, placeholder: bool) -> FieldValue:
        return FieldValue(v, (Source(text=v, rule="test", page=1, placeholder=placeholder),))

    sample = Extraction(
        "test-1",
        {
            "name": (value("Your Name Here", placeholder=True),),
            "emails": (
                value("john.doe@example.com", placeholder=True),
                value("ann@mail.example.net", placeholder=False),
            ),
        },
    )
    att = helpers.parsed_ok("template.pdf")
    c = candidates_api.candidate_apply_document(attachment_id=att.pk, parse_attempt=1, extraction=sample)
    assert c is not None
    page = login("recruiter").get(f"/candidates/{c.id}").content.decode()
    marker = (
        '<span class="placeholder" title="A template\'s sample value: never used to match or merge candidates">'
        "(template placeholder)</span>"
    )
    assert f"john.doe@example.com {marker}" in page and f"Your Name Here {marker}" in page
    assert page.count("(template placeholder)") == 2  # not beside the person's own address


def test_other_candidates_are_named_within_the_readers_scope_in_one_read(login: Any, users: dict[str, Any]) -> None:
    """Pairs name the other person when the reader may read them, else show their number;
    the names come in one read, however many others there are (it was one per other)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    _, a, _, b = two_of_one_person()
    c = login("recruiter")
    with CaptureQueriesContext(connection) as one_other:
        page = c.get(f"/candidates/{a}").content.decode()
    assert f"Jane Doe</a> #{b}" in page
    for n in (1, 2):
        extra = helpers.candidate_from(
            helpers.parsed_ok(f"jane-{n}.pdf"), name=f"Jane Doe {n}", phones=("+441632960001",)
        )
        candidates_api.candidate_dedupe(candidate_id=extra)
    assert len(detail(a)["duplicates"]) == 3
    with CaptureQueriesContext(connection) as three_others:
        page = c.get(f"/candidates/{a}").content.decode()
    assert f"Jane Doe 2</a> #{extra}" in page
    assert len(three_others.captured_queries) == len(one_other.captured_queries)

    # The read is the candidate scope's: a hiring manager (who is not shown pairs) gets
    # only the people assigned to them; unknown ids are simply absent.
    _assigned_to_hiring_manager(users, a)
    assert candidates_api.candidate_names([a, b, extra, 999999], actor=users["hiring_manager"]) == {a: "Jane Doe"}
    assert candidates_api.candidate_names([b, extra, 999999], actor=VIEWER) == {b: "Jane Doe", extra: "Jane Doe 2"}
