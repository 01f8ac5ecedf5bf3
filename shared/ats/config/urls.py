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
# A database outage answers 503 + Retry-After ("try again in a moment"), not a 500.
handler500 = "ats.web.access.server_error"
