"""Log filter: a document's typed failure is a domain outcome, not an operator error.

procrastinate logs every failed job at ERROR with its traceback. A PermanentFailure
(an encrypted CV, a corrupt file, malware) is already a visible domain state with its
reason; logging it as an error with a stack trace buries real faults. Such records
are lowered to WARNING and keep one line; every other failure is left as it is.
"""

from __future__ import annotations

import logging

from ats.jobs.runtime import PermanentFailure


class PermanentFailureAsWarning(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, PermanentFailure) and record.levelno >= logging.ERROR:
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.msg = f"{record.msg} - {exc.code}: {exc.reason}"
            record.exc_info = None
            record.exc_text = None
        return True
