from django.contrib.auth import views as auth_views
from django.urls import path

from ats.web import upload, views

urlpatterns = [
    path("healthz", views.healthz),
    path("readyz", views.readyz),
    path("api/jobs/<int:job_id>", views.api_job),
    path("api/intake/<int:raw_intake_id>", views.api_raw_intake),
    path("api/intake/upload", upload.upload),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
]
