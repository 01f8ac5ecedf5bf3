"""Facade of the observability module."""

from ats.observability.alerts import AlertsRead, read_alerts
from ats.observability.data import record_graph_throttled, record_parse_report, record_scan
from ats.observability.server import BIND_ENV, configured_token, serve

__all__ = [
    "BIND_ENV",
    "AlertsRead",
    "configured_token",
    "health_problems",
    "read_alerts",
    "record_graph_throttled",
    "record_parse_report",
    "record_scan",
    "serve",
]


def health_problems(deployable: str, name: str) -> list[str]:
    """What `ats healthcheck` reports (empty: healthy). Needs Django set up."""
    from ats.observability.health import problems

    return problems(deployable, name)
