from django.apps import AppConfig


class CandidatesConfig(AppConfig):
    name = "ats.candidates"
    label = "candidates"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Search indexes candidates and their documents but may not import them (layers).
        from ats.candidates import api as candidates_api
        from ats.candidates import search_sources
        from ats.jobs import api as jobs_api

        search_sources.register()
        # A dedupe that runs out of attempts is recorded on the candidate (ats.jobs.handlers).
        jobs_api.register_exhaustion_handler("candidates.dedupe", candidates_api.candidate_dedupe_exhausted)
