"""Thin tasks: take ids, re-check state, call this module's services.

The candidate step (`candidates.create_from_attachment`) crosses modules and lives in
ats.pipeline.tasks.
"""

from __future__ import annotations

import logging

from ats.candidates import services
from ats.jobs import api as jobs_api

logger = logging.getLogger(__name__)


@jobs_api.task("candidates.dedupe")
def dedupe(*, candidate_id: int, payload_version: int) -> None:
    # The service re-checks the candidate (merged away / erased -> logged no-op) and locks
    # each pair's two rows itself; per-pair transactions keep lock hold times short.
    for outcome in services.candidate_dedupe(candidate_id=candidate_id):
        logger.info("dedupe candidate %s: %s", candidate_id, outcome)
