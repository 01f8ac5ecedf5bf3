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
