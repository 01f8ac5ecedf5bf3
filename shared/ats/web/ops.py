"""The operator's console: queues (caps, pause and resume), task classes, workers, stalled
jobs, the periodic schedule, the lost-document detector, job search and detail with every
attempt's error, cancel and retry, and a redacted view of a job's document."""

from __future__ import annotations

import json
import time
from typing import Any

from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from ats.ai import api as ai_api
from ats.audit import api as audit_api
from ats.channels import api as channels_api
from ats.iam import api as iam_api
from ats.intake import api as intake_api
from ats.jobs import ops_api as jobs_ops
from ats.observability import api as observability_api
from ats.retention import api as retention_api
from ats.scoring import api as scoring_api
from ats.web import charts as charts_svg
from ats.web.access import actor_label, requires

# A failed job of one of these tasks belongs to a document: retrying it means the
# document's own action (convention 5), which re-checks the state and defers a new job.
DOCUMENT_RETRY: dict[str, str] = {
    "intake.ingest_attachment": "retry_scan",
    "intake.parse_attachment": "reparse",
    "intake.apply_parse_result": "reparse",
    "candidates.create_from_attachment": "retry_candidate",
}


@requires("ops.view")
@require_GET
def console(request: HttpRequest) -> HttpResponse:
    caps = {q["queue"]: q for q in jobs_ops.queue_list()}
    queues = [{**q, "cap": caps[q["queue"]]["concurrency"], "paused": caps[q["queue"]]["paused"]}
              for q in jobs_ops.queue_overview()]  # fmt: skip
    return render(
        request,
        "ats/ops.html",
        {
            "queues": queues,
            "can_act": iam_api.can(request.user, "ops.act"),
            "tasks": jobs_ops.task_stats(),
            "workers": jobs_ops.workers(),
            "stalled": jobs_ops.stalled_jobs(),
            "periodic": jobs_ops.periodic_schedule(),
            "lost": intake_api.latest_verification(),
            "stalled_after_s": jobs_ops.stalled_after_s(),
            "chart": _chart(request.GET.get("chart", ""), request.GET.get("range", "")),
            "alerts": observability_api.read_alerts(timeout_s=1.0),
            "attention": needs_attention(),
        },
    )


AUDIT_TASKS = {"audit.verify": "Audit hash-chain verification", "audit.export_verify": "Audit export to the archive"}


def _next_run(task_name: str) -> Any:
    return next((p["next_run_at"] for p in jobs_ops.periodic_schedule() if p["task_name"] == task_name), None)


def needs_attention() -> dict[str, Any]:
    """ADR §2 "visible in the product": every exhausted or halted background process that
    needs a person - degraded mail channels, a halted retention purge, a failed audit
    verification or export, batch rescores with failures, the AI breaker. Counts and ids
    only: operators see no personal data (errors pass through the traceback scrubber)."""
    channels = [
        {**c, "last_error": jobs_ops.scrub_text(c["last_error"] or c["status_reason"] or "")}
        for c in channels_api.channel_list()
        if c["active"] and c["status"] == channels_api.ChannelStatus.DEGRADED
    ]
    purge = None
    status = retention_api.retention_status()
    if status["halted"]:
        run = retention_api.purge_halted_latest()
        purge = {
            "run_id": run.run_id if run else None,
            "halted_at": status["halted_at"],
            "at": run.finished_at if run else None,
            "error": jobs_ops.scrub_text(run.error if run else ""),
            "job_id": run.job_id if run else None,
            "next_run_at": _next_run("retention.purge"),
        }
    audit = []
    for task_name, label in AUDIT_TASKS.items():
        rows = jobs_ops.job_search(jobs_ops.JobFilter(task_name=task_name), limit=5)
        last = next((r for r in rows if r["task_name"] == task_name and r["status"] in {"failed", "succeeded"}), None)
        if last and last["status"] == "failed":
            detail = jobs_ops.job_detail(last["id"]) or {}
            log = detail.get("attempt_log") or [{}]
            audit.append(
                {"label": label, "job_id": last["id"], "at": last["last_event_at"], "error": log[-1].get("error", "")}
            )
    ai = ai_api.breaker_status()
    return {
        "channels": channels,
        "mail_next_poll": _next_run("mail.schedule_polls") if channels else None,
        "purge": purge,
        "audit": audit,
        "rescores": scoring_api.rescore_runs_with_failures(),
        "ai": {**ai, "reason": ai_api.unavailable_reason(), "open": ai["enabled"] and ai["state"] != "closed"},
        "count": len(channels) + bool(purge) + len(audit) + (ai["enabled"] and ai["state"] != "closed"),
    }


@requires("ops.act")
@require_POST
def retention_resume(request: HttpRequest) -> HttpResponse:
    """Resume a halted retention purge now (not at 01:30): a new run starts at the subject
    it halted at - nothing is skipped. Audited."""
    if not retention_api.retention_status()["halted"]:
        messages.error(request, "The retention purge is not halted; nothing to resume.")
        return HttpResponseRedirect(reverse("ops"), status=303)
    with transaction.atomic():
        job_id = jobs_ops.defer("retention.purge", payload={"timestamp": int(time.time())})
        if job_id is None:
            messages.warning(request, "A retention purge job is already waiting or running; it resumes at the halt.")
            return HttpResponseRedirect(reverse("ops"), status=303)
        audit_api.audit_event_record(
            actor=actor_label(request),
            action="retention.purge_resume",
            object_type="job",
            object_id=job_id,
            payload={"job_id": job_id},
        )
    messages.success(request, f"Retention purge resumed: job {job_id} starts at the subject it halted at.")
    return HttpResponseRedirect(reverse("ops"), status=303)


@requires("ops.view")
@require_GET
def alerts(request: HttpRequest) -> HttpResponse:
    """Alerts firing (and pending) in the Prometheus that evaluates the shipped rules."""
    return render(request, "ats/ops_alerts.html", {"alerts": observability_api.read_alerts()})


CHART_QUEUES = (*jobs_ops.QUEUES, jobs_ops.BUILTIN_QUEUE)


def _chart(queue: str, range_key: str) -> dict[str, Any]:
    """One queue's charts over one range, from the per-minute rollup (never the events)."""
    queue = queue if queue in CHART_QUEUES else "ingest"
    range_key = range_key if range_key in jobs_ops.CHART_RANGES else "24h"
    series = jobs_ops.chart_series(queue=queue, range_key=range_key)
    return {
        "queue": queue,
        "range": range_key,
        "label": series["label"],
        "charts": charts_svg.render(series),
        "queues": CHART_QUEUES,
        "ranges": [(r.key, r.label) for r in jobs_ops.CHART_RANGES.values()],
    }


@requires("ops.view")
@require_GET
def charts(request: HttpRequest) -> HttpResponse:
    """The charts panel alone: what htmx swaps in place (a range or queue picked, or the
    panel's own 30 s refresh) - the console around it is not reloaded."""
    return render(
        request, "ats/_ops_charts.html", {"chart": _chart(request.GET.get("queue", ""), request.GET.get("range", ""))}
    )


def _filter(request: HttpRequest) -> jobs_ops.JobFilter:
    raw_id = request.GET.get("id", "").strip()
    raw_since = request.GET.get("since", "").strip()[:40]
    try:
        since = jobs_ops.parse_since(raw_since) if raw_since else None
    except ValueError:
        since = None  # said on the page (jobs view), never silently a different filter
    key, _, value = request.GET.get("args", "").strip().partition("=")
    return jobs_ops.JobFilter(
        job_id=int(raw_id) if raw_id.isdigit() else None,
        task_name=request.GET.get("task", "").strip()[:128],
        status=request.GET.get("status", "") if request.GET.get("status", "") in STATUSES else "",
        queue=request.GET.get("queue", "").strip()[:64],
        args_key=key.strip()[:64],
        args_value=value.strip()[:128],
        since=since,
    )


STATUSES = ("todo", "doing", "succeeded", "failed", "cancelled", "aborted")


PAGE_SIZE = 100


@requires("ops.view")
@require_GET
def jobs(request: HttpRequest) -> HttpResponse:
    """The job list: a tab per status with its count for the current filter, newest first,
    paged by cursor (`before=<id>`) - every matching job is reachable, no row cap."""
    f = _filter(request)
    since_raw = request.GET.get("since", "").strip()[:40]
    if since_raw and f.since is None:
        messages.error(request, f"Changed since {since_raw!r}: give a duration (15m, 1h, 2d) or a date; not applied.")
    raw_before = request.GET.get("before", "").strip()
    before = int(raw_before) if raw_before.isdigit() else None
    rows = jobs_ops.job_search(f, limit=PAGE_SIZE + 1, before_id=before)
    more = len(rows) > PAGE_SIZE
    rows = rows[:PAGE_SIZE]
    counts = jobs_ops.job_status_counts(f)
    base = request.GET.copy()
    base.pop("before", None)
    base.pop("status", None)

    def link(**extra: str) -> str:
        q = base.copy()
        for k, v in extra.items():
            if v:
                q[k] = v
        return "?" + q.urlencode()

    next_q = request.GET.copy()
    if more:
        next_q["before"] = str(rows[-1]["id"])
    for row in rows:
        row["args_json"] = json.dumps(row["args"], sort_keys=True)
    return render(
        request,
        "ats/jobs.html",
        {
            "rows": rows,
            "f": f,
            "statuses": STATUSES,
            "args": request.GET.get("args", ""),
            "tabs": [{"status": "", "label": "all", "count": sum(counts.values()), "href": link()}]
            + [{"status": st, "label": st, "count": counts[st], "href": link(status=st)} for st in STATUSES],
            "next_href": "?" + next_q.urlencode() if more else None,
            "first_href": link(status=f.status) if before is not None else None,
            "can_act": iam_api.can(request.user, "ops.act"),
            "since": since_raw,
            "finished": jobs_ops.FINISHED_STATUSES,
        },
    )


@requires("ops.view")
@require_GET
def job(request: HttpRequest, job_id: int) -> HttpResponse:
    detail = jobs_ops.job_detail(job_id)
    if detail is None:
        raise Http404("no such job")
    attachment_id = (detail.get("args") or {}).get("attachment_id")
    retry_note = _retry_refusal(detail, attachment_id) if detail["status"] == "failed" else "not failed"
    return render(
        request,
        "ats/job.html",
        {
            "job": detail,
            # JSON, as the job row stores it (not a Python repr).
            "args_json": json.dumps(detail.get("args") or {}, indent=2, sort_keys=True),
            "attachment_id": attachment_id,
            "domain_action": DOCUMENT_RETRY.get(detail["task_name"]) if attachment_id else None,
            "can_act": iam_api.can(request.user, "ops.act"),
            # Retry is offered only where it would do something; otherwise the reason why not.
            "retry_refusal": retry_note,
        },
    )


def _retry_refusal(detail: dict[str, Any], attachment_id: Any) -> str:
    """Why a retry of this failed job would change nothing ('' when it would act)."""
    if attachment_id is None or detail["task_name"] not in DOCUMENT_RETRY:
        return ""
    att = intake_api.attachment_get(int(attachment_id))
    if att is None:
        return f"Document {attachment_id} no longer exists; there is nothing to retry."
    action = DOCUMENT_RETRY[detail["task_name"]]
    allowed = intake_api.allowed_actions(att.state)
    if action == "reparse" and att.state != intake_api.State.PARSE_FAILED:
        allowed = []  # a good document's re-parse is the recruiter's call, not a job retry
    if action not in allowed:
        label = intake_api.INFO[intake_api.State(att.state)].label
        return f"Not retried: document {attachment_id} is now {label.lower()}, so a retry would change nothing."
    return ""


@requires("ops.view")
@require_GET
def document(request: HttpRequest, attachment_id: int) -> HttpResponse:
    """A document as an operator sees it: state, reason and timeline - never its name,
    its content or the person it is about (operators see no personal data)."""
    att = intake_api.attachment_get(attachment_id)
    if att is None:
        raise Http404("no such document")
    status = intake_api.attachment_status(att)
    timeline = [
        {
            "at": t["at"],
            "what": t["what"],
            "task_name": t.get("task_name"),
            "action": t.get("action"),
            "job_id": t.get("job_id"),
            "attempt": t.get("attempt"),
        }
        for t in intake_api.attachment_timeline(att.pk)
    ]
    return render(
        request,
        "ats/ops_document.html",
        {
            "doc": {
                "id": att.pk,
                "state_label": status["state_label"],
                "terminal": status["terminal"],
                "reason_code": status["reason_code"],
                "reason": jobs_ops.scrub_text(status["reason"] or ""),
                "detected_type": status["detected_type"],
                "virus_scan_status": status["virus_scan_status"],
            },
            "timeline": timeline,
        },
    )


@requires("ops.act")
@require_POST
def queue_action(request: HttpRequest, queue: str, action: str) -> HttpResponse:
    """Pause or resume a queue from the console (the twin of `ats queue pause|resume`)."""
    if action not in {"pause", "resume"}:
        raise Http404("no such action")
    back = HttpResponseRedirect(reverse("ops"), status=303)
    try:
        with transaction.atomic():
            row = jobs_ops.queue_set_paused(queue=queue, paused=action == "pause", actor=actor_label(request))
            audit_api.audit_event_record(
                actor=actor_label(request),
                action=f"jobs.queue_{action}",
                object_type="queue",
                object_id=queue,
                payload={"queue": queue, "paused": action == "pause"},
            )
    except LookupError as exc:
        messages.error(request, str(exc))
        return back
    if action == "pause":
        messages.success(
            request, f"Queue {queue} paused: running jobs finish, {row['waiting']} waiting jobs wait until resumed."
        )
    else:
        messages.success(request, f"Queue {queue} resumed: its {row['waiting']} waiting jobs start now.")
    return back


def _retry_through_domain(request: HttpRequest, detail: dict[str, Any], attachment_id: int) -> str:
    """Retry via the document's action when its state allows one; a document already past
    the failure (terminal otherwise, or moved on) makes the retry a refusal, shown as one."""
    refusal = _retry_refusal(detail, attachment_id)
    if refusal:
        raise jobs_ops.JobActionRefused(refusal)
    action = DOCUMENT_RETRY[detail["task_name"]]
    if action == "retry_scan":
        intake_api.attachment_retry_scan(attachment_id=attachment_id, actor=request.user)
    elif action == "retry_candidate":
        intake_api.attachment_retry_candidate(attachment_id=attachment_id, actor=request.user)
    else:
        intake_api.attachment_reparse(attachment_id=attachment_id, actor=request.user)
    return f"Retried through the document's action ({action}) on document {attachment_id}."


def _refuse_cancel_of_a_backing_job(detail: dict[str, Any], attachment_id: Any) -> None:
    """A waiting job that a document waits for must not vanish: the document would be
    lost (neither terminal nor backed by a job). Those are left to the document's flow."""
    if attachment_id is None:
        return
    att = intake_api.attachment_get(int(attachment_id))
    if att is None or intake_api.is_terminal(att.state):
        return
    if detail["task_name"] in intake_api.INFO[intake_api.State(att.state)].waits_for:
        raise jobs_ops.JobActionRefused(
            f"document {att.pk} ({att.state}) waits for this job; cancelling it would lose the document"
        )


BULK_STATUS = {"retry": "failed", "cancel": "todo"}
BULK_VERB = {"retry": "retried", "cancel": "cancelled", "delete": "deleted"}


def _bulk_filter(data: Any) -> dict[str, Any]:
    return {
        "task_name": str(data.get("task", "")).strip()[:128],
        "queue": str(data.get("queue", "")).strip()[:64],
        "since": str(data.get("since", "")).strip()[:40],
        "status": str(data.get("status", "")).strip()[:16],
    }


def _bulk_targets(
    action: str, data: Any, filt: dict[str, Any]
) -> tuple[str, list[tuple[int, str, dict[str, Any]]], list[int]]:
    """(the status acted on, the matching jobs, the ticked ids) for a bulk request: the
    ticked rows (scope=selected) that are in a status the action applies to, or every job
    matching the filter. Delete acts on one finished status, named by the filter."""
    selected = data.get("scope") == "selected"
    if action == "delete":
        status = filt["status"] if filt["status"] in jobs_ops.FINISHED_STATUSES else ""
        if not status and not selected:
            raise ValueError(f"Delete acts on finished jobs: pick one of {', '.join(jobs_ops.FINISHED_STATUSES)}.")
    else:
        status = BULK_STATUS[action]
    if selected:
        ids = sorted({int(x) for x in data.getlist("ids") if str(x).isdigit()})[:1000]
        if not ids:
            raise ValueError("No job is ticked: tick the jobs to act on, or choose every job matching the filter.")
        allowed = jobs_ops.FINISHED_STATUSES if action == "delete" else (status,)
        rows = [r for r in (jobs_ops.job_row(i) for i in ids) if r is not None and r["status"] in allowed]
        return status, [(r["id"], r["task_name"], r["args"]) for r in rows], ids
    since = jobs_ops.parse_since(filt["since"]) if filt["since"] else None
    matched = jobs_ops.job_ids_matching(status=status, task_name=filt["task_name"], queue=filt["queue"], since=since)
    return status, matched, []


@requires("ops.act")
def jobs_bulk(request: HttpRequest, action: str) -> HttpResponse:
    """Retry failed / cancel waiting / delete finished jobs - the ticked rows or every job
    matching a filter: GET states the count and asks; POST (confirmed) acts per job by the
    single-job rules and writes one audit event (who, the filter or the ids, how many) -
    the twin of `ats jobs retry|cancel|delete`."""
    if action not in BULK_VERB or request.method not in {"GET", "POST"}:
        raise Http404("no such bulk action")
    data = request.POST if request.method == "POST" else request.GET
    filt = _bulk_filter(data)
    try:
        status, matched, ids = _bulk_targets(action, data, filt)
    except ValueError as exc:
        messages.error(request, str(exc))
        return HttpResponseRedirect(reverse("ops-jobs"), status=303)
    if request.method == "GET":
        return render(
            request,
            "ats/jobs_bulk.html",
            {
                "action": action,
                "status": status,
                "filter": filt,
                "count": len(matched),
                "selected": ids,
                "ids": [m[0] for m in matched],
                "verb": BULK_VERB[action],
            },
        )
    done = 0
    verb = BULK_VERB[action]
    with transaction.atomic():
        for job_id, task_name, job_args in matched:
            detail = {"task_name": task_name, "status": status, "args": job_args}
            attachment_id = job_args.get("attachment_id")
            try:
                with transaction.atomic():
                    if action == "cancel":
                        _refuse_cancel_of_a_backing_job(detail, attachment_id)
                        jobs_ops.job_cancel(job_id=job_id)
                    elif action == "delete":
                        jobs_ops.job_delete(job_id=job_id)
                    elif attachment_id is not None and task_name in DOCUMENT_RETRY:
                        _retry_through_domain(request, detail, int(attachment_id))
                    else:
                        jobs_ops.job_retry(job_id=job_id)
                    done += 1
            except (jobs_ops.JobActionRefused, intake_api.ActionRefused, LookupError):
                continue
        audit_api.audit_event_record(
            actor=actor_label(request),
            action=f"jobs.bulk_{action}",
            object_type="job_filter",
            object_id="-",
            payload={
                "filter": {"status": status, "task": filt["task_name"], "queue": filt["queue"], "since": filt["since"]},
                "ids": [m[0] for m in matched] if ids else None,
                "matched": len(matched),
                verb: done,
            },
        )
    what = "ticked" if ids else status
    note = f"{len(matched)} {what} jobs matched; {done} {verb}."
    if done < len(matched):
        note += f" {len(matched) - done} left as they were (their document has moved on, or they changed meanwhile)."
    (messages.success if done else messages.warning)(request, note)
    back_status = status if action != "delete" else ""
    back = (
        reverse("ops-jobs")
        + "?"
        + "&".join(
            f"{k}={v}" for k, v in (("status", back_status), ("task", filt["task_name"]), ("queue", filt["queue"])) if v
        )
    )
    return HttpResponseRedirect(back, status=303)


@requires("ops.act")
@require_POST
def job_action(request: HttpRequest, job_id: int, action: str) -> HttpResponse:
    detail = jobs_ops.job_detail(job_id)
    if detail is None or action not in {"cancel", "retry"}:
        raise Http404("no such job or action")
    back = HttpResponseRedirect(reverse("ops-job", args=[job_id]), status=303)
    attachment_id = (detail.get("args") or {}).get("attachment_id")
    try:
        with transaction.atomic():  # the action and its audit row commit together
            if action == "cancel":
                _refuse_cancel_of_a_backing_job(detail, attachment_id)
                jobs_ops.job_cancel(job_id=job_id)
                note = f"Job {job_id} cancelled."
            elif attachment_id is not None and detail["task_name"] in DOCUMENT_RETRY:
                if detail["status"] != "failed":
                    raise jobs_ops.JobActionRefused(f"job {job_id} is {detail['status']}; only a failed job is retried")
                note = _retry_through_domain(request, detail, int(attachment_id))
            else:
                jobs_ops.job_retry(job_id=job_id)
                note = f"Job {job_id} retried."
            audit_api.audit_event_record(
                actor=actor_label(request),
                action=f"jobs.{action}",
                object_type="job",
                object_id=job_id,
                payload={"task_name": detail["task_name"], "outcome": note},
            )
    except (jobs_ops.JobActionRefused, intake_api.ActionRefused, LookupError) as exc:
        messages.error(request, str(exc))
        return back
    messages.success(request, note)
    return back
