"""The web erasure action: admins only, a confirmation form (reason + the number typed
again), CSRF-protected, the same service as `ats erase candidate`."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from ats.candidates import api as candidates_api
from ats.iam import api as iam_api
from tests.web import helpers

pytestmark = pytest.mark.django_db(transaction=True)
ROLES = ("recruiter", "hiring_manager", "operator", "admin")


@pytest.fixture
def users() -> dict[str, Any]:
    return {
        role: iam_api.user_create(username=f"ret-{role}", password="pw-for-tests-1234", role=role) for role in ROLES
    }


def _status(cid: int) -> str:
    return candidates_api.Candidate.objects.get(pk=cid).status


def test_only_admins_erase_after_confirming(users: dict[str, Any]) -> None:
    att = helpers.parsed_ok("web-erase.pdf")
    cid = helpers.candidate_from(att, name="Wilhelmina Erasmus", emails=("wilhelmina@erase.example",))
    for role in ("recruiter", "hiring_manager", "operator"):
        c = Client()
        c.force_login(users[role])
        assert c.get(f"/candidates/{cid}/erase").status_code == 403
        assert c.post(f"/candidates/{cid}/erase", {"reason": "x", "confirm": str(cid)}).status_code == 403
        assert 'id="erase-link"' not in c.get(f"/candidates/{cid}").content.decode()
    assert _status(cid) == "active"

    admin = Client(enforce_csrf_checks=True)
    admin.force_login(users["admin"])
    page = admin.get(f"/candidates/{cid}").content.decode()
    assert 'id="erase-link"' in page
    form = admin.get(f"/candidates/{cid}/erase").content.decode()
    assert 'id="erase-confirm"' in form and "cannot be undone" in form
    token = form.split('name="csrfmiddlewaretoken" value="', 1)[1].split('"', 1)[0]
    # Without the token, without the typed number, without a reason: nothing happens.
    assert admin.post(f"/candidates/{cid}/erase", {"reason": "r", "confirm": str(cid)}).status_code == 403
    wrong = admin.post(
        f"/candidates/{cid}/erase", {"reason": "r", "confirm": str(cid + 1), "csrfmiddlewaretoken": token}
    )
    assert wrong.status_code == 400 and "Type the candidate number" in wrong.content.decode()
    no_reason = admin.post(
        f"/candidates/{cid}/erase", {"reason": " ", "confirm": str(cid), "csrfmiddlewaretoken": token}
    )
    assert no_reason.status_code == 400 and _status(cid) == "active"

    res = admin.post(
        f"/candidates/{cid}/erase", {"reason": "ticket 7", "confirm": str(cid), "csrfmiddlewaretoken": token}
    )
    assert res.status_code == 303 and res["Location"] == f"/candidates/{cid}"
    assert _status(cid) == "erased"
    shown = admin.get(f"/candidates/{cid}").content.decode()
    assert "Wilhelmina" not in shown and "erased (erasure" in shown and 'id="erase-link"' not in shown
    # The document stays listed (counts add up), with no name, bytes or thumbnail.
    doc = admin.get(f"/documents/{att.pk}")
    assert doc.status_code == 200 and "Sender&#x27;s personal data was erased" in doc.content.decode()
    assert "web-erase.pdf" not in doc.content.decode()
    assert admin.get(f"/documents/{att.pk}/thumbnail.png").status_code == 404
