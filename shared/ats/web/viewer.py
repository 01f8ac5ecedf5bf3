"""The CV viewer: page images, the original file, and what the templates need to show them.

Page images are derivatives the trusted side encoded from raw pixels (ats.intake.pages);
they are served as PNG only, never sniffed, never a document context. Access: recruiters
and admins read every document; a hiring manager reads a document only through a
candidate they may see (`candidates_api.candidate_detail` with the actor - the place the
hiring-manager scope of issue 21 N2 applies, so the viewer follows it).
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from ats.audit import api as audit_api
from ats.candidates import api as candidates_api
from ats.iam import api as iam_api
from ats.intake import api as intake_api
from ats.web.access import requires

MAX_VIEWER_PAGES = 20


def may_read_document(user: Any, att: Any) -> bool:
    """Recruiters/admins: any document. Hiring managers: only a document of a candidate
    they may see - candidate_detail applies the hiring-manager scope (issue 21 N2)."""
    if iam_api.can(user, "intake.view"):
        return True
    if not iam_api.can(user, "document.read") or not att.candidate_id:
        return False
    try:
        return candidates_api.candidate_detail(att.candidate_id, actor=user) is not None
    except PermissionError:
        return False


def _image(png: bytes, name: str) -> HttpResponse:
    response = HttpResponse(png, content_type="image/png")
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "default-src 'none'; sandbox"
    response["Content-Disposition"] = f'inline; filename="{name}"'
    response["Cache-Control"] = "private, max-age=300"
    return response


@requires("document.read")
@require_GET
def page_image(request: HttpRequest, attachment_id: int, page_no: int) -> HttpResponse:
    """`/documents/<id>/pages/<n>.png` (n from 1): served once the document is terminal."""
    att = intake_api.attachment_get(attachment_id)
    if att is None or not may_read_document(request.user, att):
        raise Http404("no such document")
    png = intake_api.page_image_png(attachment_id, page_no) if 1 <= page_no <= MAX_VIEWER_PAGES else None
    if png is None:
        raise Http404("no such page image")
    return _image(png, f"document-{attachment_id}-page-{page_no}.png")


@requires("document.download")
@require_GET
def original(request: HttpRequest, attachment_id: int) -> HttpResponse:
    """The file as received, as a download (never inline), audited per download. Only a
    document the scanner passed: a blocked or unscanned file is never handed out."""
    att = intake_api.attachment_get(attachment_id)
    if att is None or att.virus_scan_status != "clean" or att.state in ("blocked_malware", "erased_subject"):
        raise Http404("no downloadable original")
    data = intake_api.attachment_original_bytes(attachment_id=attachment_id)
    if data is None:
        raise Http404("no downloadable original")
    audit_api.audit_event_record(
        actor=iam_api.actor_label(request.user),
        action="intake.original_downloaded",
        object_type="attachment",
        object_id=attachment_id,
        payload={"sha256": att.sha256, "bytes": len(data)},
    )
    response = HttpResponse(data, content_type="application/octet-stream")
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "default-src 'none'; sandbox"
    ext = {"pdf": "pdf", "docx": "docx", "png": "png", "jpeg": "jpg", "tiff": "tif"}.get(att.detected_type, "bin")
    response["Content-Disposition"] = f'attachment; filename="document-{attachment_id}.{ext}"'
    response["Cache-Control"] = "private, no-store"
    return response


def viewer_context(user: Any, att: Any) -> dict[str, Any]:
    """What templates/ats/_viewer.html needs for one document."""
    images = intake_api.page_images(att.pk)
    return {
        "doc": att,
        "state": images.state,
        "reason": images.reason,
        "pages": images.pages,
        "page_total": len(images.pages),
        "can_download": iam_api.can(user, "document.download")
        and att.virus_scan_status == "clean"
        and att.state not in ("blocked_malware", "erased_subject"),
    }


def candidate_viewer(
    request: HttpRequest, document_ids: list[int], attachments: dict[int, Any]
) -> dict[str, Any] | None:
    """The document the candidate page shows: `?doc=<id>` if it is one of theirs, else the
    newest. None when the reader may not read it (or there is none)."""
    if not document_ids:
        return None
    wanted = request.GET.get("doc", "")
    doc_id = int(wanted) if wanted.isdigit() and int(wanted) in document_ids else max(document_ids)
    att = attachments.get(doc_id)
    if att is None or not may_read_document(request.user, att):
        return None
    return {**viewer_context(request.user, att), "heading": "The CV"}


def source_box(src: dict[str, Any], shown: dict[str, Any] | None) -> dict[str, Any] | None:
    """A field source that can be lit up on the shown document's page image: its page and
    box (the stored provenance), else None (DOCX parts have no box: the excerpt stands)."""
    if shown is None or shown["state"] != "ready" or src.get("attachment_id") != shown["doc"].pk:
        return None
    page, bbox = src.get("page"), src.get("bbox")
    if not isinstance(page, int) or not 1 <= page <= shown["page_total"]:
        return None
    if not isinstance(bbox, list | tuple) or len(bbox) != 4:
        return None
    try:
        box = [float(x) for x in bbox]
    except (TypeError, ValueError):
        return None
    return {"page": page, "bbox": ",".join(f"{x:.2f}" for x in box)}
