from django.apps import AppConfig


class IntakeConfig(AppConfig):
    name = "ats.intake"
    label = "intake"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from ats.intake import api as intake_api
        from ats.jobs import api as jobs_api

        # The terminal states these tasks' policy rows leave to intake (ats.jobs.handlers).
        for task_name, handler in (
            ("intake.ingest_attachment", intake_api.ingest_exhausted),
            ("intake.parse_attachment", intake_api.parse_exhausted),
            ("intake.apply_parse_result", intake_api.parse_result_apply_exhausted),
            ("intake.store_page_images", intake_api.page_images_exhausted),
            # The candidate step (ats.pipeline) fails into the document's state.
            ("candidates.create_from_attachment", intake_api.candidate_exhausted),
        ):
            jobs_api.register_exhaustion_handler(task_name, handler)
