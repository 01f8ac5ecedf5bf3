from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "ats.web"
    label = "web"
