from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps  # module, not the class: one default AppConfig here


class WebConfig(AppConfig):
    name = "ats.web"
    label = "web"


class AtsAdminConfig(admin_apps.AdminConfig):
    """django.contrib.admin with the site class that asks iam (admins only)."""

    default = False
    default_site = "ats.web.adminsite.AtsAdminSite"
