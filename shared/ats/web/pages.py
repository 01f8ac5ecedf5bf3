"""The recruiter's pages: triage (home), document timeline, upload, candidates."""

from __future__ import annotations

import datetime
import hashlib
import json
from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from ats.candidates import api as candidates_api
from ats.channels import api as channels_api
from ats.iam import api as iam_api
from ats.intake import api as intake_api
from ats.web import viewer
from ats.web.access import LOGIN_ONLY, requires
from ats.web.identity import identity_context
from ats.web.requisitions import candidate_applications, visible_requisitions
from ats.web.upload import MAX_FILES_PER_UPLOAD

PAGE_SIZE = 50

# Which permission each document action needs (iam.can), and its form's wording.
ACTION_RULES: dict[str, str] = {
    "reparse": "intake.reparse",
    "retry_scan": "intake.retry",
    "retry_candidate": "intake.retry",
    "discard": "intake.discard",
    "release": "intake.release",
    "rescan_raised": "intake.release",
}


def _date(value: str | None) -> datetime.date | None:
    try:
        return datetime.date.fromisoformat(value) if value else None
    except ValueError:
        return None


def _without_page(request: HttpRequest) -> str:
    query = request.GET.copy()
    query.pop("page", None)
    return query.urlencode()


@requires(LOGIN_ONLY)
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """Each role lands where its work is: triage, candidates, or the ops console."""
    if iam_api.can(request.user, "intake.view"):
        return triage(request)
    if iam_api.can(request.user, "candidate.view"):
        return HttpResponseRedirect(reverse("candidates"))
    return HttpResponseRedirect(reverse("ops"))


def _name_candidates(rows: list[dict[str, Any]]) -> None:
    """Each row's candidate by name with its page (merges followed): `candidate_name`,
    `candidate_url` (None when the document has no candidate)."""
    people = candidates_api.candidate_people(r["candidate_id"] for r in rows if r.get("candidate_id"))
    for r in rows:
        person = people.get(r.get("candidate_id") or 0)
        r["candidate_name"] = (person["name"] or "Name not found") if person else None
        r["candidate_url"] = reverse("candidate", args=[person["id"]]) if person else None


FILTER_GROUPS = {"attention": "needs attention", "waiting": "in progress"}


def triage_filter(data: Any) -> tuple[intake_api.TriageFilter, list[str]]:
    """The inbox's filter from a query (or the bulk form's copy of it), and what in it is
    not a valid value - said on the page, never silently dropped."""
    errors = []
    state = data.get("state", "attention")  # home shows what needs attention; "" means all
    if state and state not in FILTER_GROUPS and state not in intake_api.State.__members__.values():
        errors.append(f'"{state[:60]}" is not a document state; choose one from the list.')
        state = ""
    channel = data.get("channel", "")
    if channel and channel not in intake_api.Channel.values:
        errors.append(f'"{channel[:60]}" is not a channel; choose one from the list.')
        channel = ""
    dates = {}
    for key, label in (("since", "From"), ("until", "To")):
        raw = data.get(key, "")
        dates[key] = _date(raw)
        if raw and dates[key] is None:
            errors.append(f'{label}: "{raw[:60]}" is not a date (use YYYY-MM-DD).')
    f = intake_api.TriageFilter(
        state=state, channel=channel, since=dates["since"], until=dates["until"], q=data.get("q", "").strip()[:200]
    )
    return f, errors


# Where re-reading cannot help, what can (the reason already says what happened).
NO_REPARSE_HINTS = {
    "decompression_bomb": "Possible attack: do not ask for it again; discard it.",
    "xml_bomb": "Possible attack: do not ask for it again; discard it.",
    "seccomp_violation": "Possible attack: do not ask for it again; discard it.",
}
NO_REPARSE_HINT = "Ask the sender for another copy (a PDF or Word file), then discard this one."


def row_hint(row: dict[str, Any], buttons: list[tuple[str, str]]) -> str:
    """The "what to do" line of a row, unless a button already says it or the reason does."""
    hint = row.get("action") or ""
    if row.get("state") == intake_api.State.PARSE_FAILED and "reparse" not in row.get("actions", []):
        hint = NO_REPARSE_HINTS.get(row.get("reason_code") or "", NO_REPARSE_HINT)
    reason = row.get("reason") or ""
    if any(label == hint for _, label in buttons) or (hint and hint.rstrip(".") in reason):
        return ""
    if hint == NO_REPARSE_HINT and "ask the sender" in reason.casefold():
        # "Password-protected. Ask the sender for an unprotected copy." already says whom to ask.
        return "Discard this one when the new copy arrives."
    return hint


def triage(request: HttpRequest) -> HttpResponse:
    f, errors = triage_filter(request.GET)
    try:
        page_no = max(int(request.GET.get("page", "1")), 1)
    except ValueError:
        page_no = 1
    rows, total = ([], 0) if errors else intake_api.triage_rows(f, limit=PAGE_SIZE, offset=(page_no - 1) * PAGE_SIZE)
    _name_candidates(rows)
    channel_labels = dict(intake_api.Channel.choices)
    for row in rows:
        row["channel_label"] = channel_labels.get(row["channel"], row["channel"])
        # Each action once, as a button; discard needs a reason, so it lives in the bulk
        # form and on the document page.
        row["buttons"] = [(a, intake_api.ACTIONS[a][0]) for a in row["actions"] if a != "discard"]
        row["hint"] = row_hint(row, row["buttons"])
    counts = intake_api.state_counts()
    states: list[dict[str, Any]] = [
        {
            "state": s.value,
            "label": intake_api.INFO[s].label,
            "kind": intake_api.INFO[s].kind.value,
            "count": counts.get(s.value, 0),
        }
        for s in intake_api.State
    ]
    # What the live region shows, as one number: a refresh that finds it unchanged is not
    # swapped in (no flicker, nothing re-announced, nothing moved under the pointer).
    version = hashlib.sha256(
        json.dumps([total, counts, [(r["attachment_id"], r["state"], r["reason"]) for r in rows]]).encode()
    ).hexdigest()[:16]
    attention = sum(c["count"] for c in states if c["kind"] == "terminal_failed")
    waiting = sum(c["count"] for c in states if c["kind"] == "waiting")
    return render(
        request,
        "ats/triage.html",
        {
            "rows": rows,
            "total": total,
            "filter": f,
            "filter_errors": errors,
            "states": states,
            "attention": attention,
            "waiting": waiting,
            "channels": intake_api.Channel.choices,
            "page": page_no,
            "has_next": page_no * PAGE_SIZE < total,
            "query": _without_page(request),
            "lost": intake_api.latest_verification(),
            "requisitions": visible_requisitions(request.user),
            "can_discard": iam_api.can(request.user, "intake.discard"),
            "can_reparse": iam_api.can(request.user, "intake.reparse"),
            "can_assign": iam_api.can(request.user, "requisition.edit"),
            "live_url": request.get_full_path(),
            "live_version": version,
            # A recruiter must know when mail stops arriving (ADR §2): uploads still work.
            "degraded_channels": [
                c
                for c in channels_api.channel_list()
                if c["active"] and c["status"] == channels_api.ChannelStatus.DEGRADED
            ],
        },
        status=400 if errors else 200,
    )


@requires("intake.view")
@require_GET
def document(request: HttpRequest, attachment_id: int) -> HttpResponse:
    att = intake_api.attachment_get(attachment_id)
    if att is None:
        raise Http404("no such document")
    status = intake_api.attachment_status(att)
    actions = [
        (name, intake_api.ACTIONS[name][0])
        for name in intake_api.allowed_actions(att.state, att.reason_code)
        if iam_api.can(request.user, ACTION_RULES[name]) and name != "release"
    ]
    timeline = intake_api.attachment_timeline(att.pk, one_row_per_job=True)
    # Audit actors by name ("Ann Recruiter", "command line"), never "user:2".
    names = iam_api.actor_names(t["actor"] for t in timeline if t.get("actor"))
    for t in timeline:
        if t.get("actor"):
            t["actor"] = names.get(t["actor"], t["actor"])
    person = candidates_api.candidate_people([status["candidate_id"]]) if status.get("candidate_id") else {}
    # "What to do" never names an action the page does not offer (re-parse of a bomb).
    status = {**status, "action": row_hint({**status, "actions": [name for name, _ in actions]}, [])}
    attempts = intake_api.parse_attempts(att.pk)
    shown = viewer.viewer_context(request.user, att)
    # The live region's version (as the inbox's): a refresh that finds the same state,
    # attempts, timeline and pages is not swapped in - nothing flickers or is re-announced.
    live_version = hashlib.sha256(
        json.dumps(
            [
                att.state,
                status.get("reason"),
                [(a.attempt_no, str(a.state)) for a in attempts],
                [(str(t.get("at")), t.get("type"), t.get("what")) for t in timeline],
                shown["state"],
                shown["page_total"],
            ],
            default=str,
        ).encode()
    ).hexdigest()[:16]
    return render(
        request,
        "ats/document.html",
        {
            "att": att,
            "status": status,
            # The person the document became (merges followed), for the page to name and link.
            "candidate": next(iter(person.values()), None),
            "sender": att.sender,
            "attempts": attempts,
            "timeline": timeline,
            "viewer": shown,
            "live_version": live_version,
            "actions": actions,
            "can_see_candidate": iam_api.can(request.user, "candidate.view"),
            **identity_context(request, att),  # issue 28: extraction + attach / create
        },
    )


@requires("intake.view")
@require_POST
def document_action(request: HttpRequest, attachment_id: int, action: str) -> HttpResponse:
    rule = ACTION_RULES.get(action)
    if rule is None:
        raise Http404("no such action")
    if not iam_api.can(request.user, rule):
        return render(request, "ats/403.html", {"action": rule}, status=403)
    try:
        if action == "reparse":
            attempt = intake_api.attachment_reparse(attachment_id=attachment_id, actor=request.user)
            messages.success(request, f"Re-parse requested: attempt {attempt.attempt_no}.")
        elif action == "retry_scan":
            intake_api.attachment_retry_scan(attachment_id=attachment_id, actor=request.user)
            messages.success(request, "The malware scan will run again.")
        elif action == "release":
            intake_api.attachment_release_after_review(
                attachment_id=attachment_id, reason=request.POST.get("reason", ""), actor=request.user
            )
            messages.success(request, "Released after review: the document will be read.")
        elif action == "rescan_raised":
            intake_api.attachment_rescan_raised_limits(attachment_id=attachment_id, actor=request.user)
            messages.success(request, "The file will be scanned again with raised limits.")
        elif action == "retry_candidate":
            intake_api.attachment_retry_candidate(attachment_id=attachment_id, actor=request.user)
            messages.success(request, "Candidate creation will run again.")
        else:
            intake_api.attachment_discard(
                attachment_id=attachment_id, reason=request.POST.get("reason", ""), actor=request.user
            )
            messages.success(request, "Document discarded.")
    except LookupError as exc:
        raise Http404(str(exc)) from exc
    except intake_api.ActionRefused as exc:
        messages.error(request, str(exc))
        return HttpResponseRedirect(reverse("document", args=[attachment_id]), status=303)
    return HttpResponseRedirect(reverse("document", args=[attachment_id]), status=303)


@requires("intake.view")
@require_GET
def thumbnail(request: HttpRequest, attachment_id: int) -> HttpResponse:
    png = intake_api.attachment_thumbnail_png(attachment_id)
    if png is None:
        raise Http404("no thumbnail")
    # Sandbox output: served only as an image, never sniffed, never a document context.
    response = HttpResponse(png, content_type="image/png")
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "default-src 'none'; sandbox"
    response["Content-Disposition"] = f'inline; filename="thumbnail-{attachment_id}.png"'
    response["Cache-Control"] = "private, max-age=300"
    return response


@requires("intake.upload")
@require_GET
def upload_page(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "ats/upload.html",
        {
            "max_bytes": intake_api.max_upload_bytes(),
            "max_mb": intake_api.max_upload_bytes() / (1024 * 1024),
            "max_files": MAX_FILES_PER_UPLOAD,
            # The whole-request cap (issue 21 N4), for the page to state next to the per-file one.
            "max_request_bytes": intake_api.max_upload_request_bytes(),
            "max_request_mb": intake_api.max_upload_request_bytes() / (1024 * 1024),
            # A closed requisition takes no new documents.
            "requisitions": [r for r in visible_requisitions(request.user) if not r["closed_at"]],
        },
    )


# --- candidates: list with search, the candidate page and its actions ------------------
#
# Reads go through candidates_api.candidate_list/candidate_detail (the `ats candidate
# list|show` shapes), writes through its services, which check iam and audit with the
# actor; the views check iam first so a denied role learns nothing and changes nothing.

# The field order of the page (the CLI contract's order), with the recruiter's wording.
FIELD_LABELS: dict[str, str] = {
    "name": "Name",
    "emails": "E-mails",
    "phones": "Phones",
    "links": "Links",
    "location": "Location",
    "skills": "Skills",
    "years_experience": "Years of experience",
    "education": "Education",
    "languages": "Languages",
}
EDIT_HINT = "One value; lists comma-separated (or JSON); empty clears the field."


# Structured entries (extraction's work_history / education_entries): the "Work history"
# section shows them as tables, not as rows of the fields table.
ENTRY_FIELDS = ("work_history", "education_entries")


def _by_value(sources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A field's sources grouped by the value they explain, in first-seen order: a skill read
    in the skills line and in an experience line is one item with two sources, not two."""
    groups: dict[str, dict[str, Any]] = {}
    for src in sources:
        groups.setdefault(src["value_text"], {"value_text": src["value_text"], "sources": []})["sources"].append(src)
    return list(groups.values())


def _history(detail: dict[str, Any], names: dict[int, str], shown: Any) -> dict[str, Any]:
    """The work history section: roles and education entries, each with the lines it was
    read from, and the years of experience with the roles they were added up from."""

    def rows(field: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for value in detail.get(field) or []:
            if not isinstance(value, dict):
                continue
            sources = [
                {**src, "where": _where(src), "filename": names.get(src.get("attachment_id")),
                 "show": viewer.source_box(src, shown)}
                for src in detail["provenance"].get(field, [])
                if src.get("value") == value
            ]  # fmt: skip
            out.append({**value, "sources": _one_box_per_page(sources)})
        return out

    years_sources = detail["provenance"].get("years_experience", [])
    return {
        "roles": rows("work_history"),
        "schools": rows("education_entries"),
        "years": _value_text(detail["years_experience"]) if detail.get("years_experience") is not None else None,
        "years_from": [src["text"] for src in years_sources if src.get("rule") == "years.work_history"],
    }


def _one_box_per_page(sources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An entry's lines on one page of one document as one source, its button lighting up
    the box around them all: a role read from its employer's line, its title's and its dates'
    showed the same link and "Show on page 2" three times over (stop 48). The details keep
    every line's text and rule. Sources with nothing to light up stay one each."""
    out: list[dict[str, Any]] = []
    merged_at: dict[tuple[Any, int], int] = {}
    boxes: dict[int, list[float]] = {}  # out's index -> the union box, from the stored floats
    for src in sources:
        show = src.get("show")
        if not show or not src.get("attachment_id"):
            out.append(src)
            continue
        key = (src["attachment_id"], show["page"])
        box = [float(x) for x in src["bbox"]]  # what source_box checked and formatted
        if key not in merged_at:
            merged_at[key] = len(out)
            boxes[len(out)] = box
            out.append({**src, "show": dict(show)})
            continue
        at = merged_at[key]
        into, union = out[at], boxes[at]
        union[:] = [min(union[0], box[0]), min(union[1], box[1]), max(union[2], box[2]), max(union[3], box[3])]
        into["show"]["bbox"] = ",".join(f"{x:.2f}" for x in union)
        if src.get("text") and src["text"] != into.get("text"):
            into["text"] = f"{into.get('text') or ''} / {src['text']}".strip(" /")
        if src.get("rule") and src["rule"] not in str(into.get("rule", "")).split(", "):
            into["rule"] = f"{into['rule']}, {src['rule']}" if into.get("rule") else src["rule"]
    return out


def _value_text(value: Any) -> str:
    if isinstance(value, dict):
        if "url" in value:
            return f"{value.get('kind', 'link')}: {value['url']}"
        return ", ".join(f"{k}: {v}" for k, v in value.items() if v not in (None, ""))
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _values_text(value: Any) -> list[str]:
    if value is None:
        return []
    return [_value_text(v) for v in (value if isinstance(value, list) else [value])]


def _edit_text(value: Any) -> str:
    """The field as the edit box shows it (what parse_edit reads back unchanged)."""
    if isinstance(value, list):
        if any(isinstance(v, dict) and "url" not in v for v in value):
            return json.dumps(value)  # structured values (education) round-trip as JSON
        return ", ".join(v["url"] if isinstance(v, dict) else _value_text(v) for v in value)
    return "" if value is None else _value_text(value)


def _where(src: dict[str, Any]) -> str:
    """Where in the document a value was read: page + box for PDFs/scans, part + index for DOCX."""
    if src.get("page") is not None:
        bbox = src.get("bbox")
        box = " box " + ", ".join(f"{float(x):.0f}" for x in bbox) if bbox else ""
        return f"page {src['page']}{box}"
    if src.get("part") is not None or src.get("index") is not None:
        return f"{src.get('part') or 'body'} #{src.get('index')}"
    return ""


def _evidence(pair: dict[str, Any]) -> list[str]:
    """A pair's evidence (dedupe's signals) in words: what the two candidates share."""
    out = []
    for e in pair.get("evidence") or []:
        if not isinstance(e, dict):
            continue
        if "a" in e and "b" in e:
            out.append(f"{e.get('signal')}: {e['a']} / {e['b']} (similarity {e.get('score')})")
        else:
            value = e.get("value")
            out.append(f"{e.get('signal')}: {', '.join(map(str, value)) if isinstance(value, list) else value}")
    return out


@requires("candidate.view")
@require_GET
def candidates(request: HttpRequest) -> HttpResponse:
    q = request.GET.get("q", "").strip()[:200]
    include_inactive = request.GET.get("all") == "1"
    rows = candidates_api.candidate_list(
        actor=request.user, search=q or None, include_inactive=include_inactive, limit=1000
    )
    rows.reverse()  # newest first
    for row in rows:
        row["status_label"] = STATUS_LABELS.get(row["status"], row["status"])
    page = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    can_assign = iam_api.can(request.user, "requisition.edit")
    return render(
        request,
        "ats/candidates.html",
        {
            "rows": page.object_list,
            "page": page,
            "q": q,
            "all": include_inactive,
            "query": _without_page(request),
            "can_assign": can_assign,
            "can_reparse": iam_api.can(request.user, "intake.reparse"),
            "requisitions": visible_requisitions(request.user) if can_assign else [],
            "back": request.get_full_path(),
        },
    )


@requires("candidate.view")
@require_GET
def candidate(request: HttpRequest, candidate_id: int) -> HttpResponse:
    detail = candidates_api.candidate_detail(candidate_id, actor=request.user)
    if detail is None:
        raise Http404("no such candidate")
    can_edit = iam_api.can(request.user, "candidate.edit")
    can_merge = iam_api.can(request.user, "candidate.merge")
    active = detail["status"] == candidates_api.CandidateStatus.ACTIVE
    attachments = intake_api.document_summaries(detail["documents"])
    documents = [
        {
            "id": att_id,
            "filename": a.filename if a else f"document {att_id}",
            "state": a.state_label if a else "",
        }
        for att_id in detail["documents"]
        for a in [attachments.get(att_id)]
    ]
    names = {d["id"]: d["filename"] for d in documents}
    shown = viewer.candidate_viewer(request, detail["documents"], attachments)
    fields = _field_rows(detail, names, shown)
    others = {d["other_candidate_id"] for d in detail["duplicates"]} | {
        m[k] for m in detail["merges"] for k in ("survivor", "merged")
    }
    # Names of the other candidates in pairs and merges, in one iam-scoped read: one
    # outside the reader's scope shows as its number, as an unnamed one does.
    listed = sorted(others)[:50]
    found = candidates_api.candidate_names(listed, actor=request.user)
    other_names = {other: found.get(other) or f"Candidate {other}" for other in listed}
    title = detail["name"] or f"Candidate {detail['id']}"
    changes = [
        {
            **pc,
            "value_text": ", ".join(_values_text(pc["value"])),
            "current_text": ", ".join(_values_text(pc["current"])),
        }
        for pc in detail["proposed_changes"]
    ]
    # People, not labels: who edited a field, who merged (iam's user names).
    actor_labels = {m["actor"] for m in detail["merges"]} | {
        src["edited_by"] for f in fields for src in f["sources"] if src.get("edited_by")
    }
    actor_names = iam_api.actor_names(actor_labels)
    for f in fields:
        for src in f["sources"]:
            if src.get("edited_by"):
                src["edited_by_name"] = actor_names.get(src["edited_by"], src["edited_by"])
    merges = [
        {
            **m,
            "actor_name": actor_names.get(m["actor"], m["actor"]),
            "survivor_name": other_names.get(m["survivor"]) or (title if m["survivor"] == detail["id"] else ""),
            "merged_name": other_names.get(m["merged"]) or (title if m["merged"] == detail["id"] else ""),
        }
        for m in detail["merges"]
    ]
    # Merging starts from a person's name, e-mail or phone - never from a number typed in.
    merge_q = request.GET.get("merge_q", "").strip()[:200] if can_merge and active else ""
    merge_results = (
        [
            o
            for o in candidates_api.candidate_attach_search(actor=request.user, query=merge_q, limit=20)
            if o["id"] != detail["id"]
        ]
        if merge_q
        else []
    )
    return render(
        request,
        "ats/candidate.html",
        {
            **candidate_applications(request, detail),
            "merge_q": merge_q,
            "merge_results": merge_results,
            "c": detail,
            "title": title,
            "active": active,
            "fields": fields,
            "documents": documents,
            "duplicates": [
                {**d, "other_name": other_names.get(d["other_candidate_id"], ""), "evidence_text": _evidence(d)}
                for d in detail["duplicates"]
            ],
            "merges": merges,
            "status_label": STATUS_LABELS.get(detail["status"], detail["status"]),
            "merged_into_name": (
                _names([detail["merged_into"]])[detail["merged_into"]] if detail.get("merged_into") else ""
            ),
            "changes": changes,
            "can_see_documents": iam_api.can(request.user, "intake.view"),
            "can_edit": can_edit and active,
            "can_merge": can_merge,
            "can_erase": iam_api.can(request.user, "candidate.erase") and detail["status"] != "erased",
            "edit_hint": EDIT_HINT,
            "viewer": shown,
            "history": _history(detail, names, shown),
        },
    )


def _field_rows(detail: dict[str, Any], names: dict[int, str], shown: Any) -> list[dict[str, Any]]:
    """Every field the candidates module knows, in its order (new fields show up unlabelled),
    each with its sources; the structured entries have their own section (work history)."""
    fields = []
    for name in detail["provenance"]:
        if name in ENTRY_FIELDS:
            continue
        label = FIELD_LABELS.get(name, name.replace("_", " ").capitalize())
        value = detail.get(name)
        sources = [
            {
                **src,
                "value_text": _value_text(src.get("value")),
                "where": _where(src),
                "filename": names.get(src.get("attachment_id")),
                "show": viewer.source_box(src, shown),
            }
            for src in detail["provenance"].get(name, [])
        ]
        fields.append(
            {
                "name": name,
                "label": label,
                "values": _values_text(value),
                "edit_text": _edit_text(value),
                "edited": name in detail["edited_fields"],
                "sources": sources,
                "groups": _by_value(sources),
                # Template sample values (extraction provenance flags them): shown as such.
                "placeholders": {src["value_text"] for src in sources if src.get("placeholder")},
            }
        )
    return fields


# A candidate record's status in a reader's words ("merged" reads on with the survivor's name).
STATUS_LABELS = {
    "active": "Active",
    "merged": "Merged into",
    "erased": "Personal data erased on request",
    "no_identity": "No name or contact details found",
}


def _names(candidate_ids: list[int]) -> dict[int, str]:
    """Messages name people: each record's own name (not its survivor's), else its number."""
    people = candidates_api.candidate_people(candidate_ids)
    return {i: people[i]["own_name"] or f"Candidate {i}" for i in candidate_ids}


def _back(candidate_id: int | None) -> HttpResponseRedirect:
    url = reverse("candidate", args=[candidate_id]) if candidate_id else reverse("candidates")
    return HttpResponseRedirect(url, status=303)


def _back_to(request: HttpRequest) -> int | None:
    """The candidate page a journal/change form was posted from (to return to on refusal)."""
    try:
        return int(request.POST.get("back_to", "")) or None
    except ValueError:
        return None


def _candidate_action(request: HttpRequest, back_to: int | None, run: Any) -> HttpResponse:
    """Run one candidate service for the signed-in user (`run` returns the message and the
    candidate page to show next); refusals become an error message on the page."""
    try:
        text, target = run()
    except candidates_api.NotAllowed:
        return render(request, "ats/403.html", {"action": "candidate"}, status=403)
    except LookupError as exc:
        raise Http404(str(exc)) from exc
    except ValueError as exc:  # CandidateNotActive, already undone, changed since, bad value
        messages.error(request, str(exc))
        return _back(back_to)
    messages.success(request, text)
    return _back(target)


@requires("candidate.edit")
@require_POST
def candidate_edit(request: HttpRequest, candidate_id: int) -> HttpResponse:
    field = request.POST.get("field", "")
    value = request.POST.get("value", "")[:2000]

    def run() -> tuple[str, int]:
        candidates_api.candidate_edit_field(candidate_id=candidate_id, field=field, value=value, actor=request.user)
        return f"{FIELD_LABELS.get(field, field)} saved; it is recruiter-edited from now on.", candidate_id

    return _candidate_action(request, candidate_id, run)


@requires("candidate.merge")
@require_POST
def candidate_merge(request: HttpRequest, candidate_id: int) -> HttpResponse:
    """Merge the posted `merged_id` into this candidate (this one survives)."""
    back_to = _back_to(request) or candidate_id
    try:
        merged_id = int(request.POST.get("merged_id", ""))
    except ValueError:
        messages.error(request, "Give the number of the candidate to merge.")
        return _back(back_to)

    def run() -> tuple[str, int]:
        names = _names([merged_id, candidate_id])  # before: the merge may re-derive the survivor's name
        candidates_api.candidate_merge(
            survivor_id=candidate_id,
            merged_id=merged_id,
            actor=request.user,
            reason=request.POST.get("reason", "")[:1000],
        )
        return f"{names[merged_id]} merged into {names[candidate_id]}.", candidate_id

    return _candidate_action(request, back_to, run)


@requires("candidate.merge")
@require_POST
def candidate_unmerge(request: HttpRequest, merge_id: int) -> HttpResponse:
    def run() -> tuple[str, int]:
        journal = candidates_api.candidate_unmerge(merge_id=merge_id, actor=request.user)
        name = _names([journal.merged_id])[journal.merged_id]
        return f"Merge undone: {name} is a separate candidate again.", journal.survivor_id

    return _candidate_action(request, _back_to(request), run)


def _decide(request: HttpRequest, change_id: int, accept: bool) -> HttpResponse:
    def run() -> tuple[str, int]:
        if accept:
            row = candidates_api.candidate_accept_change(change_id=change_id, actor=request.user)
            return f"Proposed {FIELD_LABELS.get(row.field, row.field)} accepted.", row.candidate_id
        change = candidates_api.candidate_dismiss_change(change_id=change_id, actor=request.user)
        return f"Proposed {FIELD_LABELS.get(change.field, change.field)} dismissed.", change.candidate_id

    return _candidate_action(request, _back_to(request), run)


@requires("candidate.edit")
@require_POST
def change_accept(request: HttpRequest, change_id: int) -> HttpResponse:
    return _decide(request, change_id, accept=True)


@requires("candidate.edit")
@require_POST
def change_dismiss(request: HttpRequest, change_id: int) -> HttpResponse:
    return _decide(request, change_id, accept=False)
