"""Prometheus collector for the ADR §7 signals, read from the database at scrape time.

Reading at scrape time (not counting in-process) keeps every web replica's answer the
same and needs no shared metrics store.
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from ats.channels import api as channels_api
from ats.intake import api as intake_api
from ats.jobs import api as jobs_api


class AtsCollector(Collector):
    def collect(self) -> Iterator[GaugeMetricFamily]:
        depth = GaugeMetricFamily("ats_queue_jobs", "Jobs per queue and status", labels=["queue", "status"])
        oldest = GaugeMetricFamily(
            "ats_queue_oldest_pending_age_seconds", "Age of the oldest todo job per queue", labels=["queue"]
        )
        for row in jobs_api.queue_stats():
            depth.add_metric([row["queue"], row["status"]], row["count"])
            if row["status"] == "todo" and row["oldest_age_s"] is not None:
                oldest.add_metric([row["queue"]], max(row["oldest_age_s"], 0.0))
        yield depth
        yield oldest
        lost = GaugeMetricFamily("ats_lost_documents", "Documents neither terminal nor backed by a job (last check)")
        run = intake_api.latest_verification()
        lost.add_metric([], run.lost_count if run else 0)
        yield lost
        if run is not None:
            age = GaugeMetricFamily(
                "ats_lost_documents_check_age_seconds", "Seconds since the last lost-document check"
            )
            age.add_metric([], run.age_s)
            yield age
        states = GaugeMetricFamily("ats_documents", "Documents per state", labels=["state", "terminal"])
        for state, n in intake_api.state_counts().items():
            states.add_metric([state, str(intake_api.is_terminal(state)).lower()], n)
        yield states
        channels = GaugeMetricFamily(
            "ats_mail_channels",
            "Active mail channels per status (degraded: every poll attempt failed)",
            labels=["status"],
        )
        for status, n in channels_api.channel_status_counts().items():
            channels.add_metric([status], n)
        yield channels
