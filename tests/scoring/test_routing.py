"""Routing: the upload form's requisition field, `ats channel set-requisition` and the mail
poller recording the mapping at receipt; the duplicate router's lock."""

from __future__ import annotations

import json
import secrets
from io import BytesIO
from typing import Any

import pytest
from django.core.management import call_command

from ats.channels import api as channels_api
from ats.devtools.fake_graph import FakeAttachment, FakeGraph
from ats.iam import api as iam_api
from ats.intake import api as intake_api
from ats.scoring import api as scoring_api
from tests import corpus
from tests.channels.conftest import MAILBOX, graph  # noqa: F401 - the fixture
from tests.scoring.helpers import requisition

pytestmark = pytest.mark.django_db(transaction=True)


def test_upload_form_requisition_field(client: Any) -> None:
    v = requisition()
    iam_api.user_create(username="rec", password="pw-rec-123456", role="recruiter")
    client.login(username="rec", password="pw-rec-123456")
    res = client.post("/api/intake/upload", {"files": [BytesIO(corpus.text_pdf())], "requisition": "999999"})
    assert res.status_code == 400 and "requisition 999999" in json.loads(res.content)["error"]
    assert intake_api.RawIntake.objects.count() == 0
    res = client.post(
        "/api/intake/upload", {"files": [BytesIO(corpus.text_pdf())], "requisition": str(v.requisition_id)}
    )
    assert res.status_code == 201
    raw = intake_api.RawIntake.objects.get(pk=json.loads(res.content)["raw_intake_id"])
    assert raw.metadata == {"requisition_id": v.requisition_id}
    att = intake_api.raw_intake_attachments(raw.pk)[0]
    assert intake_api.document_requisitions(attachment_id=att.pk) == [(att.pk, v.requisition_id)]


def test_channel_set_requisition_routes_mail_received_afterwards(graph: FakeGraph, capsys: Any) -> None:  # noqa: F811
    v = requisition()
    channel = channels_api.channel_add(mailbox=MAILBOX)[0]
    call_command("channel", "set-requisition", MAILBOX, str(v.requisition_id), "--json")
    assert json.loads(capsys.readouterr().out) == {"channel_id": channel.id, "requisition_id": v.requisition_id}
    assert scoring_api.channel_requisition_id(channel.id) == v.requisition_id
    body = b"%PDF-1.7\n% " + secrets.token_hex(8).encode() + b"\n%%EOF\n"
    graph.add_message(MAILBOX, subject="Application", attachments=[FakeAttachment("cv.pdf", body, "application/pdf")])
    assert channels_api.channel_poll(channel_id=channel.id) is not None
    [raw] = intake_api.RawIntake.objects.filter(channel="mail")
    assert raw.metadata["requisition_id"] == v.requisition_id and raw.metadata["channel_id"] == channel.id
    # Back to the talent pool: later mail carries no requisition.
    call_command("channel", "set-requisition", str(channel.id), "none")
    assert scoring_api.channel_requisition_id(channel.id) is None
