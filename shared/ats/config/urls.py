from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("ats.web.urls")),
    # Admins only (ats.web.admin.AtsAdminSite asks iam); domain models are read-only there.
    path("admin/", admin.site.urls),
]

# The API answers errors in its own shape ({"error", "code"}) even before a view runs.
handler400 = "ats.web.access.bad_request"
handler404 = "ats.web.access.not_found"
