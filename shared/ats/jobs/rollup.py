"""The per-minute rollup behind the console's charts (issue 24 item 5).

`rollup_minutes()` runs once a minute (`jobs.rollup_minutes`, queue maintenance, in the
policy table): it folds the closed minutes since its last run out of procrastinate's
events into `jobs_queue_minute` and drops rows older than 7 days. `chart_series()` reads
only that table, so a page load costs one indexed range read whatever the event volume.

The last `REROLL_MINUTES` closed minutes are folded again on every run (upsert): an event
is stamped when its transaction writes it, so a slow commit can land in a minute the
previous run already closed.
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from ats.jobs.policy import BUILTIN_QUEUE, QUEUES

KEEP_DAYS = 7
REROLL_MINUTES = 3
# A first run (empty table) back-fills this far; older events are usually pruned anyway.
BACKFILL = datetime.timedelta(days=KEEP_DAYS)

_ROLLUP_SQL = """
WITH ev AS (
    SELECT j.queue_name AS queue, j.scheduled_at, ev.job_id, ev.type::text AS type, ev.at,
           lag(ev.at) OVER w AS prev_at,
           lead(ev.type::text) OVER w AS next_type, lead(ev.at) OVER w AS next_at
      FROM procrastinate_events ev JOIN procrastinate_jobs j ON j.id = ev.job_id
     WHERE j.id IN (SELECT job_id FROM procrastinate_events WHERE at >= %(lo)s AND at < %(hi)s)
    WINDOW w AS (PARTITION BY ev.job_id ORDER BY ev.at, ev.id)
), ends AS (            -- a run ends at the started event's successor
    SELECT queue, date_trunc('minute', next_at) AS minute,
           EXTRACT(EPOCH FROM next_at - at) AS run_s, next_type
      FROM ev
     WHERE type = 'started' AND next_type IN ('succeeded', 'failed', 'deferred_for_retry')
       AND next_at >= %(lo)s AND next_at < %(hi)s
), starts AS (          -- waited from its deferral / retry (or its schedule) to this start
    SELECT queue, date_trunc('minute', at) AS minute,
           GREATEST(EXTRACT(EPOCH FROM at - GREATEST(prev_at, COALESCE(scheduled_at, prev_at))), 0) AS pickup_s
      FROM ev
     WHERE type = 'started' AND prev_at IS NOT NULL AND at >= %(lo)s AND at < %(hi)s
), e AS (
    SELECT queue, minute,
           count(*) FILTER (WHERE next_type IN ('succeeded', 'failed')) AS finished,
           count(*) FILTER (WHERE next_type IN ('failed', 'deferred_for_retry')) AS failures,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY run_s) AS run_p50,
           percentile_cont(0.95) WITHIN GROUP (ORDER BY run_s) AS run_p95
      FROM ends GROUP BY queue, minute
), s AS (
    SELECT queue, minute, count(*) AS started,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY pickup_s) AS pickup_p50,
           percentile_cont(0.95) WITHIN GROUP (ORDER BY pickup_s) AS pickup_p95
      FROM starts GROUP BY queue, minute
)
INSERT INTO jobs_queue_minute AS r (queue, minute, finished, failures, started, depth,
                                    pickup_p50_s, pickup_p95_s, run_p50_s, run_p95_s)
SELECT COALESCE(e.queue, s.queue), COALESCE(e.minute, s.minute),
       COALESCE(e.finished, 0), COALESCE(e.failures, 0), COALESCE(s.started, 0), NULL,
       s.pickup_p50, s.pickup_p95, e.run_p50, e.run_p95
  FROM e FULL JOIN s ON s.queue = e.queue AND s.minute = e.minute
ON CONFLICT (queue, minute) DO UPDATE
   SET finished = EXCLUDED.finished, failures = EXCLUDED.failures, started = EXCLUDED.started,
       pickup_p50_s = EXCLUDED.pickup_p50_s, pickup_p95_s = EXCLUDED.pickup_p95_s,
       run_p50_s = EXCLUDED.run_p50_s, run_p95_s = EXCLUDED.run_p95_s
"""

# Depth is a sample: the waiting jobs per queue as the minute closes. Rebuilding it for
# past minutes from events would cost a scan per minute; a back-filled minute shows none.
_DEPTH_SQL = """
INSERT INTO jobs_queue_minute AS r (queue, minute, finished, failures, started, depth)
SELECT q, %(minute)s, 0, 0, 0,
       (SELECT count(*) FROM procrastinate_jobs j WHERE j.queue_name = q AND j.status = 'todo')
  FROM unnest(%(queues)s::text[]) AS q
ON CONFLICT (queue, minute) DO UPDATE SET depth = EXCLUDED.depth
"""


def rollup_minutes(*, now: datetime.datetime | None = None) -> dict[str, Any]:
    """Fold every closed minute since the last run (and the last few again) into the
    rollup, sample the depth of the minute just closed, and drop rows past 7 days."""
    now = now or timezone.now()
    hi = now.replace(second=0, microsecond=0)
    with transaction.atomic(), connection.cursor() as cur:
        # One rollup at a time even if a run is retried by hand beside the periodic one.
        cur.execute("SELECT pg_advisory_xact_lock(hashtext('ats_jobs_rollup_minutes'))")
        # Every run writes the closed minute's depth sample, so the newest row is the
        # previous run's watermark; an empty table back-fills 7 days once.
        cur.execute("SELECT max(minute) FROM jobs_queue_minute")
        (last,) = cur.fetchone()
        lo = (last - datetime.timedelta(minutes=REROLL_MINUTES)) if last else hi - BACKFILL
        lo = max(min(lo, hi - datetime.timedelta(minutes=REROLL_MINUTES)), hi - BACKFILL)
        cur.execute(_ROLLUP_SQL, {"lo": lo, "hi": hi})
        folded = cur.rowcount
        cur.execute(_DEPTH_SQL, {"minute": hi - datetime.timedelta(minutes=1), "queues": [*QUEUES, BUILTIN_QUEUE]})
        cur.execute("DELETE FROM jobs_queue_minute WHERE minute < %s", [hi - datetime.timedelta(days=KEEP_DAYS)])
        dropped = cur.rowcount
    return {"from": lo, "to": hi, "rows": folded, "dropped": dropped}


@dataclasses.dataclass(frozen=True)
class Range:
    key: str
    label: str
    span: datetime.timedelta
    bucket: datetime.timedelta


RANGES: dict[str, Range] = {
    r.key: r
    for r in (
        Range("1h", "1 hour", datetime.timedelta(hours=1), datetime.timedelta(minutes=1)),
        Range("24h", "24 hours", datetime.timedelta(hours=24), datetime.timedelta(minutes=15)),
        Range("7d", "7 days", datetime.timedelta(days=7), datetime.timedelta(hours=1)),
    )
}


def chart_series(*, queue: str, range_key: str, now: datetime.datetime | None = None) -> dict[str, Any]:
    """One queue's buckets over a range, oldest first, every bucket present (zeros where
    nothing ran). Counts add up; depth is the bucket's highest sample; p50 is the runs'
    weighted mean of the minutes' medians and p95 the minutes' highest p95 (an upper bound:
    percentiles do not add, and the minutes' rows are all that is kept)."""
    rng = RANGES[range_key]
    now = now or timezone.now()
    step = int(rng.bucket.total_seconds())
    end = datetime.datetime.fromtimestamp((int(now.timestamp()) // step + 1) * step, tz=datetime.UTC)
    start = end - rng.span
    with connection.cursor() as cur:
        cur.execute(
            """SELECT to_timestamp(floor(EXTRACT(EPOCH FROM minute) / %(step)s) * %(step)s) AS b,
                      sum(finished), sum(failures), max(depth),
                      sum(pickup_p50_s * started) / NULLIF(sum(started) FILTER (WHERE pickup_p50_s IS NOT NULL), 0),
                      max(pickup_p95_s),
                      sum(run_p50_s * (finished + failures))
                        / NULLIF(sum(finished + failures) FILTER (WHERE run_p50_s IS NOT NULL), 0),
                      max(run_p95_s)
                 FROM jobs_queue_minute
                WHERE queue = %(queue)s AND minute >= %(start)s AND minute < %(end)s
                GROUP BY 1""",
            {"step": step, "queue": queue, "start": start, "end": end},
        )
        got = {row[0]: row[1:] for row in cur.fetchall()}
    buckets = []
    at = start
    while at < end:
        finished, failures, depth, pk50, pk95, run50, run95 = got.get(at, (0, 0, None, None, None, None, None))
        buckets.append(
            {
                "at": at,
                "finished": int(finished or 0),
                "failures": int(failures or 0),
                "depth": depth,
                "pickup_p50_s": _f(pk50),
                "pickup_p95_s": _f(pk95),
                "run_p50_s": _f(run50),
                "run_p95_s": _f(run95),
            }
        )
        at += rng.bucket
    return {"queue": queue, "range": rng.key, "label": rng.label, "bucket_s": step, "buckets": buckets}


def _f(v: Any) -> float | None:
    return None if v is None else float(v)
