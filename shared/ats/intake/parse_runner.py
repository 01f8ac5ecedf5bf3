"""Runs one parse attempt through the sandbox and reports its validated result."""

from __future__ import annotations

import functools
import logging
from typing import Any

from ats.config.env import ats_settings
from ats.intake import services
from ats.jobs import api as jobs_api

logger = logging.getLogger(__name__)

# Typed failure codes that cannot change on retry: fail at once (ADR R3).
PERMANENT = frozenset(
    {
        "corrupt",
        "encrypted",
        "unsupported",
        "too_many_pages",
        "too_large",
        "pixel_limit",
        "decompression_bomb",
        "xml_bomb",
        "empty_document",
        "seccomp_violation",
        "output_too_large",
        "protocol_error",
    }
)

REASONS: dict[str, str] = {
    "corrupt": "The file is damaged or is not a valid document of its type.",
    "encrypted": "The document is password-protected. Ask the sender for an unprotected copy.",
    "unsupported": "This kind of document cannot be read.",
    "too_many_pages": "The document has more pages than a CV can reasonably have.",
    "too_large": "The document is too large to read.",
    "pixel_limit": "An image in the document is too large to read safely.",
    "decompression_bomb": "The document expands to an unsafe size when opened (possible attack).",
    "xml_bomb": "The document contains an unsafe XML construct (possible attack).",
    "empty_document": "The document contains no readable text.",
    "ocr_failed": "Text recognition on the scanned pages failed.",
    "timeout_cpu": "Reading the document took longer than the 90 s limit.",
    "timeout_wall": "Reading the document took longer than the 90 s limit.",
    "memory": "Reading the document needed more memory than allowed.",
    "seccomp_violation": "The document made the reader attempt a forbidden operation (possible attack).",
    "output_too_large": "The document produced more output than allowed.",
    "protocol_error": "The reader returned a malformed result.",
    "crashed": "The reader crashed on this document.",
}


def reason_for(code: str, detail: str = "") -> str:
    base = REASONS.get(code, f"The document could not be read ({code}).")
    return base


@functools.cache
def _sandbox() -> Any:
    # Imported here: the sandbox starts its zygote on first use, in the parse worker only.
    from ats.sandbox import api as sandbox_api

    return sandbox_api.default_sandbox(
        policy_dir=ats_settings()["SANDBOX_POLICY_DIR"],
        allow_inprocess=ats_settings()["SANDBOX_ALLOW_INPROCESS"],
    )


def run(*, attachment_id: int, attempt_no: int) -> None:
    handoff = services.parse_handoff_get(attachment_id=attachment_id, attempt_no=attempt_no)
    if handoff is None:
        return  # already reported (redelivery) or superseded: idempotent no-op
    result = _sandbox().run(handoff.kind, bytes(handoff.data))
    if result.ok:
        doc = result.document
        services.parse_attempt_record_success(
            attachment_id=attachment_id,
            attempt_no=attempt_no,
            text=doc["text"],
            page_count=doc["pages"],
            result=doc,
            policy_hash=result.policy_hash,
        )
        return
    code = result.error_code
    if code in PERMANENT:
        report_failure(
            attachment_id=attachment_id,
            attempt_no=attempt_no,
            code=code,
            reason=reason_for(code),
            policy_hash=result.policy_hash,
        )
        raise jobs_api.PermanentFailure(code, result.error_detail or code)
    # Transient (timeouts, memory, crash): retried per policy; the last attempt's
    # exhaustion handler records the failure with this code.
    raise jobs_api.PermanentFailure(code, reason_for(code)) if _is_last() else SandboxFailure(code)


class SandboxFailure(Exception):
    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def _is_last() -> bool:
    attempt = jobs_api.current_attempt()
    return attempt is not None and attempt.is_last


def report_failure(*, attachment_id: int, attempt_no: int, code: str, reason: str, policy_hash: str = "") -> None:
    services.parse_attempt_record_failure(
        attachment_id=attachment_id, attempt_no=attempt_no, code=code, reason=reason, policy_hash=policy_hash
    )
