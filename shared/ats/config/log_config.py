"""LOGGING for every process (the trusted settings and worker-untrusted's own): JSON lines
with job/request correlation (docs/observability.md#logs); ATS_LOG_FORMAT=console for
humans. Permanent task failures (a document's domain state already says why) log as
warnings, not errors."""

from __future__ import annotations

import os
from typing import Any

LOGGING: dict[str, Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"permanent_failure": {"()": "ats.jobs.logging.PermanentFailureAsWarning"}},
    "formatters": {"structured": {"()": "ats.observability.logs.formatter"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "filters": ["permanent_failure"], "formatter": "structured"}
    },
    "root": {"handlers": ["console"], "level": os.environ.get("ATS_LOG_LEVEL", "INFO")},
    "loggers": {"procrastinate": {"level": os.environ.get("ATS_PROCRASTINATE_LOG_LEVEL", "WARNING")}},
}
