from django.apps import AppConfig


class ScoringConfig(AppConfig):
    name = "ats.scoring"
    label = "scoring"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Candidates asks who a hiring manager may see; the answer is scoring's
        # requisition assignments, and candidates may not import scoring (layers).
        from ats.candidates import api as candidates_api
        from ats.channels import api as channels_api
        from ats.jobs import api as jobs_api
        from ats.scoring import api as scoring_api
        from ats.scoring import selectors

        candidates_api.register_assigned_candidates(selectors.candidate_ids_assigned_to)
        # A received message records the requisition its mailbox feeds (None: talent
        # pool); channels may not import scoring (layers).
        channels_api.register_receipt_metadata(_requisition_of_channel)
        # Scoring that runs out of attempts marks the application (ats.jobs.handlers).
        jobs_api.register_exhaustion_handler("scoring.score_application", scoring_api.application_score_exhausted)
        jobs_api.register_exhaustion_handler("scoring.rescore_application", scoring_api.rescore_application_exhausted)


def _requisition_of_channel(channel_id: int) -> dict[str, int | None]:
    from ats.scoring import selectors

    return {"requisition_id": selectors.channel_requisition_id(channel_id)}
