"""One parse attempt, in worker-untrusted: hand-off row -> sandbox -> ats_parse_submit().

This process connects as the least-privilege parse role: it can read the hand-off row
and call ats_parse_submit() (`ats.parse_worker.handoff`), nothing else in the domain.
The trusted `intake.apply_parse_result` task (worker-default) turns the report into states.
"""

from __future__ import annotations

import functools
import json
import logging
import os
from pathlib import Path
from typing import Any, NoReturn

from ats.config.env import ats_settings
from ats.jobs import api as jobs_api
from ats.parse_worker import data
from ats.parse_worker import handoff as db
from ats.sandbox import data as sandbox_data

logger = logging.getLogger(__name__)

# Typed failure codes that cannot change on retry: reported at once (ADR R3). Every
# extractor verdict is a property of the bytes; of the sandbox's own verdicts, only
# timeouts, memory, crashes and an unavailable sandbox may go differently next time.
PERMANENT = frozenset(
    f.value
    for f in sandbox_data.PARSE_FAILURES
    | {
        sandbox_data.Failure.SECCOMP_VIOLATION,
        sandbox_data.Failure.OUTPUT_TOO_LARGE,
        sandbox_data.Failure.PROTOCOL_ERROR,
    }
)


@functools.cache
def _sandbox() -> Any:
    # Imported here: the sandbox starts its zygote on first use, in the parse worker only.
    from ats.sandbox import api as sandbox_api

    cfg = ats_settings()
    sandbox = sandbox_api.default_sandbox(
        policy_dir=cfg["SANDBOX_POLICY_DIR"],
        allow_inprocess=cfg["SANDBOX_ALLOW_INPROCESS"],
        # One zygote per concurrent parse, or documents would queue behind each other.
        pool_size=int(os.environ.get("ATS_PARSE_CONCURRENCY", "1")),
    )
    sandbox.start()
    return sandbox


def start_sandbox() -> None:
    """At worker start: zygotes ready before the first document, visible to the probe."""
    try:
        _sandbox()
    except Exception:
        # The first document retries the start and records the failure as its outcome.
        logger.exception("sandbox did not start at worker start")


def sandbox_status() -> dict[str, Any] | None:
    """The sandbox's status for the health check (None until it has started)."""
    if _sandbox.cache_info().currsize == 0:
        return None
    status: dict[str, Any] = _sandbox().status()
    return status


@functools.cache
def _limits() -> data.ReportLimits:
    return data.report_limits(Path(ats_settings()["SANDBOX_POLICY_DIR"]))


def run(*, attachment_id: int, attempt_no: int) -> None:
    handoff = db.handoff_get(attachment_id=attachment_id, attempt_no=attempt_no)
    if handoff is None:
        return  # already reported and applied, or superseded: idempotent no-op
    attempt = jobs_api.current_attempt()
    job_id = attempt.job_id if attempt else None
    if job_id is None:
        raise RuntimeError("parse runs only as a job (its id authorises the report)")
    report = functools.partial(db.result_submit, job_id=job_id, attachment_id=attachment_id, attempt_no=attempt_no)
    data = bytes(handoff.data)
    submitted: list[bool] = []

    def submit(parsed: Any) -> None:
        _submit_ok(report, parsed)
        submitted.append(True)

    # The child also renders page 1 for the viewer (issue 26: one fork per one-page CV),
    # after its parse: the report goes in (and the candidate is made) while it renders.
    result = _sandbox().run(sandbox_data.with_first_page_request(handoff.kind), data, on_document=submit)
    if result.ok:
        if not submitted:  # a sandbox that answers once (no hook called): report now
            _submit_ok(report, result)
        # Now the viewer's page images, each its own hand-off row; page 1 came with the
        # parse, each later page is rendered in a sandbox child of its own.
        _render_pages(
            job_id=job_id,
            attachment_id=attachment_id,
            attempt_no=attempt_no,
            kind=handoff.kind,
            data=data,
            first_page=result.first_page,
        )
        return
    code = result.error_code or "crashed"
    last = attempt is not None and attempt.is_last
    if code in PERMANENT or last:
        _report_failure(report, code, result.error_detail, result)
    # Transient (timeouts, memory, crash): retried per policy.
    raise SandboxFailure(code, result.error_detail)


def _submit_ok(report: Any, result: Any) -> None:
    doc = dict(result.document or {})
    payload = {**doc, "sandbox": result.to_dict()}
    try:
        # The validator already held the answer to limits.toml; the size of the whole
        # report is checked here too, so only a disagreement reaches the SQL check.
        # Encoded once (issue 26): this text is what ats_parse_submit() receives too.
        body = json.dumps(payload, ensure_ascii=False)
        size = len(body.encode())  # as Postgres prints it: UTF-8
        if size > _limits().max_result_bytes:
            raise db.ReportRefused(f"result out of range: {size} bytes > {_limits().max_result_bytes}")
        report(
            ok=True,
            code=None,
            detail="",
            text=str(doc.get("text", "")),
            page_count=int(doc.get("pages", 0)),
            result=payload,
            result_json=body,
            policy_hash=result.policy_hash,
        )
    except db.ReportRefused as exc:
        # A report ats_parse_submit() refuses would fail the same way on every retry:
        # the document ends in a typed state instead (never an untyped error).
        code = "output_too_large" if "out of range" in str(exc) else "protocol_error"
        _report_failure(report, code, f"report refused: {exc}", result)


def _report_failure(report: Any, code: str, detail: str, result: Any) -> NoReturn:
    report(
        ok=False,
        code=code,
        detail=detail[: _limits().max_detail_chars],
        text="",
        page_count=None,
        result={"sandbox": result.to_dict()},
        policy_hash=result.policy_hash,
    )
    # The job ends failed (visible in job stats); the document's state comes from the
    # report, applied by the trusted side.
    raise jobs_api.PermanentFailure(code, detail or code)


class SandboxFailure(db.ParseWorkerError):
    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code


def _render_pages(
    *,
    job_id: int,
    attachment_id: int,
    attempt_no: int,
    kind: str,
    data: bytes,
    first_page: Any = None,
) -> None:
    """Render up to PAGE_LIMITS.max_pages pages and hand each off; never fails the parse.

    `first_page`: page 1 as the parse's child rendered it (checked), or None to render it
    here. A page that does not render (or does not fit its row) is skipped: the viewer
    then says that page is missing. The trusted step runs in any case (ats_parse_pages_done).
    """
    total, page, done = 1, 1, False
    try:
        while page <= total:
            why = ""
            if page == 1 and first_page is not None:
                doc: Any = first_page
            else:
                result = _sandbox().run(sandbox_data.render_request(kind, page), data)
                doc, why = (result.document, "") if result.ok else (None, result.error_code or "")
            if doc:
                total = int(doc["pages"]) if page == 1 else total
                last = page == total
                db.page_submit(
                    job_id=job_id,
                    attachment_id=attachment_id,
                    attempt_no=attempt_no,
                    page_no=page,
                    width=int(doc["width"]),
                    height=int(doc["height"]),
                    unit_width=float(doc["unit_width"]),
                    unit_height=float(doc["unit_height"]),
                    data=bytes(doc["data"]),
                    last=last,  # the last page and pages_done in one statement
                )
                done = last
            else:
                logger.warning("page %s of attachment %s not rendered: %s", page, attachment_id, why)
            page += 1
    except Exception:
        # The parse has succeeded; a missing page image must not turn it into a retry.
        logger.exception("page images of attachment %s stopped at page %s", attachment_id, page)
    if not done:  # the last page was not handed off (or failed): the trusted step is due anyway
        db.pages_done(job_id=job_id, attachment_id=attachment_id, attempt_no=attempt_no)
