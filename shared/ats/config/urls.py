from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("ats.web.urls")),
    # Admins only (ats.web.admin.AtsAdminSite asks iam); domain models are read-only there.
    path("admin/", admin.site.urls),
]
