from django.apps import AppConfig


class IntakeConfig(AppConfig):
    name = "ats.intake"
    label = "intake"
    default_auto_field = "django.db.models.BigAutoField"
