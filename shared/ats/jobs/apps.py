from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "ats.jobs"
    label = "ats_jobs"
    default_auto_field = "django.db.models.BigAutoField"
