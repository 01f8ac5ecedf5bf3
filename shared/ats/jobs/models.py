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
