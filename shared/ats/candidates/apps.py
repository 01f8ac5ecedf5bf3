from django.apps import AppConfig


class CandidatesConfig(AppConfig):
    name = "ats.candidates"
    label = "candidates"
    default_auto_field = "django.db.models.BigAutoField"
