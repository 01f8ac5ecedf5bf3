"""`python -m ats.monitoring.exporter`: the database-derived metrics, on their own port.

Started beside gunicorn by the web deployable (services/web/gunicorn.conf.py, `when_ready`)
as a separate process - not a thread of the gunicorn master, whose forks would inherit its
database socket - and stopped with it. The web pod is the natural home: the figures must
stay visible when the workers are the thing that is down.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys


def main(argv: list[str] | None = None) -> None:
    # Web's gunicorn workers write their request histograms to this directory
    # (prometheus-client multiprocess mode); the exporter reads it. The exporter's own
    # metrics stay in-process: popped before prometheus_client is imported.
    multiproc_dir = os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
    parser = argparse.ArgumentParser(prog="ats metrics-exporter")
    parser.add_argument("--bind", default=os.environ.get("ATS_METRICS_BIND", "127.0.0.1:9100"))
    args = parser.parse_args(argv)
    if os.environ.get("ATS_EXPORTER_PARENT_PID"):
        # Started by gunicorn's master: die with it, even if it is SIGKILLed.
        import prctl

        prctl.set_pdeathsig(signal.SIGTERM)
        if os.getppid() != int(os.environ["ATS_EXPORTER_PARENT_PID"]):
            return
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ats.config.settings")
    os.environ.setdefault("ATS_PROCESS_NAME", "ats-metrics-exporter")
    import django

    django.setup()
    from prometheus_client import CollectorRegistry

    from ats.monitoring.collector import DatabaseCollector
    from ats.observability import api as observability_api

    registry = CollectorRegistry()
    registry.register(DatabaseCollector())
    if multiproc_dir:
        from ats.monitoring.collector import WebRequestCollector

        registry.register(WebRequestCollector(multiproc_dir))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    observability_api.serve(registry, args.bind, token=observability_api.configured_token(), background=False)


if __name__ == "__main__":
    main()
