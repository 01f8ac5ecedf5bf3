"""The web upload channel: behind login and iam.can, through the one intake facade."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_POST

from ats.intake import api as intake_api
from ats.scoring import api as scoring_api
from ats.web.access import api_error, requires

MAX_FILES_PER_UPLOAD = 20


@requires("intake.upload", api=True, denied_message="you may not upload documents")
@require_POST
def upload(request: HttpRequest) -> JsonResponse:
    files = request.FILES.getlist("files")
    if not files:
        return api_error(400, "no_files", "no files: send multipart field 'files'")
    if len(files) > MAX_FILES_PER_UPLOAD:
        return api_error(400, "too_many_files", f"at most {MAX_FILES_PER_UPLOAD} files per upload")
    limit = intake_api.max_upload_bytes()
    too_large = [f.name for f in files if (f.size or 0) > limit]
    if too_large:
        # Refused synchronously with the reason: the uploader sees it at once, nothing
        # half-accepted is left behind.
        return api_error(
            413, "too_large", f"file(s) over the {limit:,}-byte limit: {', '.join(str(n) for n in too_large)}"
        )
    requisition = request.POST.get("requisition") or None
    metadata = None
    if requisition is not None:
        # The upload form's requisition field: the document applies to it.
        if not requisition.isdigit() or not scoring_api.requisition_exists(int(requisition)):
            return JsonResponse({"error": f"requisition {requisition} does not exist"}, status=400)
        metadata = {"requisition_id": int(requisition)}
    incoming = [
        intake_api.IncomingFile(filename=str(f.name or "unnamed"), data=f.read(), content_type=f.content_type or "")
        for f in files
    ]
    raw = intake_api.intake_receive(
        channel="upload", files=incoming, source_ref="web", actor=request.user, metadata=metadata
    )
    return JsonResponse(
        {
            "raw_intake_id": raw.pk,
            "attachments": [intake_api.attachment_status(a) for a in intake_api.raw_intake_attachments(raw.pk)],
        },
        status=201,
    )
