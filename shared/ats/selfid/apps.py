from django.apps import AppConfig


class SelfIdConfig(AppConfig):
    name = "ats.selfid"
    label = "selfid"
    default_auto_field = "django.db.models.BigAutoField"
