"""The web upload channel: behind login and iam.can, through the one intake facade.

Uploads are streamed (issue 21 N4): each file goes chunk by chunk into its own quarantine
blob while it is hashed (`QuarantineUploadHandler`), so a request never sits whole in
memory or in /tmp. Two limits, both stated in words when they refuse:

- per file, `ATS.MAX_UPLOAD_BYTES`: a file over it stops being stored the moment it
  crosses the limit and is recorded `rejected_too_large` with its reason; the rest of its
  batch goes on (201, the refused file among the attachments);
- per request, `ATS.MAX_UPLOAD_REQUEST_BYTES`: a request whose Content-Length is over it
  is refused with 413 before a byte of it is read - nothing of it is kept.

Every streamed blob that no intake row ends up owning (a refused request, a CSRF failure,
a broken connection, a database outage) is deleted when the request closes.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.files.uploadhandler import FileUploadHandler
from django.db import transaction
from django.http import HttpRequest, JsonResponse
from django.http.response import HttpResponseBase
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_POST

from ats.intake import api as intake_api
from ats.scoring import api as scoring_api
from ats.web.access import api_error, requires

log = logging.getLogger(__name__)

MAX_FILES_PER_UPLOAD = 20
# Bytes handed to the blob writer at a time (Django's default is 64 KiB).
CHUNK_BYTES = 256 * 1024


def size_words(n: int) -> str:
    """A limit as people say it: 20 MB, 100 MB, 1.5 MB (binary megabytes, as the page shows)."""
    mb = n / (1024 * 1024)
    if mb >= 1:
        return f"{mb:.0f} MB" if mb.is_integer() else f"{mb:.1f} MB"
    return f"{n / 1024:.0f} KB" if n >= 1024 else f"{n} bytes"


class StoredUpload:
    """A file streamed into quarantine. Deleted at close unless an intake row claimed it."""

    def __init__(self, name: str, content_type: str, key: str, written: Any) -> None:
        self.name, self.content_type, self.key = name, content_type, key
        self.size: int = written.size
        self.sha256: str = written.sha256
        self.head: bytes = written.head
        self.claimed = False
        self._closed = False

    def close(self) -> None:
        if not self.claimed and not self._closed:
            self._closed = True
            try:
                intake_api.quarantine_discard([self.key])
            except Exception:  # storage down too: the orphan reconciliation removes it later
                log.warning("could not delete unclaimed upload blob %s", self.key, exc_info=True)
        self._closed = True


class RefusedUpload:
    """A file over the per-file limit: counted, never stored."""

    def __init__(self, name: str, content_type: str, size: int) -> None:
        self.name, self.content_type, self.size = name, content_type, size

    def close(self) -> None:
        return None


class _InFlight:
    """What Django's parser closes as `handler.file` when it stops a file early."""

    def __init__(self, handler: QuarantineUploadHandler) -> None:
        self.handler = handler

    def close(self) -> None:
        self.handler.abort_current()


class QuarantineUploadHandler(FileUploadHandler):
    """Streams each uploaded file into a quarantine blob (sha256 and first bytes on the
    way); a file crossing the per-file limit is dropped there and then."""

    chunk_size = CHUNK_BYTES

    def __init__(self, request: HttpRequest, *, per_file_limit: int) -> None:
        super().__init__(request)
        self.per_file_limit = per_file_limit
        self.writer: Any = None
        self.key = ""
        self.too_large = False

    def new_file(self, *args: Any, **kwargs: Any) -> None:
        super().new_file(*args, **kwargs)
        self.too_large = False
        self.key, self.writer = intake_api.quarantine_writer()
        self.file = _InFlight(self)

    def receive_data_chunk(self, raw_data: bytes, start: int) -> None:
        if self.too_large:
            return None
        if start + len(raw_data) > self.per_file_limit:
            self.too_large = True  # stop storing it now; the parser keeps counting its size
            self.writer.abort()
            return None
        self.writer.write(raw_data)
        return None

    # Django's stubs say UploadedFile; the parser only needs an object with close().
    def file_complete(self, file_size: int) -> StoredUpload | RefusedUpload:  # type: ignore[override]
        name, content_type = str(self.file_name or "unnamed"), self.content_type or ""
        if self.too_large:
            return RefusedUpload(name, content_type, file_size)
        upload = StoredUpload(name, content_type, self.key, self.writer.commit())
        self.writer = None
        return upload

    def abort_current(self) -> None:
        """End a file the parser did not finish (broken connection, malformed body)."""
        if self.writer is not None and not self.writer.finished:
            self.writer.abort()
        self.writer = None


def _refusal_reason(size: int, limit: int) -> str:
    return (
        f"The file is {size:,} bytes, over the {size_words(limit)} limit per file ({limit:,} bytes);"
        " it was not kept. The other files of this upload went on."
    )


@requires("intake.upload", api=True, denied_message="you may not upload documents")
@require_POST
@csrf_exempt  # CSRF is checked by _upload, after the streaming handler is in place
def upload(request: HttpRequest) -> HttpResponseBase:
    cap = intake_api.max_upload_request_bytes()
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > cap:
        # Refused before reading the body: nothing of it is stored anywhere.
        return api_error(
            413,
            "request_too_large",
            f"This upload is {size_words(length)} ({length:,} bytes); one upload may carry at most"
            f" {size_words(cap)} ({cap:,} bytes) in all. Nothing of it was kept: send fewer files at a time.",
        )
    handler = QuarantineUploadHandler(request, per_file_limit=intake_api.max_upload_bytes())
    # Must be set before anything reads request.POST/FILES (the CSRF check does).
    request.upload_handlers = [handler]
    try:
        return _upload(request)
    finally:
        handler.abort_current()


@csrf_protect
def _upload(request: HttpRequest) -> JsonResponse:
    files: list[Any] = list(request.FILES.getlist("files"))  # StoredUpload | RefusedUpload
    if not files:
        return api_error(400, "no_files", "no files: send multipart field 'files'")
    if len(files) > MAX_FILES_PER_UPLOAD:
        return api_error(400, "too_many_files", f"at most {MAX_FILES_PER_UPLOAD} files per upload")
    requisition = request.POST.get("requisition") or None
    metadata = None
    if requisition is not None:
        # The upload form's requisition field: the document applies to it.
        if not requisition.isdigit() or not scoring_api.requisition_exists(int(requisition)):
            return JsonResponse({"error": f"requisition {requisition} does not exist"}, status=400)
        metadata = {"requisition_id": int(requisition)}
    stored = [f for f in files if isinstance(f, StoredUpload)]
    refused = [f for f in files if isinstance(f, RefusedUpload)]
    limit = intake_api.max_upload_bytes()
    with transaction.atomic():
        raw = intake_api.intake_receive_stored(
            channel="upload",
            files=[intake_api.StoredFile(f.name, f.key, f.size, f.content_type) for f in stored],
            source_ref="web",
            actor=request.user,
            metadata=metadata,
        )
        # A file over the per-file limit is a document that arrived: it gets its row, in
        # its terminal state with the reason, like every other refused document.
        for r in refused:
            intake_api.attachment_record_rejected(
                raw_intake_id=raw.pk,
                filename=r.name,
                state="rejected_too_large",
                reason_code="too_large",
                reason=_refusal_reason(r.size, limit),
                declared_content_type=r.content_type,
                size_bytes=r.size,
            )
    for kept in stored:
        kept.claimed = True  # committed: the rows own these blobs now
    return JsonResponse(
        {
            "raw_intake_id": raw.pk,
            "attachments": [intake_api.attachment_status(a) for a in intake_api.raw_intake_attachments(raw.pk)],
            # New (issue 21 N4): how many files were kept and refused, and the limits applied.
            "accepted": len(stored),
            "refused": len(refused),
            "limits": {"file_bytes": limit, "request_bytes": intake_api.max_upload_request_bytes()},
        },
        status=201,
    )
