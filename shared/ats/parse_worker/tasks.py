"""The parse task: the ONLY task worker-untrusted registers (queue `parse`).

Its name `intake.parse_attachment` is unchanged since it lived in `ats.intake`: queued
jobs, the jobs policy row and ats_parse_submit() (policy/db-role.sql) all refer to it.

It reads the hand-off row, runs the document through the sandbox, and reports the
validated result. Parsing never happens in this process: hostile bytes go only to the
sandbox child.
"""

from __future__ import annotations

from ats.jobs import api as jobs_api
from ats.jobs import worker_api as jobs_worker
from ats.parse_worker import runner
from ats.parse_worker.modules import loaded_modules


@jobs_api.task("intake.parse_attachment")
def parse_attachment(*, attachment_id: int, attempt_no: int, payload_version: int) -> None:
    runner.run(attachment_id=attachment_id, attempt_no=attempt_no)


# `ats healthcheck --deployable untrusted` judges the zygotes through the worker's status
# file; starting them at worker start makes a broken sandbox fail the probe at once.
jobs_worker.add_status_provider("sandbox", runner.sandbox_status)
jobs_worker.on_worker_start(runner.start_sandbox)
# What this process has imported, for the comparison with policy/modules.txt.
jobs_worker.add_status_provider("modules", loaded_modules)
