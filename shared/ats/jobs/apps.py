from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "ats.jobs"
    label = "ats_jobs"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from ats.config.env import DEPLOYABLE, flag

        if DEPLOYABLE not in {"default", "untrusted"}:
            return
        from ats.config import settings_db
        from ats.jobs import session

        if DEPLOYABLE == "untrusted" and settings_db.pooled():
            # The parse role's row-level security and ats_parse_submit() compare the
            # worker row's inet_client_addr() with the caller's: behind a pooler both are
            # the pooler's, shared by every client (services/worker-untrusted/policy).
            raise session.PoolerConfigError(
                "worker-untrusted connects directly to Postgres, never through a pooler "
                f"({settings_db.POOLER_ENV} must be unset): its row-level security keys on inet_client_addr()"
            )
        # The job pool in autocommit; pooled worker-default: LISTEN and the fence take the
        # session path (ats.jobs.session).
        session.install()
        # ATS_WORKER_WAKEUP_FIX=0 runs upstream's loop: bench/paced_bench.py measures both.
        if flag("ATS_WORKER_WAKEUP_FIX", default=True):
            # Worker processes only: the fetch loop that keeps wake-ups (ats.jobs.wakeup).
            from ats.jobs import wakeup

            wakeup.install()
        # ADR §1 per-queue caps and queue pause, enforced at fetch (ats.jobs.concurrency).
        if flag("ATS_QUEUE_CAPS", default=True):
            from ats.jobs import concurrency

            concurrency.install()
        # Always, and after the above (it wraps the installed class): hard timeouts and
        # the fence that keeps a rescued job from running beside its first run.
        from ats.jobs import watchdog

        watchdog.install()
