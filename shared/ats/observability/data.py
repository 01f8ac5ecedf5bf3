"""In-process instruments of the trusted worker (no Django, no database).

Other modules record what only they see through the `record_*` functions here; the
worker-default process serves them on its metrics port (ats.observability.server).
Database-derived metrics live in ats.monitoring.collector and are served by the
exporter (one per web pod), never by a worker.

worker-untrusted records nothing here: it opens no port. Its sandbox figures reach
Prometheus through the trusted side - `intake.apply_parse_result` records each report's
outcome, CPU seconds and peak memory as it applies it (`record_parse_report`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from prometheus_client import Counter, Histogram, disable_created_metrics

from ats.sandbox.data import REPORT_CHECKS

# `*_created` series double the series count and no rule or panel reads them.
disable_created_metrics()

# Buckets that resolve a 10 ms parse and a 30 min purge alike (job durations), and the
# ADR's thresholds (30 s for `ai`, 10 min for ingest/parse) for time-to-start.
DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600)
TIME_TO_START_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 7200)
SANDBOX_CPU_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 90)
MEMORY_BUCKETS = tuple(float(mb * 1024 * 1024) for mb in (4, 8, 16, 32, 64, 128, 256, 512, 1024))
CLAMD_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)

CLAMD_SCANS = Counter("ats_clamd_scans", "clamd verdicts of the malware scan", ["verdict"])
CLAMD_SECONDS = Histogram("ats_clamd_scan_seconds", "clamd INSTREAM round trip", buckets=CLAMD_BUCKETS)
GRAPH_RESPONSES = Counter(
    "ats_graph_throttled_responses", "Microsoft Graph answers that asked us to slow down (HTTP 429)"
)
SANDBOX_OUTCOMES = Counter(
    "ats_sandbox_reports", "Parse reports applied, by outcome (ok, or the sandbox's typed failure code)", ["code"]
)
# A report worker-default refused (ats.sandbox.validate.check_report), by the check it
# failed. Our own sandbox never writes one: any increase is a bug or an escape (alerted).
REPORTS_REJECTED = Counter(
    "ats_sandbox_reports_rejected",
    "Parse reports worker-default refused before applying them, by the check that failed",
    ["check"],
)
SANDBOX_CPU = Histogram(
    "ats_sandbox_parse_cpu_seconds", "CPU seconds of the sandbox child per parsed document", buckets=SANDBOX_CPU_BUCKETS
)
ZYGOTE_RESTARTS = Counter(
    "ats_sandbox_zygote_restarts", "Sandbox zygote restarts in worker-untrusted, as its parse reports tell them"
)
SANDBOX_RSS = Histogram(
    "ats_sandbox_child_peak_memory_bytes", "Peak resident memory of the sandbox child", buckets=MEMORY_BUCKETS
)

# Web requests (T4 asks for web p95 < 300 ms). Observed in gunicorn's worker processes;
# prometheus-client's multiprocess mode sums them (the one pre-fork pool we run).
HTTP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 1, 2.5, 5, 10, 30, 60)
HTTP_SECONDS = Histogram(
    "ats_http_request_duration_seconds",
    "Web request wall time in the app (gunicorn worker), by method and status class",
    ["method", "status"],
    buckets=HTTP_BUCKETS,
)
_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})


def record_request(method: str, status_code: int, seconds: float) -> None:
    HTTP_SECONDS.labels(method if method in _METHODS else "other", f"{status_code // 100}xx").observe(seconds)


_VERDICTS = frozenset({"clean", "infected", "incomplete", "error", "unavailable"})
# Every known label value exists from the start (at 0): rate() needs a first sample.
for _verdict in sorted(_VERDICTS):
    CLAMD_SCANS.labels(_verdict)
SANDBOX_OUTCOMES.labels("ok")
SANDBOX_OUTCOMES.labels("report_rejected")
for _check in REPORT_CHECKS:
    REPORTS_REJECTED.labels(_check)


def record_scan(verdict: str, seconds: float) -> None:
    CLAMD_SCANS.labels(verdict if verdict in _VERDICTS else "error").inc()
    CLAMD_SECONDS.observe(max(seconds, 0.0))


def record_graph_throttled() -> None:
    GRAPH_RESPONSES.inc()


def record_parse_report(
    *, ok: bool, code: str, sandbox: Mapping[str, Any] | None, rejected_check: str | None = None
) -> None:
    """One applied parse report. `code` is a typed failure code (a closed set, checked by
    ats.sandbox.validate.check_report before this is called), never text. A rejected
    report counts as `report_rejected` and by its check; its figures are not recorded."""
    SANDBOX_OUTCOMES.labels("ok" if ok else (code or "unknown")[:32]).inc()
    if rejected_check is not None:
        REPORTS_REJECTED.labels(rejected_check if rejected_check in REPORT_CHECKS else "shape").inc()
        return
    sandbox = sandbox or {}
    cpu_ms = sandbox.get("cpu_ms")
    if isinstance(cpu_ms, int | float) and cpu_ms >= 0:
        SANDBOX_CPU.observe(cpu_ms / 1000.0)
    restarts = sandbox.get("zygote_restarts")
    if isinstance(restarts, int) and 0 < restarts < 10_000:
        ZYGOTE_RESTARTS.inc(restarts)
    rss_kb = sandbox.get("max_rss_kb")
    if isinstance(rss_kb, int | float) and rss_kb > 0:
        SANDBOX_RSS.observe(rss_kb * 1024.0)
