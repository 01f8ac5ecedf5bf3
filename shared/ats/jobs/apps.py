from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "ats.jobs"
    label = "ats_jobs"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from ats.config.env import DEPLOYABLE, flag

        # ATS_WORKER_WAKEUP_FIX=0 runs upstream's loop: bench/paced_bench.py measures both.
        if DEPLOYABLE in {"default", "untrusted"} and flag("ATS_WORKER_WAKEUP_FIX", default=True):
            # Worker processes only: the fetch loop that keeps wake-ups (ats.jobs.wakeup).
            from ats.jobs import wakeup

            wakeup.install()
