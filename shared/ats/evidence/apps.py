from django.apps import AppConfig


class EvidenceConfig(AppConfig):
    name = "ats.evidence"
    label = "evidence"
    default_auto_field = "django.db.models.BigAutoField"
