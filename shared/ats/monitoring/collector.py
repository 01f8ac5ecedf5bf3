"""Database-derived metrics, computed once per scrape (ADR 0004 §7 signals, T1-T7 inputs).

One scrape runs a fixed handful of cheap statements - partial-index reads of the
`todo`/`doing` jobs, the statistics views, a primary-key walk of new job events - and
never runs in a recruiter's request: the collector is served by its own exporter
process on its own port (ats.observability.server). Scrapes are serialised, and the
scrape thread's database connection is closed at the end of each scrape.

Two kinds of figures:
- gauges read fresh each scrape (queue depth, oldest pending age, table health,
  connections, worker heartbeats, document states, lost documents, mail channels);
- counters and histograms fed by walking `procrastinate_events` forward from the last
  event seen (attempts, outcomes, durations, time-to-start, per queue and task class).
  They start at zero when the exporter starts and never go down when old jobs are
  pruned, which a count over the table would.
"""

from __future__ import annotations

import datetime
import json
import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from django.db import connection
from prometheus_client import Counter, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from ats.ai import api as ai_api
from ats.channels import api as channels_api
from ats.intake import api as intake_api
from ats.jobs import ops_api as jobs_ops
from ats.observability.data import DURATION_BUCKETS, TIME_TO_START_BUCKETS
from ats.retention import api as retention_api
from ats.scoring import api as scoring_api
from ats.selfid import api as selfid_api

logger = logging.getLogger(__name__)

OUTCOMES = {"succeeded": "succeeded", "failed": "failed", "deferred_for_retry": "retry", "aborted": "aborted"}
KNOWN_QUEUES = (*jobs_ops.QUEUES, jobs_ops.BUILTIN_QUEUE)
# Per scrape, at most this many events are folded in; a backlog catches up over scrapes.
EVENT_BATCH = 5000
EVENT_BATCHES_PER_SCRAPE = 4


def task_class(task_name: str) -> str:
    try:
        return jobs_ops.policy_for(task_name).task_class
    except LookupError:
        return "unknown"


class AttemptTailer:
    """Counters of job attempts fed from procrastinate_events, walked by primary key."""

    def __init__(self) -> None:
        labels = ["queue", "task_class"]
        self.attempts = Counter("ats_job_attempts", "Job attempts started", labels, registry=None)
        self.outcomes = Counter(
            "ats_job_attempt_outcomes",
            "Job attempts ended, by outcome: succeeded, retry (failed, will run again), "
            "failed (exhausted or permanent), aborted",
            [*labels, "outcome"],
            registry=None,
        )
        self.duration = Histogram(
            "ats_job_duration_seconds", "Wall time of one attempt", labels, buckets=DURATION_BUCKETS, registry=None
        )
        self.time_to_start = Histogram(
            "ats_job_time_to_start_seconds",
            "From runnable (deferred, or due after a retry wait) to started",
            labels,
            buckets=TIME_TO_START_BUCKETS,
            registry=None,
        )
        self.last_id: int | None = None
        # Every policy row's series exists at 0 from the start: increase() over a series
        # that appears at 1 is 0, which would hide the first exhausted maintenance job.
        for policy in jobs_ops.POLICIES:
            self.attempts.labels(policy.queue, policy.task_class)
            for outcome in OUTCOMES.values():
                self.outcomes.labels(policy.queue, policy.task_class, outcome)

    def poll(self) -> int:
        if self.last_id is None:
            # Start from now: history before the exporter started is not replayed.
            self.last_id = jobs_ops.last_event_id()
            return 0
        seen = 0
        for _ in range(EVENT_BATCHES_PER_SCRAPE):
            events = jobs_ops.attempt_events_since(self.last_id, limit=EVENT_BATCH)
            for ev in events:
                labels = (ev.queue, task_class(ev.task_name))
                if ev.type == "started":
                    self.attempts.labels(*labels).inc()
                    if ev.waited_s is not None:
                        self.time_to_start.labels(*labels).observe(max(ev.waited_s, 0.0))
                else:
                    self.outcomes.labels(*labels, OUTCOMES[ev.type]).inc()
                    if ev.ran_s is not None:
                        self.duration.labels(*labels).observe(max(ev.ran_s, 0.0))
                self.last_id = ev.id
            seen += len(events)
            if len(events) < EVENT_BATCH:
                break
        return seen

    def families(self) -> Iterator[Metric]:
        for metric in (self.attempts, self.outcomes, self.duration, self.time_to_start):
            yield from metric.collect()


class WebRequestCollector(Collector):
    """The gunicorn workers' request histograms, summed over the pool (multiprocess files).

    Only `ats_http_*` families: other instruments a web worker happens to import (clamd,
    sandbox) are worker-default's to report.
    """

    def __init__(self, path: str) -> None:
        from prometheus_client import CollectorRegistry
        from prometheus_client.multiprocess import MultiProcessCollector

        self._inner = MultiProcessCollector(CollectorRegistry(), path=path)

    def collect(self) -> Iterator[Metric]:
        for family in self._inner.collect():
            if family.name.startswith("ats_http_"):
                yield family


def _gauge(name: str, doc: str, labels: list[str] | None = None) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, doc, labels=labels)


class DatabaseCollector(Collector):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.tailer = AttemptTailer()
        self.last_scrape_s = 0.0

    def collect(self) -> Iterator[Metric]:
        with self._lock:
            started = time.perf_counter()
            families: list[Metric] = []
            up = 1.0
            try:
                families = list(self._database_families())
                self.tailer.poll()
            except Exception:
                logger.exception("metrics scrape: database figures unavailable")
                up = 0.0
            finally:
                # Scrape threads are short-lived: never leave a connection behind (an
                # enclosing transaction - a test calling collect() - keeps its own).
                if not connection.in_atomic_block:
                    connection.close()
            self.last_scrape_s = time.perf_counter() - started
        yield from families
        yield from self.tailer.families()
        db_up = _gauge("ats_exporter_database_up", "1 when the last scrape read the database")
        db_up.add_metric([], up)
        yield db_up
        cost = _gauge("ats_exporter_scrape_duration_seconds", "Wall time of the last scrape's database work")
        cost.add_metric([], self.last_scrape_s)
        yield cost

    def _database_families(self) -> Iterator[Metric]:
        yield from self._queues()
        yield from self._tables()
        yield from self._connections()
        yield from self._workers()
        yield from self._intake()

    def _queues(self) -> Iterator[Metric]:
        signals = jobs_ops.queue_signals()
        depth = _gauge("ats_queue_depth", "Jobs waiting (todo) per queue, scheduled retries included", ["queue"])
        running = _gauge("ats_queue_running", "Jobs running (doing) per queue", ["queue"])
        oldest = _gauge(
            "ats_queue_oldest_pending_age_seconds", "Seconds the oldest runnable todo job has waited", ["queue"]
        )
        paused = _gauge("ats_queue_paused", "1 while an operator has paused the queue (ats queue pause)", ["queue"])
        paused_now = jobs_ops.paused_queues()
        for queue in sorted({*KNOWN_QUEUES, *signals}):
            s = signals.get(queue, {"todo": 0.0, "doing": 0.0, "oldest_s": 0.0})
            depth.add_metric([queue], s["todo"])
            running.add_metric([queue], s["doing"])
            oldest.add_metric([queue], s["oldest_s"])
            paused.add_metric([queue], 1.0 if queue in paused_now else 0.0)
        yield from (depth, running, oldest, paused)

    def _tables(self) -> Iterator[Metric]:
        rows = _gauge("ats_queue_table_rows", "Estimated rows (planner statistics)", ["table"])
        dead = _gauge("ats_queue_table_dead_tuple_ratio", "Dead tuples / (live + dead)", ["table"])
        size = _gauge("ats_queue_table_size_bytes", "Table size without indexes (incl. TOAST)", ["table"])
        isize = _gauge("ats_queue_table_index_size_bytes", "Size of the table's indexes", ["table"])
        vacuum = _gauge(
            "ats_queue_table_last_vacuum_timestamp_seconds", "Last (auto)vacuum, Unix time; absent if never", ["table"]
        )
        for t in jobs_ops.table_health():
            total = t["live"] + t["dead"]
            rows.add_metric([t["table"]], t["rows_estimate"])
            dead.add_metric([t["table"]], t["dead"] / total if total else 0.0)
            size.add_metric([t["table"]], t["table_bytes"])
            isize.add_metric([t["table"]], t["index_bytes"])
            if t["last_vacuum"] is not None:
                vacuum.add_metric([t["table"]], t["last_vacuum"])
        yield from (rows, dead, size, isize, vacuum)

    def _connections(self) -> Iterator[Metric]:
        with connection.cursor() as cur:
            cur.execute(
                "SELECT count(*) FILTER (WHERE backend_type = 'client backend'),"
                " current_setting('max_connections')::int FROM pg_stat_activity"
            )
            in_use, max_conn = cur.fetchone()
            cur.execute("SELECT 1 FROM pg_extension WHERE extname = 'pg_stat_statements'")
            has_pss = cur.fetchone() is not None
            pss: tuple[float, float] | None = None
            if has_pss:
                try:
                    with connection.cursor() as c2:
                        c2.execute(
                            "SELECT COALESCE(sum(total_exec_time) FILTER (WHERE query ILIKE '%%procrastinate%%'), 0),"
                            " COALESCE(sum(total_exec_time), 0) FROM pg_stat_statements"
                        )
                        a, b = c2.fetchone()
                        pss = (float(a) / 1000.0, float(b) / 1000.0)
                except Exception:  # no privilege / not preloaded: report it as unavailable
                    pss = None
        conns = _gauge("ats_db_connections", "Client connections to the Postgres server (all databases)")
        conns.add_metric([], float(in_use))
        yield conns
        mx = _gauge("ats_db_max_connections", "Postgres max_connections")
        mx.add_metric([], float(max_conn))
        yield mx
        avail = _gauge("ats_db_statement_stats_available", "1 when pg_stat_statements can be read (T5 proxy)")
        avail.add_metric([], 1.0 if pss is not None else 0.0)
        yield avail
        if pss is not None:
            st = CounterMetricFamily(
                "ats_db_statement_seconds",
                "Execution time from pg_stat_statements; origin=procrastinate is the queue's share (T5 proxy)",
                labels=["origin"],
            )
            st.add_metric(["procrastinate"], pss[0])
            st.add_metric(["all"], pss[1])
            yield st

    def _workers(self) -> Iterator[Metric]:
        ages = jobs_ops.worker_heartbeats()
        stalled = jobs_ops.stalled_after_s()
        live = _gauge("ats_worker_processes", "Worker processes with a live heartbeat (T2)")
        live.add_metric([], float(sum(1 for a in ages if a <= stalled)))
        yield live
        oldest = _gauge(
            "ats_worker_heartbeat_max_age_seconds", "Oldest heartbeat among registered workers (0 when none)"
        )
        oldest.add_metric([], max(ages, default=0.0))
        yield oldest
        limit = _gauge("ats_worker_stalled_after_seconds", "Heartbeat age after which a worker counts as stalled")
        limit.add_metric([], stalled)
        yield limit

    def _intake(self) -> Iterator[Metric]:
        lost = _gauge("ats_lost_documents", "Documents neither terminal nor backed by a job (last check)")
        run = intake_api.latest_verification()
        lost.add_metric([], run.lost_count if run else 0)
        yield lost
        if run is not None:
            age = _gauge("ats_lost_documents_check_age_seconds", "Seconds since the last lost-document check")
            age.add_metric([], run.age_s)
            yield age
        states = _gauge("ats_documents", "Documents per state", ["state", "terminal"])
        for state, n in intake_api.state_counts().items():
            states.add_metric([state, str(intake_api.is_terminal(state)).lower()], n)
        yield states
        channels = _gauge(
            "ats_mail_channels", "Active mail channels per status (degraded: every poll attempt failed)", ["status"]
        )
        for status, n in channels_api.channel_status_counts().items():
            channels.add_metric([status], n)
        yield channels
        yield from self._ai()
        yield from self._retention()
        yield from self._fairness()
        yield from self._revisit_triggers()

    def _revisit_triggers(self) -> Iterator[Metric]:
        """Signals of ADR 0004's revisit triggers T3, T6 and T8 (the others read job,
        table and connection figures above)."""
        installed, newest = library_release_ages()
        age = _gauge(
            "ats_queue_library_release_age_seconds",
            "Seconds since procrastinate's release: the installed one and the newest recorded (T6)",
            ["release", "version"],
        )
        for which, (version, days) in (("installed", installed), ("newest", newest)):
            if version:
                age.add_metric([which, version], days * 86400)
        yield age
        late = _gauge(
            "ats_periodic_start_lateness_seconds",
            "Worst delay over the last hour between a periodic run's due time and its start (T8)",
            ["task"],
        )
        for task, seconds in jobs_ops.periodic_start_lateness().items():
            late.add_metric([task], max(seconds, 0.0))
        yield late
        stuck = _gauge(
            "ats_rescore_runs_unfinished",
            "Batch rescores still running with no item pending after 15 min: the hand-made fan-in missed (T3)",
        )
        stuck.add_metric([], scoring_api.rescore_runs_without_summary())
        yield stuck

    def _retention(self) -> Iterator[Metric]:
        status = retention_api.retention_status()
        halted = _gauge(
            "ats_retention_purge_halted",
            "1 when the latest retention purge run halted at an unexplained failure (ADR 0004 R6)",
        )
        halted.add_metric([], 1 if status["halted"] else 0)
        yield halted
        missing = _gauge(
            "ats_retention_purged_blobs_present", "Purged blob keys the last weekly verification still found"
        )
        missing.add_metric([], status["verify_missing"])
        yield missing

    def _fairness(self) -> Iterator[Metric]:
        status = selfid_api.fairness_status()
        low = _gauge(
            "ats_fairness_groups_below_four_fifths",
            "Groups (stage x group, n >= 5) whose impact ratio was under 0.8 in the latest weekly fairness report",
        )
        low.add_metric([], status["below_four_fifths"])
        yield low

    def _ai(self) -> Iterator[Metric]:
        status = ai_api.breaker_status()
        enabled = _gauge("ats_ai_enabled", "1 when an AI provider is configured (disabled by default)")
        enabled.add_metric([], 1 if status["enabled"] else 0)
        yield enabled
        breaker = _gauge(
            "ats_ai_breaker_state", "The AI provider's circuit breaker: 1 for its current state", ["state"]
        )
        for state in ai_api.BreakerState.values:
            breaker.add_metric([state], 1 if status["state"] == state else 0)
        yield breaker


RELEASES_FILE = Path(__file__).with_name("procrastinate_releases.json")


def library_release_ages(*, today: datetime.date | None = None) -> tuple[tuple[str, float], tuple[str, float]]:
    """((installed version, its age in days), (newest recorded version, its age)) from the
    release dates scripts/procrastinate_releases.py writes; ("", 0) where unknown."""
    import importlib.metadata

    today = today or datetime.date.today()
    try:
        releases: dict[str, str] = json.loads(RELEASES_FILE.read_text())["releases"]
    except (OSError, ValueError, KeyError):
        return ("", 0.0), ("", 0.0)

    def age(version: str) -> tuple[str, float]:
        day = releases.get(version)
        return (version, float((today - datetime.date.fromisoformat(day)).days)) if day else ("", 0.0)

    installed = importlib.metadata.version("procrastinate")
    finals = {v: d for v, d in releases.items() if v.replace(".", "").isdigit()}
    newest = max(finals, key=lambda v: (finals[v], v)) if finals else ""
    return age(installed), age(newest)
