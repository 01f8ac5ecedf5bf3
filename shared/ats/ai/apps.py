from django.apps import AppConfig


class AiConfig(AppConfig):
    name = "ats.ai"
    label = "ai"
    default_auto_field = "django.db.models.BigAutoField"
