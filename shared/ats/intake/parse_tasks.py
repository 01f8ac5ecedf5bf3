"""The parse task: the ONLY task module worker-untrusted imports (queue `parse`).

It reads the hand-off row, runs the document through the sandbox, and reports the
validated result. Parsing never happens in this process: hostile bytes go only to the
sandbox child.
"""

from __future__ import annotations

from typing import Any

from ats.intake import parse_runner
from ats.jobs import api as jobs_api


def _exhausted(*, attachment_id: int, attempt_no: int, reason_code: str, reason: str, **_: Any) -> None:
    parse_runner.report_failure(attachment_id=attachment_id, attempt_no=attempt_no, code=reason_code, reason=reason)


@jobs_api.task("intake.parse_attachment", on_exhausted=_exhausted)
def parse_attachment(*, attachment_id: int, attempt_no: int, payload_version: int) -> None:
    parse_runner.run(attachment_id=attachment_id, attempt_no=attempt_no)
