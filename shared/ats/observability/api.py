"""Facade of the observability module."""

from ats.observability.data import record_graph_throttled, record_parse_report, record_scan
from ats.observability.server import BIND_ENV, configured_token, serve

__all__ = ["BIND_ENV", "configured_token", "record_graph_throttled", "record_parse_report", "record_scan", "serve"]
