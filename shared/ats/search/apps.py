from django.apps import AppConfig


class SearchConfig(AppConfig):
    name = "ats.search"
    label = "search"
    default_auto_field = "django.db.models.BigAutoField"
