"""Issue 25 item 1: a mailbox or the web upload may carry the region of national phone
numbers in the CVs it brings; the extractor uses it only when a CV gives no sign of its
own country, and the deployment default only when neither does. Real (fake) Graph server,
real database, the real candidate task in-process."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from ats.candidates import api as candidates_api
from ats.channels import api as channels_api
from ats.devtools.fake_graph import FakeAttachment, FakeGraph
from ats.intake import api as intake_api
from ats.intake import services as intake_services
from ats.pipeline import tasks as candidate_tasks
from tests.candidates.helpers import VIEWER
from tests.channels.conftest import MAILBOX
from tests.web import helpers

pytestmark = pytest.mark.django_db(transaction=True)

# Spanish mobile in national form; no place, no national e-mail domain, English words.
CV_TEXT = "Lucia Romero\nlucia.romero@gmail.com\nPhone 612 345 678\nExperience\nBackend engineer, 2019 - now\n"


def test_channel_phone_region_is_validated_kept_and_cleared(capsys: pytest.CaptureFixture[str]) -> None:
    channel, created = channels_api.channel_add(mailbox="es@example.org", phone_region="es")
    assert created and channel.phone_region == "ES"
    assert channels_api.channel_status(channel.id)["phone_region"] == "ES"
    # Re-adding without a region leaves it; "none" clears it.
    assert channels_api.channel_add(mailbox="es@example.org")[0].phone_region == "ES"
    assert channels_api.channel_add(mailbox="es@example.org", phone_region="none")[0].phone_region == ""
    with pytest.raises(ValueError, match="not a phone region"):
        channels_api.channel_add(mailbox="es@example.org", phone_region="XX")
    with pytest.raises(CommandError, match="not a phone region"):
        call_command("channel_add", "--mailbox", "es@example.org", "--phone-region", "Spain", stdout=io.StringIO())
    capsys.readouterr()
    call_command("channel_add", "--mailbox", "de@example.org", "--phone-region", "DE", "--json")
    assert '"phone_region": "DE"' in capsys.readouterr().out


def test_mailbox_region_is_recorded_at_receipt(graph: FakeGraph) -> None:
    graph.add_message(
        MAILBOX, subject="CV", attachments=[FakeAttachment("Lucia_CV.pdf", helpers.unique_pdf(), "application/pdf")]
    )
    channel = channels_api.channel_add(mailbox=MAILBOX, phone_region="ES")[0]
    assert channels_api.channel_poll(channel_id=channel.id) is not None
    [raw] = intake_api.RawIntake.objects.filter(channel="mail")
    assert raw.metadata["phone_region"] == "ES"


def _candidate(channel: str, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    raw = intake_api.intake_receive(
        channel=channel, files=[intake_api.IncomingFile("cv.pdf", helpers.unique_pdf())], metadata=metadata or {}
    )
    att = intake_api.raw_intake_attachments(raw.pk)[0]
    intake_services.attachment_ingest(attachment_id=att.pk)
    helpers.settle_jobs(att.pk, helpers.INGEST)
    intake_services.parse_attempt_record_success(
        attachment_id=att.pk, attempt_no=1, text=CV_TEXT, page_count=1, result={"kind": "pdf"}, policy_hash="a" * 64
    )
    helpers.settle_jobs(att.pk, helpers.PARSE)
    candidate_tasks.create_from_attachment(attachment_id=att.pk, payload_version=1)
    att = helpers.reload(att)
    assert att.state == "candidate_created", (att.state, att.reason)
    d = candidates_api.candidate_detail(att.candidate_id, actor=VIEWER)  # type: ignore[arg-type]
    assert d is not None
    return d


def test_mailbox_region_reads_a_national_number(settings: Any) -> None:
    settings.DEFAULT_PHONE_REGION = "GB"
    d = _candidate("mail", {"phone_region": "ES"})
    assert d["phones"] == ["+34612345678"] and d["phones_as_written"] == []
    [p] = d["provenance"]["phones"]
    assert (p["region"], p["region_from"]) == ("ES", "channel")


def test_upload_region_setting_reads_a_national_number(settings: Any) -> None:
    settings.DEFAULT_PHONE_REGION, settings.UPLOAD_PHONE_REGION = "GB", "ES"
    d = _candidate("upload")
    assert d["phones"] == ["+34612345678"]
    # The upload setting is the web upload's: a CLI file falls to the default (GB), where
    # the number is not valid - kept as written, not given a wrong country.
    d = _candidate("cli")
    assert d["phones"] == [] and d["phones_as_written"] == ["612 345 678"]
    [p] = d["provenance"]["phones_as_written"]
    assert p["rule"] == "phone.as_written" and "region" not in p


def test_deployment_default_reads_it_when_no_channel_region(settings: Any) -> None:
    settings.DEFAULT_PHONE_REGION, settings.UPLOAD_PHONE_REGION = "ES", None
    d = _candidate("mail", {})
    assert d["phones"] == ["+34612345678"]
    assert d["provenance"]["phones"][0]["region_from"] == "default"
