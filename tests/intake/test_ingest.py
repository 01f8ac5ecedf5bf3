"""Trusted half of the chain with real components: storage, magic bytes, real clamd."""

from __future__ import annotations

import hashlib
import json
import zipfile
from io import BytesIO
from typing import Any

import pytest
from django.db import connection

from ats.intake import api as intake_api
from ats.intake import services
from tests import corpus
from tests.jobs.helpers import wait_for
from tests.scanning.samples import EICAR, make_docx

pytestmark = pytest.mark.django_db(transaction=True)


def receive(name: str, data: bytes) -> intake_api.Attachment:
    raw = intake_api.intake_receive(channel="cli", files=[intake_api.IncomingFile(name, data)])
    return intake_api.Attachment.objects.get(raw_intake_id=raw.id)  # the row: tests read its columns


def ingest(att: intake_api.Attachment) -> intake_api.Attachment:
    """Run the ingest step in-process, standing in for the worker that owns its job."""
    services.attachment_ingest(attachment_id=att.pk)
    with connection.cursor() as cur:
        cur.execute(
            "UPDATE procrastinate_jobs SET status = 'succeeded' WHERE task_name = 'intake.ingest_attachment'"
            " AND status = 'todo' AND args->>'attachment_id' = %s",
            [str(att.pk)],
        )
    return intake_api.Attachment.objects.get(pk=att.pk)


def jobs_for(att_id: int, task: str) -> list[str]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT status::text FROM procrastinate_jobs WHERE task_name = %s AND args->>'attachment_id' = %s",
            [task, str(att_id)],
        )
        return [r[0] for r in cur.fetchall()]


def test_clean_pdf_is_promoted_and_handed_to_parse() -> None:
    data = corpus.text_pdf()
    att = ingest(receive("cv.pdf", data))
    assert att.state == "promoted"
    assert att.virus_scan_status == "clean" and att.scan_engine.startswith("ClamAV")
    assert att.sha256 == hashlib.sha256(data).hexdigest() and att.detected_type == "pdf"
    assert att.storage_container == "documents"
    store = intake_api_store()
    assert store.get("documents", att.storage_key) == data
    assert not store.exists("intake-quarantine", att.storage_key)
    assert jobs_for(att.pk, "intake.parse_attachment") == ["todo"]
    from ats.intake.models import ParseHandoff

    handoff = ParseHandoff.objects.get(attachment_id=att.pk, attempt_no=1)
    assert bytes(handoff.data) == data and handoff.kind == "pdf"


def test_promotion_writes_the_state_and_the_attempt_counter_in_one_update() -> None:
    """Issue 26: the move to `promoted` saves the next parse attempt's number with it (was
    a second UPDATE of the row); the attempt, its hand-off and the parse job match it."""
    from django.test.utils import CaptureQueriesContext

    att = receive("cv.pdf", corpus.text_pdf())
    with CaptureQueriesContext(connection) as q:
        att = ingest(att)
    updates = [x["sql"] for x in q.captured_queries if x["sql"].startswith('UPDATE "intake_attachment"')]
    # One for the checks (`scanning`), one for the promotion with the counter.
    assert len(updates) == 2, updates
    assert '"parse_attempts_requested"' in updates[1] and '"state"' in updates[1]
    assert att.state == "promoted" and att.parse_attempts_requested == 1
    from ats.intake.models import ParseAttempt, ParseHandoff

    assert list(ParseAttempt.objects.filter(attachment_id=att.pk).values_list("attempt_no", flat=True)) == [1]
    assert ParseHandoff.objects.filter(attachment_id=att.pk, attempt_no=1).exists()
    assert jobs_for(att.pk, "intake.parse_attachment") == ["todo"]


def intake_api_store() -> Any:
    from ats.intake import adapters

    return adapters.blob_store()


def test_redelivered_ingest_is_a_no_op() -> None:
    att = ingest(receive("cv.pdf", corpus.text_pdf()))
    again = ingest(att)
    assert again.state == "promoted" and again.parse_attempts_requested == 1
    assert jobs_for(att.pk, "intake.parse_attachment") == ["todo"]


def test_a_run_after_another_run_promoted_the_bytes_finishes_the_document() -> None:
    """A run that promoted the bytes and then died (or is still finishing) leaves the
    document in scanning with its bytes in documents: a second run reads them there,
    ends the document promoted and hands it to parse once, instead of failing on the
    missing quarantine copy (a CI run met this as a race with a live worker)."""
    from ats.intake.models import Attachment

    data = corpus.text_pdf()
    att = receive("cv.pdf", data)
    Attachment.objects.filter(pk=att.pk).update(state="scanning")
    store = intake_api_store()
    store.promote("intake-quarantine", att.storage_key, "documents")
    done = ingest(att)
    assert done.state == "promoted" and done.storage_container == "documents", done.reason
    assert store.get("documents", att.storage_key) == data
    assert jobs_for(att.pk, "intake.parse_attachment") == ["todo"]


@pytest.mark.parametrize(
    ("name", "data"),
    [("cv.pdf", EICAR), ("cv.docx", make_docx(EICAR))],
    ids=["eicar-plain", "eicar-in-docx"],
)
def test_malware_is_blocked_kept_in_quarantine_and_never_parsed(name: str, data: bytes) -> None:
    att = ingest(receive(name, data))
    assert att.state == "blocked_malware", att.reason
    assert "EICAR" in att.scan_signature and att.virus_scan_status == "infected"
    assert att.scan_signature in att.reason and att.scan_engine
    assert intake_api_store().exists("intake-quarantine", att.storage_key)
    assert jobs_for(att.pk, "intake.parse_attachment") == []


def test_type_comes_from_the_bytes_not_the_name() -> None:
    pdf_named_docx = ingest(receive("cv.docx", corpus.text_pdf()))
    assert (pdf_named_docx.state, pdf_named_docx.detected_type) == ("promoted", "pdf")
    exe_named_pdf = ingest(receive("cv.pdf", b"MZ\x90\x00" + b"\x00" * 200 + b"This program cannot be run in DOS mode"))
    assert exe_named_pdf.state == "rejected_unsupported_type"
    assert exe_named_pdf.detected_type == "exe" and "exe" in exe_named_pdf.reason
    assert jobs_for(exe_named_pdf.pk, "intake.parse_attachment") == []


def test_empty_and_oversized_files_are_rejected_with_reasons(settings: Any) -> None:
    empty = ingest(receive("cv.pdf", b""))
    assert (empty.state, empty.reason_code) == ("rejected_empty", "empty")
    settings.ATS["MAX_UPLOAD_BYTES"] = 1000
    try:
        big = ingest(receive("cv.pdf", b"%PDF-1.7\n" + b"x" * 5000))
    finally:
        settings.ATS["MAX_UPLOAD_BYTES"] = 20 * 1024 * 1024
    assert big.state == "rejected_too_large" and "1,000" in big.reason


def test_zip_that_is_not_a_docx_is_rejected() -> None:
    buf = BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("notes.txt", "hello")
    att = ingest(receive("cv.docx", buf.getvalue()))
    assert att.state == "rejected_unsupported_type" and att.detected_type == "zip"


def test_byte_identical_resend_is_linked_not_reprocessed() -> None:
    data = corpus.docx_with_tables()
    first = ingest(receive("cv.docx", data))
    second = ingest(receive("cv-again.docx", data))
    assert first.state == "promoted"
    assert second.state == "duplicate" and second.duplicate_of_id == first.pk
    assert jobs_for(second.pk, "intake.parse_attachment") == []


def test_byte_identical_documents_ingested_at_once_give_one_original(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both ingest jobs hash their bytes before either commits (forced with a barrier:
    2 cores rarely interleave by chance). Without the content lock neither saw the other
    and both became candidates; now exactly one is the original."""
    import threading

    from django.db import connections

    data = corpus.text_pdf()
    a, b = receive("cv.pdf", data), receive("cv-again.pdf", data)
    barrier = threading.Barrier(2, timeout=20)
    real_precheck = services.adapters.precheck

    def precheck_then_wait(blob: bytes) -> Any:
        verdict = real_precheck(blob)
        barrier.wait()  # both have computed their sha256, neither has committed it
        return verdict

    monkeypatch.setattr(services.adapters, "precheck", precheck_then_wait)
    errors: list[BaseException] = []

    def run(att_id: int) -> None:
        try:
            services.attachment_ingest(attachment_id=att_id)
        except BaseException as exc:  # surfaced below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(x.pk,)) for x in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    states = sorted(intake_api.Attachment.objects.filter(pk__in=[a.pk, b.pk]).values_list("state", flat=True))
    assert states == ["duplicate", "promoted"], states
    dup = intake_api.Attachment.objects.get(pk__in=[a.pk, b.pk], state="duplicate")
    assert dup.duplicate_of_id in (a.pk, b.pk) and dup.duplicate_of_id != dup.pk


@pytest.mark.slow
def test_scanner_down_ends_in_scan_failed_after_the_retries(start_worker: Any) -> None:
    from ats.devtools.pg_local import free_port

    dead_port = str(free_port())  # nothing listens there: clamd is "stopped"
    att = receive("cv.pdf", corpus.text_pdf())
    start_worker("default", extra=["--queues=ingest"], env={"ATS_CLAMD_PORT": dead_port})
    wait_for(lambda: intake_api.Attachment.objects.get(pk=att.pk).state == "scan_failed", 60, "scan_failed")
    att = intake_api.Attachment.objects.get(pk=att.pk)
    assert att.virus_scan_status == "scan_failed" and "blocked from reading" in att.reason

    def ingest_job() -> list[tuple[str, int]]:
        with connection.cursor() as cur:
            cur.execute(
                "SELECT status::text, attempts FROM procrastinate_jobs WHERE args->>'attachment_id' = %s",
                [str(att.pk)],
            )
            return list(cur.fetchall())

    # The state is written inside the last attempt, just before the job itself finishes.
    wait_for(lambda: ingest_job()[0][0] != "doing", 10, "ingest job to finish")
    assert ingest_job() == [("failed", 5)]  # the policy's 5 attempts in all
    assert jobs_for(att.pk, "intake.parse_attachment") == []


def test_upload_endpoint_requires_login_and_permission(client: Any, django_user_model: Any) -> None:
    from ats.iam import api as iam_api

    pdf = corpus.text_pdf()

    def post() -> Any:
        return client.post("/api/intake/upload", {"files": [BytesIO(pdf)]}, format="multipart")

    assert post().status_code == 401
    iam_api.user_create(username="hm", password="pw-hm-123456", role="hiring_manager")
    client.login(username="hm", password="pw-hm-123456")
    assert post().status_code == 403
    iam_api.user_create(username="rec", password="pw-rec-123456", role="recruiter")
    client.login(username="rec", password="pw-rec-123456")
    res = post()
    assert res.status_code == 201
    body = json.loads(res.content)
    assert body["attachments"][0]["state"] == "received"
    assert jobs_for(body["attachments"][0]["attachment_id"], "intake.ingest_attachment") == ["todo"]


def test_upload_over_the_limit_is_refused_with_a_reason(client: Any, settings: Any) -> None:
    from ats.iam import api as iam_api

    iam_api.user_create(username="rec2", password="pw-rec-123456", role="recruiter")
    client.login(username="rec2", password="pw-rec-123456")
    settings.ATS["MAX_UPLOAD_BYTES"] = 100
    try:
        res = client.post("/api/intake/upload", {"files": [BytesIO(b"%PDF-" + b"x" * 500)]})
    finally:
        settings.ATS["MAX_UPLOAD_BYTES"] = 20 * 1024 * 1024
    # Refused on its own (issue 21 N4): its row says why, in its terminal state, and its
    # bytes were never kept.
    assert res.status_code == 201
    [att] = json.loads(res.content)["attachments"]
    assert att["state"] == "rejected_too_large" and "limit per file (100 bytes)" in att["reason"]
    assert intake_api.Attachment.objects.get(pk=att["attachment_id"]).storage_key == ""


@pytest.fixture
def azure_store(tmp_path: Any, settings: Any) -> Any:
    from ats.devtools.azurite_local import AzuriteLocal
    from ats.intake import adapters

    with AzuriteLocal(location=tmp_path / "azurite", silent=True) as server:
        settings.ATS["STORAGE_KIND"] = "azure"
        settings.ATS["AZURE_BLOB_CONNECTION_STRING"] = server.connection_string
        adapters.blob_store.cache_clear()
        try:
            yield adapters.blob_store()
        finally:
            settings.ATS["STORAGE_KIND"] = "local"
            adapters.blob_store.cache_clear()


def test_azure_blob_round_trip_quarantine_to_documents(azure_store: Any) -> None:
    data = corpus.text_pdf()
    att = receive("cv.pdf", data)
    assert azure_store.get("intake-quarantine", att.storage_key) == data
    att = ingest(att)
    assert att.state == "promoted"
    assert azure_store.get("documents", att.storage_key) == data
    assert not azure_store.exists("intake-quarantine", att.storage_key)


def test_a_web_upload_streams_into_azure_and_ingests(azure_store: Any, client: Any) -> None:
    """Issue 21 N4 on the Azure store (a real Azurite): the streamed upload's blob is the
    file byte for byte (staged blocks, over 4 MiB), and ingest promotes it as usual."""
    import os

    from ats.iam import api as iam_api

    iam_api.user_create(username="rec-az", password="pw-rec-123456", role="recruiter")
    client.login(username="rec-az", password="pw-rec-123456")
    pdf = corpus.text_pdf()
    # A valid PDF padded past two 4 MiB blocks (trailing bytes after %%EOF are allowed).
    data = pdf + b"\n%" + os.urandom(9 * 1024 * 1024)
    f = BytesIO(data)
    f.name = "big-cv.pdf"
    res = client.post("/api/intake/upload", {"files": [f]})
    assert res.status_code == 201, res.content
    [row] = json.loads(res.content)["attachments"]
    att = intake_api.Attachment.objects.get(pk=row["attachment_id"])
    assert azure_store.get("intake-quarantine", att.storage_key, max_bytes=len(data)) == data
    att = ingest(att)
    assert att.state == "promoted" and att.size_bytes == len(data)
