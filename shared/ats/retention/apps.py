from django.apps import AppConfig


class RetentionConfig(AppConfig):
    name = "ats.retention"
    label = "retention"
    default_auto_field = "django.db.models.BigAutoField"
