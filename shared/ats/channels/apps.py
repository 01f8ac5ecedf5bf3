from django.apps import AppConfig


class ChannelsConfig(AppConfig):
    name = "ats.channels"
    label = "channels"
    default_auto_field = "django.db.models.BigAutoField"
