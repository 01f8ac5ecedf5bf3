"""A document's typed failure is logged as a one-line warning; real faults stay errors."""

from __future__ import annotations

import logging
import sys

from ats.jobs import api as jobs_api
from ats.jobs.logging import PermanentFailureAsWarning


def _record(exc: BaseException) -> logging.LogRecord:
    try:
        raise exc
    except BaseException:
        info = sys.exc_info()
    return logging.LogRecord("procrastinate.worker", logging.ERROR, __file__, 1, "Job x ended", None, info)


def test_permanent_failure_becomes_a_one_line_warning() -> None:
    record = _record(jobs_api.PermanentFailure("encrypted", "password-protected"))
    assert PermanentFailureAsWarning().filter(record)
    assert (record.levelname, record.exc_info) == ("WARNING", None)
    assert record.getMessage().endswith("encrypted: password-protected")


def test_other_failures_keep_their_level_and_traceback() -> None:
    record = _record(RuntimeError("database went away"))
    assert PermanentFailureAsWarning().filter(record)
    assert record.levelname == "ERROR" and record.exc_info is not None
