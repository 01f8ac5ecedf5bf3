"""Structured logs: one JSON object per line in production, correlated by job and request.

Every record - ours (stdlib `logging` or structlog), Django's and procrastinate's - goes
through the same structlog processor chain (`ProcessorFormatter`), so a line carries:
- `request_id` of the web request that started the work, also inside every job that
  request deferred (it travels in the job's payload envelope as `rid`, payload v2);
- in a job: `job_id`, `task`, `attempt`, `queue` and the payload's ids
  (`attachment_id`, `candidate_id`, ...), bound by the task wrapper
  (ats.jobs.runtime) - or, for procrastinate's own lines, lifted from the job it logs.

Never logged: document bytes or text, parse answers, e-mail addresses, phone numbers -
payloads carry only ids (ADR convention 4) and `tests/observability/test_logs.py` feeds a
CV through the whole chain and greps every captured line for its e-mail and phone.

`ATS_LOG_FORMAT=json` (default) or `console` (human-readable, for `just up`).
"""

from __future__ import annotations

import logging
import os
import re
import uuid
from collections.abc import Callable, MutableMapping
from typing import Any

import structlog

REQUEST_ID_HEADER = "HTTP_X_REQUEST_ID"
_SAFE_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
# Payload keys that may be logged: identifiers only (never free text).
_ID_KEY = re.compile(r"^[a-z_]*_id$|^attempt_no$")


def new_request_id(offered: str | None = None) -> str:
    """The caller's X-Request-ID when it is a plain token, else a fresh one."""
    if offered and _SAFE_REQUEST_ID.match(offered):
        return offered
    return uuid.uuid4().hex


def current_request_id() -> str | None:
    rid = structlog.contextvars.get_contextvars().get("request_id")
    return str(rid) if rid else None


def payload_ids(payload: MutableMapping[str, Any] | dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in payload.items() if _ID_KEY.match(k) and isinstance(v, int | str)}


def _procrastinate_job(_: Any, __: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """procrastinate's own lines ("Job ... ended") carry the job in `extra`; lift its ids."""
    record = event.get("_record")
    job = getattr(record, "job", None)
    if isinstance(job, dict):
        event.setdefault("job_id", job.get("id"))
        event.setdefault("task", job.get("task_name"))
        event.setdefault("queue", job.get("queue"))
        if isinstance(job.get("attempts"), int):
            event.setdefault("attempt", job["attempts"] + 1)
        kwargs = job.get("task_kwargs") or {}
        if isinstance(kwargs, dict):
            for key, value in payload_ids(kwargs).items():
                event.setdefault(key, value)
            if kwargs.get("rid"):
                event.setdefault("request_id", kwargs["rid"])
    return event


def _shared_processors() -> list[Callable[..., Any]]:
    return [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        _procrastinate_job,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]


def formatter() -> logging.Formatter:
    """logging.config factory (settings.LOGGING): JSON lines, or console when asked."""
    renderer: Any
    if os.environ.get("ATS_LOG_FORMAT", "json") == "console":
        renderer = structlog.dev.ConsoleRenderer(colors=False)
    else:
        renderer = structlog.processors.JSONRenderer()
    _configure_structlog()
    return structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=_shared_processors(),
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            renderer,
        ],
    )


def _configure_structlog() -> None:
    # structlog-native loggers (ats.mail.graph) hand their event to stdlib logging, so
    # both kinds leave through the one formatter above.
    structlog.configure(
        processors=[
            *_shared_processors(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
