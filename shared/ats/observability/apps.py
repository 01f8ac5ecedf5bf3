from django.apps import AppConfig


class ObservabilityConfig(AppConfig):
    name = "ats.observability"
    label = "observability"
    default_auto_field = "django.db.models.BigAutoField"
