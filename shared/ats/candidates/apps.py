from django.apps import AppConfig


class CandidatesConfig(AppConfig):
    name = "ats.candidates"
    label = "candidates"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Search indexes candidates and their documents but may not import them (layers).
        from ats.candidates import search_sources

        search_sources.register()
