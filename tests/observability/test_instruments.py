"""worker-default's in-process instruments: the parse report's figures (how sandbox
numbers reach Prometheus from a trusted process) and clamd verdicts."""

from __future__ import annotations

from prometheus_client import REGISTRY
from prometheus_client.utils import floatToGoString

from ats.observability import api as observability_api


def _value(name: str, labels: dict[str, str] | None = None) -> float:
    return REGISTRY.get_sample_value(name, labels or {}) or 0.0


def test_parse_report_feeds_outcome_cpu_memory_and_restarts() -> None:
    before = {
        "timeouts": _value("ats_sandbox_reports_total", {"code": "timeout_wall"}),
        "cpu": _value("ats_sandbox_parse_cpu_seconds_count"),
        "cpu_sum": _value("ats_sandbox_parse_cpu_seconds_sum"),
        "rss_le_32mb": _value(
            "ats_sandbox_child_peak_memory_bytes_bucket", {"le": floatToGoString(32.0 * 1024 * 1024)}
        ),
        "restarts": _value("ats_sandbox_zygote_restarts_total"),
    }
    observability_api.record_parse_report(
        ok=False, code="timeout_wall", sandbox={"cpu_ms": 1500.0, "max_rss_kb": 20480, "zygote_restarts": 2}
    )
    observability_api.record_parse_report(ok=True, code="", sandbox=None)  # no figures: counted, not observed
    assert _value("ats_sandbox_reports_total", {"code": "timeout_wall"}) == before["timeouts"] + 1
    assert _value("ats_sandbox_parse_cpu_seconds_count") == before["cpu"] + 1
    assert _value("ats_sandbox_parse_cpu_seconds_sum") == before["cpu_sum"] + 1.5
    assert _value("ats_sandbox_child_peak_memory_bytes_bucket", {"le": floatToGoString(32.0 * 1024 * 1024)}) == (
        before["rss_le_32mb"] + 1
    )
    assert _value("ats_sandbox_zygote_restarts_total") == before["restarts"] + 2


def test_scan_verdicts_are_a_closed_set() -> None:
    before = _value("ats_clamd_scans_total", {"verdict": "error"})
    observability_api.record_scan("something-new", 0.01)  # unknown verdicts fold into error
    assert _value("ats_clamd_scans_total", {"verdict": "error"}) == before + 1
    assert _value("ats_clamd_scans_total", {"verdict": "something-new"}) == 0
