"""Facade of the monitoring module: the metrics collector that reads every module.

It reads intake, channels, ai, scoring, retention, selfid and jobs, so it sits on the top
layer with web and cli; observability (below) keeps what any layer may call - the
process-local counters, the log formatter, the metrics server.
`python -m ats.monitoring.exporter` serves it (services/web/gunicorn.conf.py).
"""

from ats.monitoring.collector import DatabaseCollector, WebRequestCollector

__all__ = ["DatabaseCollector", "WebRequestCollector"]
