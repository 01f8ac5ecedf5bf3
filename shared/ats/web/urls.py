from django.urls import path

from ats.web import views

urlpatterns = [
    path("healthz", views.healthz),
    path("readyz", views.readyz),
    path("metrics", views.metrics),
    path("api/jobs/<int:job_id>", views.api_job),
    path("api/intake/<int:raw_intake_id>", views.api_raw_intake),
]
