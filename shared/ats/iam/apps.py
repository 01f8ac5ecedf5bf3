from django.apps import AppConfig


class IamConfig(AppConfig):
    name = "ats.iam"
    label = "iam"
    default_auto_field = "django.db.models.BigAutoField"
