from django.urls import path

from ats.web import auth, ops, pages, upload, views

urlpatterns = [
    path("", pages.home, name="home"),
    path("documents/<int:attachment_id>", pages.document, name="document"),
    path("documents/<int:attachment_id>/thumbnail.png", pages.thumbnail, name="document-thumbnail"),
    path("documents/<int:attachment_id>/<slug:action>", pages.document_action, name="document-action"),
    path("upload/", pages.upload_page, name="upload"),
    path("candidates/", pages.candidates, name="candidates"),
    path("candidates/<int:candidate_id>", pages.candidate, name="candidate"),
    path("ops/", ops.console, name="ops"),
    path("ops/jobs/", ops.jobs, name="ops-jobs"),
    path("ops/jobs/<int:job_id>", ops.job, name="ops-job"),
    path("ops/jobs/<int:job_id>/<slug:action>", ops.job_action, name="ops-job-action"),
    path("healthz", views.healthz),
    path("readyz", views.readyz),
    path("metrics", views.metrics),
    path("api/jobs/<int:job_id>", views.api_job),
    path("api/intake/<int:raw_intake_id>", views.api_raw_intake),
    path("api/intake/upload", upload.upload),
    path("api/candidates/<int:candidate_id>", views.api_candidate),
    path("login/", auth.login, name="login"),
    path("logout/", auth.logout, name="logout"),
]
