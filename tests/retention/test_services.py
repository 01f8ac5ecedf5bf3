"""Retention services in-process: due dates from the rules, admin-only erasure, unmerge
refused after erasure, the weekly purge verifier and its metric, the tombstone key."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone

from ats.candidates import api as candidates_api
from ats.iam import api as iam_api
from ats.intake import api as intake_api
from ats.retention import api as retention_api
from ats.retention.models import RetentionAction, RetentionSubject
from tests.web import helpers as web_helpers

pytestmark = pytest.mark.django_db(transaction=True)
ADMIN = iam_api.SystemActor("test:admin")


def _candidate(name: str, email: str, phone: str = "+441632960999") -> tuple[int, int]:
    att = web_helpers.parsed_ok(f"{name.split(maxsplit=1)[0].lower()}.pdf")
    return web_helpers.candidate_from(att, name=name, emails=(email,), phones=(phone,)), att.pk


def test_due_on_follows_the_rules_consent_and_legal_hold(settings: Any) -> None:
    settings.RETENTION_MONTHS = 24
    settings.RETENTION_CONSENT_MONTHS = 48
    cid, _ = _candidate("Dora Duedate", "dora@due.example")
    assert retention_api.retention_due_on_recompute()["created"] >= 1
    subj = RetentionSubject.objects.get(candidate_id=cid)
    last = subj.last_activity_at.date()
    assert subj.due_on == last.replace(year=last.year + 2)
    far = last.replace(year=last.year + 10)
    subj = retention_api.retention_subject_set(candidate_id=cid, consent_until=far)
    assert subj.due_on == last.replace(year=last.year + 4), "consent is capped at 48 months"
    subj = retention_api.retention_subject_set(candidate_id=cid, legal_hold=True)
    assert subj.due_on is None
    # Not due: the purge leaves them alone.
    assert retention_api.retention_purge().due_count == 0
    assert candidates_api.Candidate.objects.get(pk=cid).status == "active"


def test_erasure_is_for_admins_only(django_user_model: Any) -> None:
    cid, _ = _candidate("Rita Refused", "rita@refused.example")
    recruiter = iam_api.user_create(username="ret-rec", password="pw-for-tests-1234", role="recruiter")
    with pytest.raises(retention_api.ErasureRefused):
        retention_api.subject_erase(candidate_id=cid, reason="r", actor=recruiter)
    with pytest.raises(PermissionError):
        retention_api.subject_export(candidate_id=cid, out_dir=Path("/nonexistent"), actor=recruiter)
    with pytest.raises(LookupError):
        retention_api.subject_erase(candidate_id=cid + 10_000, reason="r", actor=ADMIN)
    assert candidates_api.Candidate.objects.get(pk=cid).status == "active"


def test_merged_people_are_erased_together_and_unmerge_is_refused() -> None:
    a, _ = _candidate("Mona Merge", "mona@a.example")
    b, _ = _candidate("Mona Merge", "mona@b.example")
    journal = candidates_api.candidate_merge(survivor_id=a, merged_id=b, actor=ADMIN)
    erasure = retention_api.subject_erase(candidate_id=b, reason="art. 17", actor=ADMIN)  # the merged-away id
    assert erasure.candidate_id == a and sorted(erasure.candidate_ids) == sorted([a, b])
    for cid in (a, b):
        c = candidates_api.Candidate.objects.get(pk=cid)
        assert c.status == "erased" and not c.display_name and not c.email
    with pytest.raises(ValueError, match="cannot be undone: the person was erased"):
        candidates_api.candidate_unmerge(merge_id=journal.id, actor=ADMIN)
    # Both e-mails are tombstoned (HMACs only: the values are nowhere in the table).
    assert retention_api.tombstone_match(emails=["MONA@b.example "]) == erasure.id
    assert retention_api.tombstone_match(phones=["+44 1632 960999"]) == erasure.id
    assert retention_api.tombstone_match(emails=["someone@else.example"]) is None


def test_weekly_verifier_finds_a_purged_blob_that_came_back() -> None:
    cid, att_id = _candidate("Vera Verify", "vera@verify.example")
    att = intake_api.Attachment.objects.get(pk=att_id)
    container, key = att.storage_container, att.storage_key
    erasure = retention_api.subject_erase(candidate_id=cid, reason="art. 17", actor=ADMIN)
    assert f"{container}/{key}" in erasure.purged_blobs
    assert retention_api.purge_verify().ok
    assert retention_api.retention_status()["verify_missing"] == 0
    # The nightly orphan reconciliation does not report the erased document's bytes missing.
    from ats.evidence import api as evidence_api

    report = evidence_api.blobs_reconcile(dry_run=True)
    assert att_id not in [m["id"] for m in report["missing_blobs"]], report["missing_blobs"]
    # A blob restored from somewhere (a storage snapshot) under a purged key.
    from ats.intake import adapters

    adapters.blob_store().put(container, key, b"came back")
    v = retention_api.purge_verify()
    assert not v.ok and f"{container}/{key}" in v.still_present
    assert retention_api.retention_status()["verify_missing"] == 1
    adapters.blob_store().delete(container, key)
    assert retention_api.purge_verify().ok


def test_tombstone_key_is_configurable_and_never_the_value(settings: Any) -> None:
    settings.TOMBSTONE_HMAC_KEY = "k1"
    one = retention_api.tombstone_digests(emails=["x@y.example"])
    settings.TOMBSTONE_HMAC_KEY = "k2"
    two = retention_api.tombstone_digests(emails=["x@y.example"])
    assert one != two and all("x@y" not in d for _, d in one + two)
    assert retention_api.tombstone_digests(emails=["not-an-email"], phones=["12"]) == []


def test_mail_sender_metadata_and_ledger_are_erased_and_exported(tmp_path: Path) -> None:
    from ats.channels import api as channels_api
    from ats.channels.models import LedgerAttachment, MessageLedger
    from ats.intake import services as intake_services

    channel, _ = channels_api.channel_add(mailbox="jobs@corp.example")
    raw = intake_api.intake_receive(
        channel="mail",
        files=[intake_api.IncomingFile("Lena_Ledger_CV.pdf", web_helpers.unique_pdf("Lena Ledger"))],
        source_ref="<abc123@mail.lena.example>",
        metadata={
            "from": "lena@mail.lena.example",
            "from_name": "Lena Ledger",
            "subject": "CV - Lena Ledger",
            "channel_id": channel.id,
            "requisition_id": None,
        },
    )
    att = intake_api.raw_intake_attachments(raw.pk)[0]
    intake_services.attachment_ingest(attachment_id=att.pk)
    web_helpers.settle_jobs(att.pk, web_helpers.INGEST)
    intake_services.parse_attempt_record_success(
        attachment_id=att.pk, attempt_no=1, text="Lena Ledger lena@mail.lena.example", page_count=1,
        result={"kind": "pdf"}, policy_hash="a" * 64,
    )  # fmt: skip
    web_helpers.settle_jobs(att.pk, web_helpers.PARSE)
    cid = web_helpers.candidate_from(
        intake_api.Attachment.objects.get(pk=att.pk), name="Lena Ledger", emails=("lena@mail.lena.example",)
    )
    msg = MessageLedger.objects.create(
        channel_id=channel.id, graph_message_id="AAMk-1", internet_message_id="<abc123@mail.lena.example>",
        raw_intake_id=raw.pk, outcome="ingested",
    )  # fmt: skip
    LedgerAttachment.objects.create(message=msg, graph_attachment_id="att-1", sha256=att.sha256 or "f" * 64,
                                    attachment_id=att.pk, outcome="ingested")  # fmt: skip

    # A lost-document check that once listed it (by file name).
    from ats.intake.models import VerificationRun

    VerificationRun.objects.create(
        lost_count=1, lost=[{"attachment_id": att.pk, "filename": "Lena_Ledger_CV.pdf", "state": "parsed", "why": "-"}]
    )
    exported = retention_api.subject_rows(candidate_id=cid)["tables"]
    assert [r["id"] for r in exported["channels_message_ledger"]] == [msg.pk]
    assert exported["intake_verification_run"][0]["lost"][0]["filename"] == "Lena_Ledger_CV.pdf"
    assert exported["intake_raw_intake"][0]["metadata"]["from"] == "lena@mail.lena.example"
    assert any(e["action"] == "intake.received" for e in exported["audit_event"])
    assert any((d.get("details") or {}).get("filename") for d in exported["audit_event_personal"])

    retention_api.subject_erase(candidate_id=cid, reason="art. 17", actor=ADMIN)
    raw = intake_api.RawIntake.objects.get(pk=raw.id)  # the row: the erasure rewrote its columns
    msg.refresh_from_db()
    assert raw.metadata == {"channel_id": channel.id, "requisition_id": None} and raw.source_ref == "erased"
    assert msg.internet_message_id == "" and msg.graph_message_id == "AAMk-1"  # the exactly-once key stays
    assert LedgerAttachment.objects.get(message=msg).sha256 == ""
    a = intake_api.Attachment.objects.get(pk=att.pk)
    assert (a.state, a.filename, a.sha256) == ("erased_subject", "erased", "")
    after = retention_api.subject_rows(candidate_id=cid)["tables"]
    assert all(d["details"] is None for d in after["audit_event_personal"])
    assert "Lena" not in str(after)


def test_purge_erases_held_back_documents_after_the_grace_period() -> None:
    cid, _ = _candidate("Hera Heldback", "hera@held.example")
    erasure = retention_api.subject_erase(candidate_id=cid, reason="art. 17", actor=ADMIN)
    later = web_helpers.parsed_ok("hera-again.pdf")
    with transaction.atomic():
        assert intake_api.attachment_mark_erased_subject(attachment_id=later.pk, erasure_id=erasure.id)
    key = later.storage_key
    retention_api.retention_purge()  # within the grace period: kept for a re-admit
    assert intake_api.Attachment.objects.get(pk=later.pk).filename == "hera-again.pdf"
    intake_api.Attachment.objects.filter(pk=later.pk).update(
        state_changed_at=timezone.now() - datetime.timedelta(days=31)
    )
    run = retention_api.retention_purge()
    a = intake_api.Attachment.objects.get(pk=later.pk)
    assert run.state == "completed" and (a.state, a.filename, a.sha256) == ("erased_subject", "erased", "")
    from ats.intake import adapters

    assert not adapters.blob_store().exists(a.storage_container, key)
    [action] = RetentionAction.objects.filter(run_id=run.id, step="held_back_document")
    assert action.outcome == "done" and action.detail["attachment_id"] == later.pk


def test_self_identification_is_in_the_subject_access_export_and_erased(tmp_path: Path) -> None:
    from ats.selfid import api as selfid_api

    cid, _ = _candidate("Sofia Selfid", "sofia@selfid.example")
    selfid_api.selfid_record(candidate_id=cid, sex="female", race_ethnicity="asian", source="admin_survey", actor=ADMIN)
    # Art. 15: the person receives their own answers, in words, with who entered them.
    rows = retention_api.subject_rows(candidate_id=cid)["tables"]["selfid_response"]
    assert [(r["candidate_id"], r["sex"], r["race_ethnicity"], r["entered_by"]) for r in rows] == [
        (cid, "Female", "Asian", "test:admin")
    ]
    out = retention_api.subject_export(candidate_id=cid, out_dir=tmp_path / "export", actor=ADMIN)
    assert out["tables"]["selfid_response"] == 1
    assert '"race_ethnicity": "Asian"' in (tmp_path / "export" / "subject.json").read_text()
    # What the export shows is what an erasure removes.
    retention_api.subject_erase(candidate_id=cid, reason="art. 17", actor=ADMIN)
    assert retention_api.subject_rows(candidate_id=cid)["tables"]["selfid_response"] == []
