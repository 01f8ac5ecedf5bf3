from django.db import models


class SweptJob(models.Model):
    """A failed/stalled job whose domain terminal state the sweep has made sure of.

    Failed jobs are kept until this row exists (pruning deletes only swept failures), so a
    failure can never vanish before a recruiter can see it.
    """

    job_id = models.BigIntegerField(primary_key=True)
    task_name = models.CharField(max_length=128)
    outcome = models.CharField(max_length=32)  # rescued | exhausted | handled | no_handler
    swept_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "jobs_swept_job"


class JobAttempt(models.Model):
    """One run of a job: written by the job machinery (ats.jobs.attempts) at its start and
    end, closed as `lost` by the rescue when the process died mid-run. The traceback is
    trimmed and scrubbed of personal data before it is stored (ats.jobs.scrub)."""

    job_id = models.BigIntegerField(db_index=True)
    attempt = models.PositiveIntegerField()  # 1-based, the run's number
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True)
    worker = models.CharField(max_length=128, default="")
    status = models.CharField(max_length=16)  # running | succeeded | failed | lost
    error = models.TextField(default="")  # "ExceptionType: message", scrubbed; "" on success
    traceback = models.TextField(default="")

    class Meta:
        db_table = "jobs_attempt"
        constraints = [models.UniqueConstraint(fields=["job_id", "attempt"], name="jobs_attempt_job_attempt_uniq")]


class QueueState(models.Model):
    """A paused queue: workers fetch nothing from it (ats_jobs_fetch_v1) until resumed."""

    queue = models.CharField(max_length=64, primary_key=True)
    paused = models.BooleanField(default=False)
    changed_at = models.DateTimeField(auto_now=True)
    changed_by = models.CharField(max_length=150, default="")

    class Meta:
        db_table = "jobs_queue_state"


class QueueMinute(models.Model):
    """One queue's minute (issue 24 item 5): what the console's charts read, written once a
    minute by the `jobs.rollup_minutes` periodic job and kept 7 days - the charts never scan
    procrastinate's events on a page load. A minute with nothing in it has no row (zero)."""

    queue = models.CharField(max_length=64)
    minute = models.DateTimeField()  # the minute's start (UTC, truncated)
    finished = models.PositiveIntegerField(default=0)  # succeeded + failed (terminal)
    failures = models.PositiveIntegerField(default=0)  # failed runs: failed + deferred_for_retry
    started = models.PositiveIntegerField(default=0)
    # Waiting jobs sampled when the rollup closes the minute (a back-filled minute has none).
    depth = models.IntegerField(null=True)
    pickup_p50_s = models.FloatField(null=True)  # waiting -> started, runs started this minute
    pickup_p95_s = models.FloatField(null=True)
    run_p50_s = models.FloatField(null=True)  # started -> ended, runs ended this minute
    run_p95_s = models.FloatField(null=True)

    class Meta:
        db_table = "jobs_queue_minute"
        constraints = [models.UniqueConstraint(fields=["queue", "minute"], name="jobs_queue_minute_uniq")]
        indexes = [models.Index(fields=["minute"], name="jobs_queue_minute_minute_idx")]
