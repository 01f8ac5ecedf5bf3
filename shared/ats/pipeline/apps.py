from django.apps import AppConfig


class PipelineConfig(AppConfig):
    name = "ats.pipeline"
    label = "pipeline"

    def ready(self) -> None:
        from ats.jobs import api as jobs_api
        from ats.pipeline import follow_ups, receivers

        receivers.connect()
        # A batch of follow-ups that fails every attempt is split into its steps again.
        jobs_api.register_exhaustion_handler(follow_ups.FOLLOW_UPS, follow_ups.follow_ups_exhausted)
