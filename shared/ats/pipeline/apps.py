from django.apps import AppConfig


class PipelineConfig(AppConfig):
    name = "ats.pipeline"
    label = "pipeline"

    def ready(self) -> None:
        from ats.pipeline import receivers

        receivers.connect()
