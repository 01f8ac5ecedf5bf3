"""Issue 21 N2: a hiring manager reads only candidates with an application in a requisition
assigned to them - list, search, the candidate page, /api/candidates/<id> - and an
out-of-scope candidate answers exactly what an unknown one does (404), never 200.

The scope is one selector, `ats.candidates.selectors.candidates_visible_to(actor)` (a
queryset, the candidates module's own: other modules read through `candidate_list`,
`candidate_visible`, `candidate_detail`, ... built on it); these tests go through the web
(pages and API), the facade and that selector."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ats.candidates import api as candidates_api
from ats.candidates import selectors as candidate_selectors
from ats.scoring import api as scoring_api
from tests.scoring import helpers as sh

# Rolled back, not flushed, after each test (a flush of every table was ~0.45 CPU s a test):
# nothing here needs a commit - no other connection, thread or process reads the rows, and
# the code defers nothing to on_commit (ADR R1); deferred constraints are still checked.
pytestmark = pytest.mark.django_db

UNKNOWN = 987654


@pytest.fixture
def world(users: dict[str, Any]) -> dict[str, int]:
    mine = sh.requisition(title="Backend").requisition_id
    theirs = sh.requisition(title="Java dev", must="Java", nice="").requisition_id
    inside = sh.candidate(name="Ada Inside", email="ada@inside.example", skills=("Python",))
    outside = sh.candidate(name="Bob Outside", email="bob@outside.example", skills=("Python",))
    pool = sh.candidate(name="Cy Pool", email="cy@pool.example", skills=("Python",))  # no application at all
    sh.apply(inside, mine)
    sh.apply(outside, theirs)
    return {"mine": mine, "theirs": theirs, "inside": inside, "outside": outside, "pool": pool}


def _assign(users: dict[str, Any], requisition_id: int) -> None:
    scoring_api.requisition_assign(requisition_id=requisition_id, user_id=users["hiring_manager"].pk, actor=sh.ACTOR)


def test_unassigned_hiring_manager_sees_no_candidate(login: Any, world: dict[str, int]) -> None:
    c = login("hiring_manager")
    listing = c.get("/candidates/")
    assert listing.status_code == 200
    page = listing.content.decode()
    assert "No candidates." in page
    for name in ("Ada Inside", "Bob Outside", "Cy Pool"):
        assert name not in page
    assert "Ada Inside" not in c.get("/candidates/?q=ada").content.decode()
    assert "Ada Inside" not in c.get("/candidates/?all=1").content.decode()
    for cid in (world["inside"], world["outside"], world["pool"]):
        page_res, api_res = c.get(f"/candidates/{cid}"), c.get(f"/api/candidates/{cid}")
        unknown_page, unknown_api = c.get(f"/candidates/{UNKNOWN}"), c.get(f"/api/candidates/{UNKNOWN}")
        assert page_res.status_code == unknown_page.status_code == 404
        assert api_res.status_code == unknown_api.status_code == 404
        assert json.loads(api_res.content) == json.loads(unknown_api.content)  # same answer as unknown
        assert b"@" not in api_res.content


def test_assigned_hiring_manager_sees_only_their_requisitions_candidates(
    login: Any, users: dict[str, Any], world: dict[str, int]
) -> None:
    _assign(users, world["mine"])
    c = login("hiring_manager")
    page = c.get("/candidates/").content.decode()
    assert f'href="/candidates/{world["inside"]}"' in page
    assert f'href="/candidates/{world["outside"]}"' not in page and "Bob Outside" not in page
    assert f'href="/candidates/{world["pool"]}"' not in page and "Cy Pool" not in page
    # Search within the scope only: a query matching all three finds one.
    found = c.get("/candidates/?q=python").content.decode()
    assert "Ada Inside" in found and "Bob Outside" not in found and "Cy Pool" not in found
    assert "Bob Outside" not in c.get("/candidates/?q=bob@outside").content.decode()
    assert c.get(f"/candidates/{world['inside']}").status_code == 200
    api = c.get(f"/api/candidates/{world['inside']}")
    assert api.status_code == 200 and json.loads(api.content)["emails"] == ["ada@inside.example"]
    for cid in (world["outside"], world["pool"]):
        assert c.get(f"/candidates/{cid}").status_code == 404
        assert c.get(f"/api/candidates/{cid}").status_code == 404


def test_the_one_selector_is_the_scope(users: dict[str, Any], world: dict[str, int]) -> None:
    hm = users["hiring_manager"]
    assert list(candidate_selectors.candidates_visible_to(hm)) == []
    _assign(users, world["mine"])
    assert [c.pk for c in candidate_selectors.candidates_visible_to(hm)] == [world["inside"]]
    assert candidates_api.candidate_visible(world["inside"], actor=hm)
    assert not candidates_api.candidate_visible(world["outside"], actor=hm)
    assert candidates_api.candidate_detail(world["outside"], actor=hm) is None
    assert [r["id"] for r in candidates_api.candidate_list(actor=hm)] == [world["inside"]]
    docs = set(candidates_api.candidate_documents_visible_to(hm))
    assert docs == set(candidates_api.candidate_detail(world["inside"], actor=hm)["documents"])  # type: ignore[index]
    # Recruiters and admins keep the whole pool.
    for role in ("recruiter", "admin"):
        assert {c.pk for c in candidate_selectors.candidates_visible_to(users[role])} >= {
            world["inside"],
            world["outside"],
            world["pool"],
        }
    with pytest.raises(candidates_api.NotAllowed):
        candidate_selectors.candidates_visible_to(users["operator"])


def test_a_merge_keeps_the_survivor_in_scope(users: dict[str, Any], world: dict[str, int]) -> None:
    """The application keeps the merged-away id; the survivor (who holds the documents now)
    stays readable to the hiring manager of that requisition."""
    _assign(users, world["mine"])
    candidates_api.candidate_merge(survivor_id=world["pool"], merged_id=world["inside"], actor=sh.ACTOR, reason="t")
    visible = {c.pk for c in candidate_selectors.candidates_visible_to(users["hiring_manager"])}
    assert world["pool"] in visible and world["outside"] not in visible
