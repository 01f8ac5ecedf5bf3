"""The parse task: the ONLY task module worker-untrusted imports (queue `parse`).

It reads the hand-off row, runs the document through the sandbox, and reports the
validated result. Parsing never happens in this process: hostile bytes go only to the
sandbox child.
"""

from __future__ import annotations

from ats.intake import parse_runner
from ats.jobs import api as jobs_api


@jobs_api.task("intake.parse_attachment")
def parse_attachment(*, attachment_id: int, attempt_no: int, payload_version: int) -> None:
    parse_runner.run(attachment_id=attachment_id, attempt_no=attempt_no)


# `ats healthcheck --deployable untrusted` judges the zygotes through the worker's status
# file; starting them at worker start makes a broken sandbox fail the probe at once.
jobs_api.add_status_provider("sandbox", parse_runner.sandbox_status)
jobs_api.on_worker_start(parse_runner.start_sandbox)
