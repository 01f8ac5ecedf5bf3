from django.apps import AppConfig


class ParseWorkerConfig(AppConfig):
    name = "ats.parse_worker"
    label = "parse_worker"

    def ready(self) -> None:
        # Registers the one task (and the sandbox's start/status hooks). Imported here, not
        # by procrastinate's autodiscovery: `ats.jobs` is installed too and its `tasks`
        # module holds trusted maintenance tasks this process must never load.
        from ats.parse_worker import tasks  # noqa: F401
