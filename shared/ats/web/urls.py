from django.urls import path, register_converter

from ats.web import auth, erasure, ops, pages, requisitions, upload, views
from ats.web.converters import DbId

register_converter(DbId, "id")

urlpatterns = [
    path("", pages.home, name="home"),
    path("documents/<id:attachment_id>", pages.document, name="document"),
    path("documents/<id:attachment_id>/thumbnail.png", pages.thumbnail, name="document-thumbnail"),
    path("documents/<id:attachment_id>/<slug:action>", pages.document_action, name="document-action"),
    path("upload/", pages.upload_page, name="upload"),
    path("candidates/", pages.candidates, name="candidates"),
    path("candidates/<id:candidate_id>", pages.candidate, name="candidate"),
    path("candidates/<id:candidate_id>/edit", pages.candidate_edit, name="candidate-edit"),
    path("candidates/<id:candidate_id>/merge", pages.candidate_merge, name="candidate-merge"),
    path("candidates/<id:candidate_id>/erase", erasure.candidate_erase, name="candidate-erase"),
    path("candidates/merges/<id:merge_id>/unmerge", pages.candidate_unmerge, name="candidate-unmerge"),
    path("candidates/changes/<id:change_id>/accept", pages.change_accept, name="candidate-change-accept"),
    path("candidates/changes/<id:change_id>/dismiss", pages.change_dismiss, name="candidate-change-dismiss"),
    path("requisitions/", requisitions.requisitions, name="requisitions"),
    path("requisitions/<id:requisition_id>/", requisitions.requisition, name="requisition"),
    path("applications/<id:application_id>/", requisitions.application, name="application"),
    path("applications/<id:application_id>/explain", requisitions.application_explain, name="application-explain"),
    path("ops/", ops.console, name="ops"),
    path("ops/jobs/", ops.jobs, name="ops-jobs"),
    path("ops/jobs/bulk/<slug:action>", ops.jobs_bulk, name="ops-jobs-bulk"),
    path("ops/jobs/<id:job_id>", ops.job, name="ops-job"),
    path("ops/jobs/<id:job_id>/<slug:action>", ops.job_action, name="ops-job-action"),
    path("ops/queues/<slug:queue>/<slug:action>", ops.queue_action, name="ops-queue-action"),
    path("ops/documents/<id:attachment_id>", ops.document, name="ops-document"),
    path("healthz", views.healthz),
    path("readyz", views.readyz),
    path("api/jobs/<id:job_id>", views.api_job),
    path("api/intake/<id:raw_intake_id>", views.api_raw_intake),
    path("api/intake/upload", upload.upload),
    path("api/candidates/<id:candidate_id>", views.api_candidate),
    path("login/", auth.login, name="login"),
    path("logout/", auth.logout, name="logout"),
]
