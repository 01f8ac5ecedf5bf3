from django.apps import AppConfig


class AiConfig(AppConfig):
    name = "ats.ai"
    label = "ai"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from ats.ai import api as ai_api
        from ats.jobs import api as jobs_api

        # An invocation that runs out of attempts ends its AiRun (ats.jobs.handlers).
        jobs_api.register_exhaustion_handler("ai.invoke", ai_api.ai_run_exhausted)
