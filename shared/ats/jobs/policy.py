"""The one table of queues, retry and timeout policy (ADR 0004 §1-§2).

Attempts are written as the ADR writes them: *attempts in all*, the first run included.
procrastinate counts *retries* (measured: max_attempts=3 ran a job 4 times), so the
conversion happens exactly once, in `TaskPolicy.procrastinate_retries`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

QUEUES = ("mail", "ingest", "parse", "score", "ai", "maintenance")
BUILTIN_QUEUE = "builtin"
# worker-untrusted consumes exactly this; worker-default everything else (ADR §1, Phase 2).
UNTRUSTED_QUEUES = ("parse",)
DEFAULT_QUEUES = (*(q for q in QUEUES if q not in UNTRUSTED_QUEUES), BUILTIN_QUEUE)

# ADR §1's Phase 1 concurrency, per queue, across every process that serves the queue
# (enforced at fetch by ats.jobs.concurrency, not by any one worker's pool size). Each
# process's own total (`ats worker --concurrency`, worker-default 4) still bounds it.
QUEUE_CONCURRENCY: dict[str, int] = {
    "mail": 1,
    "ingest": 2,
    "parse": 2,
    "score": 2,
    "ai": 2,
    "maintenance": 1,
    BUILTIN_QUEUE: 1,  # completed-job pruning: one at a time, like maintenance
}

# Higher runs first. Interactive work outranks batch so a big rescore cannot starve it (R2).
PRIORITY_INTERACTIVE = 20
PRIORITY_NORMAL = 10
PRIORITY_BATCH = 0


@dataclasses.dataclass(frozen=True)
class Backoff:
    """Exponential backoff: first wait `first_s`, doubling, capped at `max_s`.

    `waits_s` overrides with an explicit list (the ADR's AI row: 5 s then 20 s).
    """

    first_s: float
    max_s: float
    waits_s: tuple[float, ...] = ()

    def wait_after(self, failed_attempts: int) -> float:
        """Seconds to wait after the `failed_attempts`-th failed run (1-based)."""
        if self.waits_s:
            return self.waits_s[min(failed_attempts, len(self.waits_s)) - 1]
        return float(min(self.first_s * (2 ** (failed_attempts - 1)), self.max_s))

    def describe(self) -> str:
        if self.waits_s:
            return ", ".join(f"{w:g} s" for w in self.waits_s)
        return f"exponential, {_human(self.first_s)} -> {_human(self.max_s)}"


def _human(seconds: float) -> str:
    if seconds >= 3600 and seconds % 3600 == 0:
        return f"{seconds / 3600:g} h"
    if seconds >= 60 and seconds % 60 == 0:
        return f"{seconds / 60:g} min"
    return f"{seconds:g} s"


@dataclasses.dataclass(frozen=True)
class TaskPolicy:
    task_name: str
    task_class: str  # the ADR §2 row this task belongs to (or a project-defined class)
    queue: str
    attempts: int  # in all, first run included (ADR wording)
    backoff: Backoff
    timeout_s: float  # wall budget of one attempt
    on_exhaustion: str  # the domain state written when attempts run out (human text)
    priority: int = PRIORITY_NORMAL
    # Templates formatted with the payload: `lock` serialises execution, `queueing_lock`
    # dedupes waiting jobs (ADR convention 3). Both, because queueing_lock alone lets a
    # second job run beside a `doing` one.
    lock: str | None = None
    queueing_lock: str | None = None
    payload_version: int = 1
    # Oldest payload version still accepted: old-shape jobs must run for one release (ADR §6).
    min_payload_version: int = 1
    adr_row: bool = True  # False for project-defined classes not in ADR §2
    # The module whose handler writes the domain terminal state when attempts run out:
    # it registers `fn(reason_code=, reason=, **payload)` for this row when its app
    # starts (ats.jobs.handlers). A name, not a dotted path: jobs imports no module above
    # it. The handler runs in any trusted process (the sweep runs in worker-default even
    # for parse jobs).
    exhaustion_owner: str | None = None
    # False where the task's own process may not write domain tables (worker-untrusted):
    # the task reports its failure its own way, and the trusted sweep runs the handler.
    exhaustion_in_task: bool = True
    # The payload envelope carries the deferring web request's id (`rid`, for log
    # correlation) from this payload version on; earlier versions still run without it.
    request_id_since: int | None = None

    @property
    def procrastinate_retries(self) -> int:
        return self.attempts - 1

    def lock_for(self, payload: Mapping[str, Any]) -> str | None:
        return self.lock.format(**payload) if self.lock else None

    def queueing_lock_for(self, payload: Mapping[str, Any]) -> str | None:
        return self.queueing_lock.format(**payload) if self.queueing_lock else None

    def as_json(self) -> dict[str, Any]:
        return {
            "task_name": self.task_name,
            "task_class": self.task_class,
            "queue": self.queue,
            "attempts": self.attempts,
            "procrastinate_retries": self.procrastinate_retries,
            "backoff": self.backoff.describe(),
            "timeout_s": self.timeout_s,
            "priority": self.priority,
            "lock": self.lock,
            "queueing_lock": self.queueing_lock,
            "on_exhaustion": self.on_exhaustion,
            "payload_version": self.payload_version,
            "adr_row": self.adr_row,
        }


MIN = 60.0
HOUR = 3600.0

POLICIES: tuple[TaskPolicy, ...] = (
    TaskPolicy(
        task_name="mail.poll_channel",
        task_class="mail_poll",
        queue="mail",
        attempts=5,
        backoff=Backoff(30, 15 * MIN),
        timeout_s=5 * MIN,
        on_exhaustion="channel marked degraded; next scheduled run retries",
        exhaustion_owner="channels",
        lock="mailpoll:channel:{channel_id}",
        queueing_lock="mailpoll:channel:{channel_id}",
    ),
    TaskPolicy(
        task_name="mail.schedule_polls",
        task_class="mail_poll_schedule",
        queue="mail",
        attempts=1,
        backoff=Backoff(0, 0),
        timeout_s=60,
        on_exhaustion="next scheduled run retries",
        # Fixed strings: a periodic job carries no payload to format them with.
        lock="mail:schedule_polls",
        queueing_lock="mail:schedule_polls",
        adr_row=False,
    ),
    TaskPolicy(
        task_name="intake.ingest_attachment",
        task_class="malware_scan",
        queue="ingest",
        attempts=5,
        backoff=Backoff(10, 5 * MIN),
        timeout_s=2 * MIN,
        on_exhaustion="virus_scan_status=scan_failed; attachment blocked from parse",
        exhaustion_owner="intake",
        priority=PRIORITY_INTERACTIVE,
        lock="attachment:{attachment_id}",
        # v2 adds the request id to the envelope; v1 jobs (queued before the deploy) still run.
        payload_version=2,
        request_id_since=2,
    ),
    TaskPolicy(
        task_name="intake.parse_attachment",
        task_class="document_parse",
        queue="parse",
        attempts=3,
        backoff=Backoff(1 * MIN, 10 * MIN),
        timeout_s=90,
        on_exhaustion="intake_parse_attempt.state=failed with the reason; re-parse offered",
        exhaustion_owner="intake",
        exhaustion_in_task=False,
        lock="parse:attachment:{attachment_id}",
        payload_version=2,
        request_id_since=2,
    ),
    TaskPolicy(
        # Deferred by ats_parse_submit() in SQL (policy/db-role.sql), which must use this
        # row's queue and priority; a test holds the two together. Since issue 26 the job
        # also runs the candidate step in its transaction (ats.pipeline.tasks); a candidate
        # step that fails there is deferred alone as `candidates.create_from_attachment`
        # (the row below), so its failure state is unchanged.
        task_name="intake.apply_parse_result",
        task_class="parse_result_apply",
        queue="ingest",
        attempts=3,
        backoff=Backoff(10, 2 * MIN),
        timeout_s=60,
        on_exhaustion="parse attempt failed with the reason; re-parse offered",
        priority=PRIORITY_INTERACTIVE,
        exhaustion_owner="intake",
        adr_row=False,
    ),
    TaskPolicy(
        # Deferred by ats_parse_pages_done() in SQL (policy/page-images.sql) with this
        # row's queue, priority and lock: after the parse report, below candidate creation.
        task_name="intake.store_page_images",
        task_class="derivative_store",
        queue="ingest",
        attempts=3,
        backoff=Backoff(10, 2 * MIN),
        timeout_s=120,
        on_exhaustion="page images not shown (the reason on the document page); re-parse renders them again",
        priority=PRIORITY_NORMAL,
        lock="attachment:{attachment_id}",
        exhaustion_owner="intake",
        adr_row=False,
    ),
    TaskPolicy(
        task_name="candidates.create_from_attachment",
        task_class="candidate_extract",
        queue="ingest",
        attempts=3,
        backoff=Backoff(30, 5 * MIN),
        timeout_s=60,
        on_exhaustion="attachment state candidate_failed with the reason",
        exhaustion_owner="intake",
        priority=PRIORITY_INTERACTIVE,
        lock="attachment:{attachment_id}",
        adr_row=False,
    ),
    TaskPolicy(
        task_name="candidates.dedupe",
        task_class="candidate_dedupe",
        queue="ingest",
        attempts=3,
        backoff=Backoff(30, 5 * MIN),
        timeout_s=60,
        on_exhaustion="duplicate check marked failed on the candidate; retried on next change",
        exhaustion_owner="candidates",
        lock="dedupe:candidate:{candidate_id}",
        queueing_lock="dedupe:candidate:{candidate_id}",
        adr_row=False,
    ),
    TaskPolicy(
        # One job per candidate for what follows its creation or update (issue 26): the
        # `candidates.dedupe` and `search.index` steps the candidate step would have
        # deferred one by one, collected by ats.jobs.follow_ups. A step that fails runs
        # again alone under its own row (so its failure state is its own); when the batch
        # itself fails every attempt, every step is deferred alone. Dedupe's row: same
        # queue, priority and per-candidate lock, so the batch and a lone dedupe of the
        # same candidate never run side by side.
        task_name="candidates.follow_ups",
        task_class="candidate_follow_ups",
        queue="ingest",
        attempts=3,
        backoff=Backoff(30, 5 * MIN),
        timeout_s=2 * MIN,
        on_exhaustion="every step deferred alone under its own row (dedupe, search.index)",
        exhaustion_owner="pipeline",
        lock="dedupe:candidate:{candidate_id}",
        adr_row=False,
    ),
    TaskPolicy(
        task_name="scoring.score_application",
        task_class="score_single",
        queue="score",
        attempts=3,
        backoff=Backoff(30, 5 * MIN),
        timeout_s=60,
        on_exhaustion="ats_result not written; application flagged scoring_failed",
        priority=PRIORITY_NORMAL,
        exhaustion_owner="scoring",
    ),
    TaskPolicy(
        task_name="scoring.rescore_application",
        task_class="batch_rescore_application",
        queue="score",
        attempts=3,
        backoff=Backoff(30, 5 * MIN),
        timeout_s=60,
        on_exhaustion="per-application failure recorded; batch completes with a partial-failure summary",
        priority=PRIORITY_BATCH,
        lock="rescore:requisition_version:{requisition_version_id}:application:{application_id}",
        exhaustion_owner="scoring",
    ),
    TaskPolicy(
        # The batch rescore coordinator: writes the summary row and fans out the
        # per-application jobs in its own transaction. One at a time per version (ADR
        # convention 3): two concurrent runs would race their ats_result inserts.
        task_name="scoring.rescore_requisition_version",
        task_class="batch_rescore",
        queue="score",
        attempts=3,
        backoff=Backoff(30, 5 * MIN),
        timeout_s=60,
        on_exhaustion="no summary row written (the fan-out rolled back); the rescore can be requested again",
        priority=PRIORITY_BATCH,
        lock="rescore:requisition_version:{requisition_version_id}",
        queueing_lock="rescore:requisition_version:{requisition_version_id}",
        adr_row=False,
    ),
    TaskPolicy(
        # A byte-identical document sent for a requisition: apply its original's candidate.
        task_name="scoring.route_duplicate",
        task_class="application_route",
        queue="score",
        attempts=3,
        backoff=Backoff(30, 5 * MIN),
        timeout_s=60,
        on_exhaustion="logged; the original's candidate step also routes its duplicates",
        priority=PRIORITY_INTERACTIVE,
        lock="attachment:{attachment_id}",
        adr_row=False,
    ),
    TaskPolicy(
        task_name="ai.invoke",
        task_class="ai_invocation",
        queue="ai",
        attempts=2,
        backoff=Backoff(5, 20, waits_s=(5, 20)),
        timeout_s=45,
        on_exhaustion="circuit breaker opens; UI degrades with AI absent, never a fabricated result",
        priority=PRIORITY_INTERACTIVE,
        exhaustion_owner="ai",
    ),
    TaskPolicy(
        # ADR §4: every 15 min, the circuit breaker's half-open probe.
        task_name="ai.probe_breaker",
        task_class="ai_breaker_probe",
        queue="ai",
        attempts=1,
        backoff=Backoff(0, 0),
        timeout_s=45,
        on_exhaustion="breaker stays open; the next scheduled probe retries",
        lock="ai:breaker_probe",
        queueing_lock="ai:breaker_probe",
        adr_row=False,
    ),
    TaskPolicy(
        task_name="retention.purge",
        task_class="retention_purge",
        queue="maintenance",
        attempts=3,
        backoff=Backoff(1 * HOUR, 4 * HOUR),
        timeout_s=30 * MIN,
        on_exhaustion="run halted, alert, partial retention_action rows recorded",
        queueing_lock="retention:purge",
        lock="retention:purge",
    ),
    TaskPolicy(
        # ADR §4 Phase 3, weekly: the fairness report (aggregates) stored; its flagged
        # count feeds AtsFairnessImpactRatioLow.
        task_name="fairness.evaluate",
        task_class="fairness_evaluate",
        queue="maintenance",
        attempts=3,
        backoff=Backoff(1 * HOUR, 4 * HOUR),
        timeout_s=10 * MIN,
        on_exhaustion="alert (maintenance job exhausted); last week's report stays",
        queueing_lock="fairness:evaluate",
        lock="fairness:evaluate",
        adr_row=False,
    ),
    TaskPolicy(
        task_name="retention.recompute_due_on",
        task_class="retention_due_on",
        queue="maintenance",
        attempts=3,
        backoff=Backoff(1 * HOUR, 4 * HOUR),
        timeout_s=30 * MIN,
        on_exhaustion="alert; yesterday's due dates stay (the purge never erases early)",
        queueing_lock="retention:due_on",
        lock="retention:due_on",
        adr_row=False,
    ),
    TaskPolicy(
        # Weekly (ADR R6): purged blob keys re-checked against the store.
        task_name="retention.verify_purge",
        task_class="retention_verify",
        queue="maintenance",
        attempts=3,
        backoff=Backoff(1 * HOUR, 4 * HOUR),
        timeout_s=30 * MIN,
        on_exhaustion="alert; the verification row lists the purged blobs still present",
        queueing_lock="retention:verify",
        lock="retention:verify",
        adr_row=False,
    ),
    TaskPolicy(
        task_name="audit.export_verify",
        task_class="audit_export_verify",
        queue="maintenance",
        attempts=5,
        backoff=Backoff(1 * HOUR, 8 * HOUR),
        timeout_s=30 * MIN,
        on_exhaustion="alert; the closed partition stays exportable on the next run",
        queueing_lock="audit:export",
        lock="audit:export",
    ),
    TaskPolicy(
        task_name="jobs.rescue_and_sweep",
        task_class="job_rescue_sweep",
        queue="maintenance",
        attempts=1,
        backoff=Backoff(0, 0),
        timeout_s=60,
        on_exhaustion="next scheduled run retries",
        # No `lock`: a rescue run killed mid-way stays `doing`, and a lock would then keep
        # every later rescue from being fetched - nothing would ever rescue it (found by the
        # chaos suite). Concurrent runs are safe: both passes take rows FOR UPDATE SKIP LOCKED.
        adr_row=False,
    ),
    TaskPolicy(
        task_name="intake.verify_documents",
        task_class="lost_document_check",
        queue="maintenance",
        attempts=1,
        backoff=Backoff(0, 0),
        timeout_s=5 * MIN,
        on_exhaustion="next scheduled run retries; the last recorded count stays visible",
        lock="intake:verify",
        adr_row=False,
    ),
    TaskPolicy(
        task_name="procrastinate.builtin_tasks.remove_old_jobs",
        task_class="job_pruning_builtin",
        queue="builtin",
        attempts=1,
        backoff=Backoff(0, 0),
        timeout_s=10 * MIN,
        on_exhaustion="next scheduled run retries",
        queueing_lock="jobs:remove_old_jobs",
        adr_row=False,
        payload_version=0,  # procrastinate's own task: no payload envelope
    ),
    TaskPolicy(
        task_name="jobs.rollup_minutes",
        task_class="job_rollup",
        queue="maintenance",
        attempts=1,
        backoff=Backoff(0, 0),
        timeout_s=60,
        on_exhaustion="next scheduled run folds the missed minutes too",
        lock="jobs:rollup",
        adr_row=False,
    ),
    TaskPolicy(
        task_name="jobs.remove_old_jobs",
        task_class="job_pruning",
        queue="maintenance",
        attempts=1,
        backoff=Backoff(0, 0),
        timeout_s=10 * MIN,
        on_exhaustion="next scheduled run retries",
        lock="jobs:prune",
        adr_row=False,
    ),
    # --- issue 11: audit, evidence, orphan blobs, search (periodic table, ADR §4) ---
    TaskPolicy(
        task_name="audit.verify",
        task_class="audit_export_verify",
        queue="maintenance",
        attempts=5,
        backoff=Backoff(1 * HOUR, 8 * HOUR),
        timeout_s=30 * MIN,
        on_exhaustion="alert; the verification result with the first broken link is recorded",
        queueing_lock="audit:verify",
        lock="audit:verify",
    ),
    TaskPolicy(
        task_name="audit.partitions",
        task_class="audit_export_verify",
        queue="maintenance",
        attempts=5,
        backoff=Backoff(1 * HOUR, 8 * HOUR),
        timeout_s=30 * MIN,
        on_exhaustion="alert; writes create missing partitions on demand meanwhile",
        queueing_lock="audit:partitions",
        # Same lock as the export: a partition is never dropped while it is being exported.
        lock="audit:export",
    ),
    TaskPolicy(
        task_name="blobs.reconcile",
        task_class="orphan_blob_reconcile",
        queue="maintenance",
        attempts=3,
        backoff=Backoff(1 * HOUR, 4 * HOUR),
        timeout_s=30 * MIN,
        on_exhaustion="alert; the last recorded reconciliation report stays visible",
        queueing_lock="blobs:reconcile",
        lock="blobs:reconcile",
        adr_row=False,
    ),
    TaskPolicy(
        task_name="search.refresh_sweep",
        task_class="search_refresh_sweep",
        queue="maintenance",
        attempts=1,
        backoff=Backoff(0, 0),
        timeout_s=30 * MIN,
        on_exhaustion="next scheduled run retries",
        queueing_lock="search:sweep",
        lock="search:sweep",
        adr_row=False,
    ),
    TaskPolicy(
        task_name="search.index",
        task_class="search_index",
        queue="maintenance",
        attempts=3,
        backoff=Backoff(30, 5 * MIN),
        timeout_s=60,
        on_exhaustion="row left stale; the hourly sweep re-indexes it",
        lock="search:{kind}:{object_id}",
        queueing_lock="search:{kind}:{object_id}",
        adr_row=False,
    ),
)

BY_NAME: dict[str, TaskPolicy] = {p.task_name: p for p in POLICIES}
# Rows registered by test-only apps (tests/testapp); empty in every deployed process.
TEST_ONLY: dict[str, TaskPolicy] = {}


def register_test_policy(policy: TaskPolicy) -> None:
    TEST_ONLY[policy.task_name] = policy


def policy_for(task_name: str) -> TaskPolicy:
    try:
        return BY_NAME.get(task_name) or TEST_ONLY[task_name]
    except KeyError:
        raise LookupError(f"no policy row for task {task_name!r}: declare it in ats/jobs/policy.py") from None


@dataclasses.dataclass(frozen=True)
class PeriodicJob:
    """One row of ADR 0004 §4 (or a project-defined periodic job), as code.

    Every periodic dispatch is a locked job row: procrastinate dedupes the deferral per
    schedule tick, and the task's policy row carries a fixed `lock` so two ticks never
    run side by side.
    """

    adr_schedule: str  # the ADR's schedule cell ("" for project-defined jobs)
    adr_task: str  # the ADR's wording of the task
    task_name: str
    cron: str  # procrastinate cron (5 fields, or 6 with seconds last)
    env: str = ""  # environment variable that overrides the cron (tests shrink them)
    pending: str = ""  # the issue that will implement it; "" when implemented

    def effective_cron(self) -> str:
        import os

        return (os.environ.get(self.env) if self.env else None) or self.cron


PERIODIC: tuple[PeriodicJob, ...] = (
    PeriodicJob(
        "every 2 min",
        "Graph mail poll per active channel",
        "mail.schedule_polls",
        "*/2 * * * *",
        env="ATS_MAIL_POLL_CRON",
    ),
    PeriodicJob(
        "every 15 min", "Circuit-breaker health probe", "ai.probe_breaker", "*/15 * * * *", env="ATS_AI_PROBE_CRON"
    ),
    # Runs every 20 s, well inside the ADR's 15 min: it also rescues stalled parse jobs
    # within their 90 s budget.
    PeriodicJob(
        "every 15 min", "requeue `scheduled` retries", "jobs.rescue_and_sweep", "* * * * * */20", env="ATS_RESCUE_CRON"
    ),
    PeriodicJob(
        "hourly",
        "Search-index refresh sweep for rows whose triggers deferred work",
        "search.refresh_sweep",
        "7 * * * *",
        env="ATS_SEARCH_SWEEP_CRON",
    ),
    PeriodicJob("nightly", "Retention purge", "retention.purge", "30 1 * * *", env="ATS_RETENTION_PURGE_CRON"),
    PeriodicJob(
        "nightly",
        "orphan-blob reconciliation",
        "blobs.reconcile",
        "45 2 * * *",
        env="ATS_BLOBS_RECONCILE_CRON",
    ),
    PeriodicJob(
        "nightly",
        "`retention_due_on` recompute",
        "retention.recompute_due_on",
        "0 1 * * *",
        env="ATS_RETENTION_DUE_ON_CRON",
    ),
    PeriodicJob("nightly", "audit hash-chain verification", "audit.verify", "15 3 * * *", env="ATS_AUDIT_VERIFY_CRON"),
    PeriodicJob(
        "daily",
        "Export the closed audit partition to the immutable archive (ADR 0003)",
        "audit.export_verify",
        "30 4 * * *",
        env="ATS_AUDIT_EXPORT_CRON",
    ),
    PeriodicJob(
        "monthly",
        "Create next month's audit partitions (and drop/detach at 13 months)",
        "audit.partitions",
        "0 0 1 * *",
        env="ATS_AUDIT_PARTITIONS_CRON",
    ),
    PeriodicJob(
        "Phase 3, weekly",
        "Fairness / disparate-impact evaluation",
        "fairness.evaluate",
        "0 5 * * 1",
        env="ATS_FAIRNESS_CRON",
    ),
    # Project-defined periodic jobs (not rows of ADR §4).
    PeriodicJob(
        "", "completed-job pruning after 30 days (ADR §7)", "jobs.remove_old_jobs", "17 3 * * *", env="ATS_PRUNE_CRON"
    ),
    PeriodicJob(
        "", "weekly purge verifier (ADR R6)", "retention.verify_purge", "0 4 * * 0", env="ATS_RETENTION_VERIFY_CRON"
    ),
    PeriodicJob("", "lost-document detector", "intake.verify_documents", "*/5 * * * *", env="ATS_VERIFY_CRON"),
    PeriodicJob(
        "",
        "per-minute queue rollup for the console's charts, kept 7 days",
        "jobs.rollup_minutes",
        "* * * * *",
        env="ATS_ROLLUP_CRON",
    ),
)

PERIODIC_BY_TASK: dict[str, PeriodicJob] = {p.task_name: p for p in PERIODIC}


def periodic_cron(task_name: str) -> str:
    """The cron of `task_name`'s periodic row (its env override first)."""
    return PERIODIC_BY_TASK[task_name].effective_cron()
