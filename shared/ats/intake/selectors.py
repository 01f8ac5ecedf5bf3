"""Reads of the intake module, including the lost-document detector."""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Q
from django.utils import timezone

from ats.audit import api as audit_api
from ats.intake.data import Document, DocumentSummary, ParseAttemptSummary, ParsedAttempt, RawIntakeSummary
from ats.intake.models import (
    Attachment,
    Channel,
    ParseAttempt,
    ParseAttemptState,
    ParseResult,
    RawIntake,
    VerificationRun,
)
from ats.intake.states import DISCARDABLE, INFO, TERMINAL, WAITING, Kind, State, is_terminal
from ats.jobs import api as jobs_api


@dataclasses.dataclass(frozen=True)
class ParsedDocument:
    attachment_id: int
    filename: str
    text: str
    # The validated parse answer (text, blocks, paragraphs, tables...) and its attempt number:
    # the extractor's input and the provenance of every value it finds.
    parse_attempt: int = 0
    result: dict[str, Any] = dataclasses.field(default_factory=dict)
    # The channel's region for national phone numbers (the mailbox's, recorded at receipt,
    # or the web upload setting); None: the deployment default decides.
    channel_region: str | None = None
    # Whether it came by e-mail: only mail documents have companions (same message, same
    # sender) to collect, so a caller that knows this reads nothing for the others.
    by_mail: bool = False


def parsed_document_for_update(
    *, attachment_id: int, just_parsed: ParsedAttempt | None = None
) -> ParsedDocument | None:
    """Lock a `parsed` attachment and return its latest successful parse, else None.

    `just_parsed`: that parse, recorded earlier in the caller's transaction (the folded
    apply job, parse_result_apply's answer): used as it is, not read back (issue 26)."""
    held = just_parsed.locked_row if just_parsed is not None else None
    if held is not None and held.pk == attachment_id and held.state == State.PARSED:
        # The row the caller's transaction locked (FOR NO KEY UPDATE, with its intake) and
        # moved to `parsed` when it recorded this parse: the lock is still held, so the row
        # is as it left it (issue 26: one locking read fewer per document).
        att = held
    else:
        # FOR NO KEY UPDATE, as intake.services._locked: the candidate step's rows that point
        # at the document (candidate documents, fields) need not wait on the lock's holder.
        att = (
            Attachment.objects.select_for_update(no_key=True, of=("self",))
            .select_related("raw_intake")
            .filter(pk=attachment_id, state=State.PARSED)
            .first()
        )
    if att is None:
        return None
    _lock_companions(att.raw_intake)
    if just_parsed is not None and just_parsed.attempt_no == att.parse_attempts_requested:
        attempt_no, text, result = just_parsed.attempt_no, just_parsed.text, just_parsed.result
    else:
        attempt = (
            ParseAttempt.objects.filter(attachment=att, state=ParseAttemptState.SUCCEEDED)
            .order_by("-attempt_no")
            .first()
        )
        if attempt is None:
            return None
        attempt_no, text, result = attempt.attempt_no, attempt.text, attempt.result
    return ParsedDocument(
        attachment_id=att.pk,
        filename=att.filename,
        text=text,
        parse_attempt=attempt_no,
        result={**(result or {}), "text": text},
        channel_region=_channel_region(att),
        by_mail=att.raw_intake.channel == Channel.MAIL,
    )


# "ats2"/"ats3": apart from the content locks ("ats1") and the worker fences ("atsf").
_MESSAGE_LOCK_NAMESPACE = 0x61747332
_SENDER_LOCK_NAMESPACE = 0x61747333


def _lock_companions(raw: RawIntake) -> None:
    """A mail document's candidate step holds its message's and its sender's locks until
    commit. Without them two documents of one message decided in parallel can each miss
    the other: the cover letter reads "no CV has a candidate yet" while the CV's
    uncommitted step reads "no letter is waiting yet", and the letter stays
    `no_candidate_details` beside the CV's candidate (seen once in a whole-suite run).
    Serialised, the later step sees the earlier one's commit - whichever comes first.
    Always message before sender: one order, no deadlock; the attachment row lock is
    taken before either and no candidate row is locked yet."""
    if raw.channel != Channel.MAIL:
        return
    sender = str((raw.metadata or {}).get("from") or "").strip().lower()
    with connection.cursor() as cur:
        # One statement, taken left to right; the function is strict, so a NULL sender
        # takes no sender lock. ids past 2**31 wrap: a shared key only serialises two
        # unrelated messages, as a shared sender hash does.
        cur.execute(
            "SELECT pg_advisory_xact_lock(%s, %s), pg_advisory_xact_lock(%s, hashtext(%s))",
            [_MESSAGE_LOCK_NAMESPACE, _int4(raw.pk), _SENDER_LOCK_NAMESPACE, sender if "@" in sender else None],
        )


def _int4(n: int) -> int:
    return (n + 2**31) % 2**32 - 2**31


def _channel_region(att: Attachment) -> str | None:
    raw = att.raw_intake
    region = (raw.metadata or {}).get("phone_region")
    if region:
        return str(region)
    return settings.UPLOAD_PHONE_REGION if raw.channel == Channel.UPLOAD else None


def _original_of(att: Attachment | Document) -> Attachment | None:
    """The document a byte-identical duplicate repeats (the chain ends at a non-duplicate)."""
    original: Attachment | None = None
    next_id = att.duplicate_of_id
    for _ in range(10):
        if next_id is None:
            break
        original = Attachment.objects.get(pk=next_id)
        next_id = original.duplicate_of_id
    return original if original is not None and original.pk != att.pk else None


def attachment_status(att: Attachment | Document) -> dict[str, Any]:
    candidate_id = att.candidate_id
    awaiting_original = False
    if att.state == State.DUPLICATE and (original := _original_of(att)) is not None:
        # A byte-identical duplicate is not read again: it reports its original's candidate,
        # and a caller waiting for it waits for the original to settle.
        candidate_id = original.candidate_id
        awaiting_original = not is_terminal(original.state)
    return {
        "attachment_id": att.pk,
        "raw_intake_id": att.raw_intake_id,
        "filename": att.filename,
        "state": att.state,
        "state_label": INFO[State(att.state)].label,
        "terminal": is_terminal(att.state),
        "reason_code": att.reason_code or None,
        "reason": att.reason or None,
        "action": INFO[State(att.state)].action,
        "detected_type": att.detected_type or None,
        "virus_scan_status": att.virus_scan_status,
        "scan_signature": att.scan_signature or None,
        "candidate_id": candidate_id,
        "duplicate_of": att.duplicate_of_id,
        "awaiting_original": awaiting_original,
    }


def document_requisitions(*, attachment_id: int) -> list[tuple[int, int]]:
    """(attachment_id, requisition_id) for every requisition this document was sent for:
    its own raw intake's, and those of its byte-identical duplicates (routing recorded in
    the raw intake's metadata at receipt)."""
    # Written out (issue 26): the candidate step asks it of every document (stop 48).
    with connection.cursor() as cur:
        cur.execute(
            # (the ORM's own spelling: the statement counters of the tests read it so)
            'SELECT "intake_attachment"."id", "intake_raw_intake"."metadata"->>\'requisition_id\''
            ' FROM "intake_attachment" INNER JOIN "intake_raw_intake"'
            ' ON ("intake_attachment"."raw_intake_id" = "intake_raw_intake"."id")'
            ' WHERE ("intake_attachment"."id" = %s OR "intake_attachment"."duplicate_of_id" = %s)'
            ' ORDER BY "intake_attachment"."id" ASC',
            [attachment_id, attachment_id],
        )
        return [(int(pk), int(req)) for pk, req in cur.fetchall() if req not in (None, "", "0", "false")]


def original_candidate_for_update(*, attachment_id: int) -> tuple[int, int | None] | None:
    """For a byte-identical duplicate: lock its original and return (original id, its
    candidate id or None while it has none). None when the document is not a duplicate."""
    att = Attachment.objects.filter(pk=attachment_id).only("duplicate_of_id").first()
    if att is None or att.duplicate_of_id is None:
        return None
    original = Attachment.objects.select_for_update().only("pk", "candidate_id").get(pk=att.duplicate_of_id)
    return original.pk, original.candidate_id


def raw_intake_attachments(raw_intake_id: int) -> list[Document]:
    """A receipt's documents, oldest first, as frozen data."""
    rows = Attachment.objects.filter(raw_intake_id=raw_intake_id).order_by("pk")
    return [document_of(a) for a in rows.select_related("raw_intake", "raw_intake__received_by")]


def raw_intake_get(raw_intake_id: int) -> RawIntakeSummary | None:
    raw = RawIntake.objects.filter(pk=raw_intake_id).first()
    return None if raw is None else raw_intake_summary(raw)


def raw_intake_summary(raw: RawIntake) -> RawIntakeSummary:
    return RawIntakeSummary(id=raw.pk, channel=raw.channel, received_at=raw.received_at, metadata=raw.metadata)


def document_of(att: Attachment) -> Document:
    """The frozen view of a row whose raw_intake (and its received_by) is loaded."""
    raw = att.raw_intake
    return Document(
        id=att.pk,
        raw_intake_id=att.raw_intake_id,
        filename=att.filename,
        size_bytes=att.size_bytes,
        sha256=att.sha256,
        detected_type=att.detected_type,
        state=att.state,
        reason_code=att.reason_code,
        reason=att.reason,
        virus_scan_status=att.virus_scan_status,
        scan_signature=att.scan_signature,
        scan_engine=att.scan_engine,
        duplicate_of_id=att.duplicate_of_id,
        candidate_id=att.candidate_id,
        channel=raw.channel,
        channel_label=raw.get_channel_display(),
        received_at=raw.received_at,
        sender=_sender(raw),
    )


@dataclasses.dataclass(frozen=True)
class LostDocument:
    attachment_id: int
    filename: str
    state: str
    why: str

    def as_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def lost_documents() -> list[LostDocument]:
    """Every document that is neither terminal nor backed by a live job.

    Safe = terminal state, or a `todo` job of the task its state waits for, or such a job
    `doing` on a worker whose heartbeat is live. Everything else is reported, with why.

    Documents and jobs are read in one snapshot (REPEATABLE READ): read in two, a document
    that moved on between the reads would look lost (its old state's job done, its new
    state not yet seen).
    """
    if connection.in_atomic_block:
        return _lost_documents()  # the caller's transaction decides the snapshot
    with transaction.atomic():
        with connection.cursor() as cur:
            cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        return _lost_documents()


def _lost_documents() -> list[LostDocument]:
    waiting = list(Attachment.objects.filter(state__in=[s.value for s in WAITING]).only("pk", "filename", "state"))
    ids = [a.pk for a in waiting]
    jobs = jobs_api.jobs_by_payload_key("attachment_id", ids)
    # Apply jobs carry the result row's id; map them back to their attachments.
    results = dict(ParseResult.objects.filter(attachment_id__in=ids).values_list("pk", "attachment_id"))
    for result_id, refs in jobs_api.jobs_by_payload_key("parse_result_id", list(results)).items():
        jobs.setdefault(results[result_id], []).extend(refs)
    stalled_after = jobs_api.stalled_after_s()
    lost: list[LostDocument] = []
    for att in waiting:
        expected = INFO[State(att.state)].waits_for
        mine = sorted((j for j in jobs.get(att.pk, []) if j.task_name in expected), key=lambda j: -j.id)
        if any(j.is_backing(stalled_after) for j in mine):
            continue
        if not mine:
            why = f"state {att.state} waits for {' or '.join(expected)} but no such job exists"
        else:
            latest = mine[0]
            if latest.status == "doing":
                age = "never" if latest.heartbeat_age_s is None else f"{latest.heartbeat_age_s:.0f} s ago"
                why = f"job {latest.id} is doing but its worker's last heartbeat was {age}"
            else:
                why = f"job {latest.id} is {latest.status} but the document's state {att.state} was never resolved"
        lost.append(LostDocument(att.pk, att.filename, att.state, why))
    return lost


@dataclasses.dataclass(frozen=True)
class VerificationSummary:
    lost_count: int
    age_s: float


def latest_verification() -> VerificationSummary | None:
    run = VerificationRun.objects.order_by("-ran_at").first()
    if run is None:
        return None
    return VerificationSummary(run.lost_count, (timezone.now() - run.ran_at).total_seconds())


def state_counts() -> dict[str, int]:
    return {r["state"]: r["n"] for r in Attachment.objects.values("state").annotate(n=Count("pk")).order_by("state")}


# --- the recruiter's triage and document pages ----------------------------------------


@dataclasses.dataclass(frozen=True)
class TriageFilter:
    state: str = ""  # a state, or "attention" (terminal failures), "waiting", "terminal"
    channel: str = ""
    since: datetime.date | None = None
    until: datetime.date | None = None
    q: str = ""  # file name or sender


def _sender(raw: RawIntake) -> str:
    meta = raw.metadata or {}
    if raw.channel == "mail":
        name, addr = meta.get("from_name") or "", meta.get("from") or ""
        return f"{name} <{addr}>" if name and addr else (addr or name or "unknown sender")
    user = raw.received_by
    if user is not None:  # a person's name on screens, the user name when none is set
        return user.get_full_name().strip() or user.get_username()
    if raw.source_ref.startswith("cli:"):
        # "cli:<uid>:<path>" is for the audit trail; a recruiter reads who brought it in.
        return "Imported from the command line"
    return raw.source_ref or raw.channel


def triage_rows(f: TriageFilter, *, limit: int = 200, offset: int = 0) -> tuple[list[dict[str, Any]], int]:
    """Every inbound document matching the filter, newest first, with what a recruiter
    needs to act: channel, sender or uploader, received time, state, reason, action."""
    qs = Attachment.objects.select_related("raw_intake", "raw_intake__received_by")
    if f.state == "attention":
        qs = qs.filter(state__in=[s.value for s in TERMINAL if INFO[s].kind is Kind.TERMINAL_FAILED])
    elif f.state == "waiting":
        qs = qs.filter(state__in=[s.value for s in WAITING])
    elif f.state:
        qs = qs.filter(state=f.state)
    if f.channel:
        qs = qs.filter(raw_intake__channel=f.channel)
    if f.since:
        qs = qs.filter(raw_intake__received_at__date__gte=f.since)
    if f.until:
        qs = qs.filter(raw_intake__received_at__date__lte=f.until)
    if f.q:
        qs = qs.filter(
            Q(filename__icontains=f.q)
            | Q(raw_intake__metadata__from__icontains=f.q)
            | Q(raw_intake__metadata__from_name__icontains=f.q)
            | Q(raw_intake__received_by__username__icontains=f.q)
        )
    total = qs.count()
    rows = []
    for att in qs.order_by("-raw_intake__received_at", "-pk")[offset : offset + limit]:
        info = INFO[State(att.state)]
        rows.append(
            {
                **attachment_status(att),
                "channel": att.raw_intake.channel,
                "sender": _sender(att.raw_intake),
                "received_at": att.raw_intake.received_at,
                "state_changed_at": att.state_changed_at,
                "kind": info.kind.value,
                "actions": allowed_actions(att.state, att.reason_code),
            }
        )
    return rows, total


# action name -> (label, states it applies to). The web and the CLI offer the same set.
ACTIONS: dict[str, tuple[str, frozenset[State]]] = {
    "reparse": ("Re-parse", frozenset({State.PARSE_FAILED, State.CANDIDATE_CREATED, State.NO_CANDIDATE_DETAILS})),
    "retry_scan": ("Retry the scan", frozenset({State.SCAN_FAILED})),
    "retry_candidate": ("Retry candidate creation", frozenset({State.CANDIDATE_FAILED})),
    "discard": ("Discard", DISCARDABLE),
    # scan_incomplete: admins only (iam "intake.release"); the release form asks a reason.
    "release": ("Release after review", frozenset({State.SCAN_INCOMPLETE})),
    "rescan_raised": ("Re-scan with raised limits", frozenset({State.SCAN_INCOMPLETE})),
}


# Parse failures a re-parse cannot fix: the same bytes meet the same parser and the same
# limits again (a password, a bomb, 10,001 pages). Transient ones (a timeout under load, a
# lost worker, the sandbox being unavailable, a crash a newer parser may not have) keep it.
REPARSE_CANNOT_HELP = frozenset(
    {
        "encrypted",
        "corrupt",
        "unsupported",
        "too_many_pages",
        "too_large",
        "pixel_limit",
        "decompression_bomb",
        "xml_bomb",
        "empty_document",
        "seccomp_violation",
        "output_too_large",
        "timeout_cpu",
    }
)


def allowed_actions(state: str, reason_code: str = "") -> list[str]:
    """The actions that can change this document's outcome (re-parse only where it may)."""
    names = [name for name, (_, states) in ACTIONS.items() if State(state) in states]
    if State(state) is State.PARSE_FAILED and reason_code in REPARSE_CANNOT_HELP:
        names.remove("reparse")
    return names


def attachment_get(attachment_id: int) -> Document | None:
    att = Attachment.objects.select_related("raw_intake", "raw_intake__received_by").filter(pk=attachment_id).first()
    return None if att is None else document_of(att)


def document_summaries(attachment_ids: list[int]) -> dict[int, DocumentSummary]:
    """Id -> summary of each of these documents that exists. No access check: callers pass
    ids they may list (a candidate's documents, a bulk selection)."""
    rows = Attachment.objects.filter(pk__in=attachment_ids).only(
        "pk", "filename", "state", "virus_scan_status", "candidate_id"
    )
    return {
        a.pk: DocumentSummary(
            id=a.pk,
            filename=a.filename,
            state=a.state,
            state_label=a.get_state_display(),
            virus_scan_status=a.virus_scan_status,
            candidate_id=a.candidate_id,
        )
        for a in rows
    }


def submitter_addresses(attachment_ids: list[int]) -> dict[int, str]:
    """Who handed each document in, as an e-mail address (lower-cased), where known: the
    mail's From address, or the uploading account's e-mail. Independent of the document's
    content - the second signal an automatic candidate merge needs (docs/candidates.md).
    Documents with neither (CLI, an account without e-mail) are absent."""
    out: dict[int, str] = {}
    rows = Attachment.objects.filter(pk__in=attachment_ids).select_related("raw_intake", "raw_intake__received_by")
    for att in rows:
        raw = att.raw_intake
        if raw.channel == "mail":
            addr = str((raw.metadata or {}).get("from") or "")
        else:
            addr = str(getattr(raw.received_by, "email", "") or "") if raw.received_by is not None else ""
        if "@" in addr:
            out[att.pk] = addr.strip().lower()
    return out


def parse_attempts(attachment_id: int) -> list[ParseAttemptSummary]:
    # Only the summary's columns: the text and the result can be megabytes each.
    fields = ("id", "attachment_id", "attempt_no", "state", "error_code", "reason", "page_count",
              "policy_hash", "requested_at", "finished_at")  # fmt: skip
    rows = ParseAttempt.objects.filter(attachment_id=attachment_id).only(*fields).order_by("attempt_no")
    return [parse_attempt_summary(a) for a in rows]


def parse_attempt_summary(a: ParseAttempt) -> ParseAttemptSummary:
    return ParseAttemptSummary(
        id=a.pk,
        attachment_id=a.attachment_id,
        attempt_no=a.attempt_no,
        state=a.state,
        error_code=a.error_code,
        reason=a.reason,
        page_count=a.page_count,
        policy_hash=a.policy_hash,
        requested_at=a.requested_at,
        finished_at=a.finished_at,
    )


def attachment_thumbnail_png(attachment_id: int) -> bytes | None:
    """The first-page thumbnail: the trusted side's downscale of page 1's raw pixels
    (ats.intake.pages). The report's `thumbnail_png_b64` is never served: whoever holds
    the parse role writes the report, so its bytes are the child's, not ours."""
    from ats.intake import pages

    return pages.thumbnail_png(attachment_id)


# The timeline in a recruiter's words: audit actions and the chain's job events are internal
# names ("intake.parse_attachment deferred_for_retry"); the page says what happened. Operators
# still get the task name beside it (ops_document.html) and the job link.
STEP_WORDS = {
    "intake.scanned": "Scanned for malware: clean",
    "intake.blocked_malware": "Blocked: malware found",
    "intake.scan_incomplete": "Could not be scanned completely",
    "intake.rescan_raised_limits": "Re-scan with raised limits requested",
    "intake.released_after_review": "Released after review",
    "intake.retry_scan": "Scan retry requested",
    "intake.parsed": "Read",
    "intake.parse_report_rejected": "The parser's report was refused by the trusted check",
    "intake.page_images_refused": "Page images refused by the trusted check",
    "intake.reparse_requested": "Reading again requested",
    "intake.retry_candidate": "Candidate creation retried",
    "intake.attached_to_candidate": "Attached to a candidate",
    "intake.turned_back_no_identity": "Turned back: no name or contact details",
    "intake.discarded": "Discarded",
    "intake.readmitted": "Re-admitted",
    "intake.rejected_at_source": "Refused on arrival",
    "intake.original_downloaded": "Original downloaded",
    "intake.erased_subject": "Erased with the person's data",
}
TASK_WORDS = {
    "intake.ingest_attachment": "Malware scan",
    "intake.parse_attachment": "Reading in the sandbox",
    "intake.apply_parse_result": "Checking the parser's report",
    "intake.store_page_images": "Storing the page images",
    "candidates.create_from_attachment": "Creating the candidate",
    "candidates.dedupe": "Looking for duplicates",
    "candidates.follow_ups": "Looking for duplicates and search indexing",
    "scoring.score_application": "Scoring",
    "scoring.rescore_application": "Re-scoring",
    "scoring.route_duplicate": "Routing to the existing application",
    "search.index": "Search indexing",
}
EVENT_WORDS = {
    "deferred": "queued",
    "scheduled": "scheduled",
    "started": "started",
    "succeeded": "done",
    "failed": "failed",
    "deferred_for_retry": "failed, will retry",
    "retried": "retried",
    "cancelled": "cancelled",
    "abort_requested": "stop requested",
    "aborted": "stopped",
}


def job_event_words(task_name: str, event_type: str) -> str:
    """Words like "Malware scan: done"; an unknown task or event keeps its own name (never hidden)."""
    return f"{TASK_WORDS.get(task_name, task_name)}: {EVENT_WORDS.get(event_type, event_type)}"


def attachment_timeline(attachment_id: int, *, one_row_per_job: bool = False) -> list[dict[str, Any]]:
    """Domain steps (audit log, parse attempts, the current state) and every job event of
    every job for the document (ingest, parse, apply, candidate), oldest first.

    ``one_row_per_job``: the recruiter's page keeps only each job run's latest event
    ("Malware scan: done", not queued/started/done): three rows per job buried the steps
    that matter. A retried job keeps one row per run, so "failed, will retry" stays
    visible. Operators and the API get every event."""
    att = Attachment.objects.filter(pk=attachment_id).select_related("raw_intake").first()
    if att is None:
        return []
    items: list[dict[str, Any]] = [
        {"at": att.raw_intake.received_at, "source": "step", "what": f"Received via {att.raw_intake.channel}"}
    ]
    for ev in audit_api.events_for(object_type="attachment", object_id=attachment_id):
        if ev["action"] == "intake.received":
            continue
        items.append(
            {
                "at": ev["occurred_at"],
                "source": "audit",
                "what": STEP_WORDS.get(ev["action"], ev["action"]),
                "action": ev["action"],
                "actor": ev["actor"],
            }
        )
    for attempt in parse_attempts(attachment_id):
        items.append(
            {"at": attempt.requested_at, "source": "step", "what": f"Parse attempt {attempt.attempt_no} requested"}
        )
        if attempt.finished_at:
            outcome = "succeeded" if attempt.state == ParseAttemptState.SUCCEEDED else f"failed ({attempt.error_code})"
            items.append(
                {
                    "at": attempt.finished_at,
                    "source": "step",
                    "what": f"Parse attempt {attempt.attempt_no} {outcome}",
                    "policy_hash": attempt.policy_hash,
                }
            )
    for ev in jobs_api.job_events_for("attachment_id", [attachment_id]):
        items.append({**ev, "source": "job", "what": job_event_words(ev["task_name"], ev["type"])})
    items.append({"at": att.state_changed_at, "source": "step", "what": f"State: {INFO[State(att.state)].label}"})
    items.sort(key=lambda i: i["at"])
    return _latest_event_per_run(items) if one_row_per_job else items


def _latest_event_per_run(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    last = {(t["job_id"], t["attempt"]): i for i, t in enumerate(items) if t["source"] == "job"}
    return [t for i, t in enumerate(items) if t["source"] != "job" or last[(t["job_id"], t["attempt"])] == i]


# --- evidence chain (issue 11): the values intake's audit events commit to -------------


def source_identifier(raw: RawIntake) -> str:
    """Where a document came from: the channel, the upload id (raw intake id) and the
    channel's own reference (mail: the message's dedupe key; CLI: the path)."""
    return f"{raw.channel}:raw_intake:{raw.pk}:{raw.source_ref}"


def source_sha256(raw: RawIntake) -> str:
    # Hashed in the audit payload: a message id can carry a mail address (`<id@host>`).
    return hashlib.sha256(source_identifier(raw).encode()).hexdigest()


def parse_output_sha256(*, text: str, page_count: int | None, result: dict[str, Any] | None) -> str:
    """Hash of a parse attempt's stored output (canonical JSON of text, pages, answer)."""
    canonical = json.dumps(
        {"text": text, "page_count": page_count, "result": result or {}},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclasses.dataclass(frozen=True)
class EvidenceRows:
    """The rows `ats evidence show` re-reads for one attachment."""

    attachment: Attachment
    raw: RawIntake
    parse_attempt: ParseAttempt | None  # the latest successful one


def evidence_rows(attachment_id: int) -> EvidenceRows | None:
    att = Attachment.objects.select_related("raw_intake").filter(pk=attachment_id).first()
    if att is None:
        return None
    attempt = (
        ParseAttempt.objects.filter(attachment=att, state=ParseAttemptState.SUCCEEDED).order_by("-attempt_no").first()
    )
    return EvidenceRows(attachment=att, raw=att.raw_intake, parse_attempt=attempt)


def blob_references() -> dict[tuple[str, str], int]:
    """(container, key) -> attachment id of every attachment row that points at bytes."""
    rows = Attachment.objects.exclude(storage_key="").values_list("storage_container", "storage_key", "pk")
    return {(c, k): pk for c, k, pk in rows}


def blob_referenced(container: str, key: str) -> bool:
    return Attachment.objects.filter(storage_container=container, storage_key=key).exists()


# --- search (issue 11): document texts for the full-text index -------------------------


@dataclasses.dataclass(frozen=True)
class DocumentText:
    attachment_id: int
    candidate_id: int | None
    text: str
    parsed_at: Any  # datetime of the parse attempt the text comes from


def document_texts(attachment_ids: list[int]) -> dict[int, DocumentText]:
    """Latest successful parse text of each attachment (absent ids: no parsed text)."""
    out: dict[int, DocumentText] = {}
    attempts = (
        ParseAttempt.objects.filter(attachment_id__in=attachment_ids, state=ParseAttemptState.SUCCEEDED)
        .select_related("attachment")
        .order_by("attachment_id", "attempt_no")
    )
    for a in attempts:  # ascending: the latest attempt wins
        out[a.attachment_id] = DocumentText(a.attachment_id, a.attachment.candidate_id, a.text, a.finished_at)
    return out


def documents_parsed_since(since: Any, *, limit: int = 10_000) -> list[int]:
    """Attachments whose successful parse finished after `since` (None: all of them)."""
    qs = ParseAttempt.objects.filter(state=ParseAttemptState.SUCCEEDED)
    if since is not None:
        qs = qs.filter(finished_at__gt=since)
    return list(dict.fromkeys(qs.order_by("finished_at").values_list("attachment_id", flat=True)[:limit]))


@dataclasses.dataclass(frozen=True)
class Companion:
    attachment_id: int
    filename: str
    state: str
    candidate_id: int | None


def message_companions(attachment_id: int) -> list[Companion]:
    """The other documents of the same e-mail message (its raw intake), in arrival order.
    Only mail: an upload batch is a recruiter's choice of files, often of several people,
    not one sender's message - its documents are never joined automatically."""
    row = Attachment.objects.filter(pk=attachment_id).values_list("raw_intake_id", "raw_intake__channel").first()
    if row is None or row[1] != "mail":
        return []
    return _same_message(attachment_id, row[0])


def _same_message(attachment_id: int, raw_id: int) -> list[Companion]:
    rows = Attachment.objects.filter(raw_intake_id=raw_id).exclude(pk=attachment_id).order_by("pk")
    return [Companion(a.pk, a.filename, a.state, a.candidate_id) for a in rows]


def mail_companions(attachment_id: int) -> tuple[list[Companion], str, list[Companion]]:
    """message_companions and sender_companions in one: (same message, sender, same sender).
    The document and its intake are read once, and for an upload that read is all."""
    att = Attachment.objects.select_related("raw_intake").filter(pk=attachment_id).first()
    if att is None or att.raw_intake.channel != "mail":
        return [], "", []
    sender, by_sender = _same_sender(att)
    return _same_message(attachment_id, att.raw_intake_id), sender, by_sender


# Issue 28: a document without an identity mailed by the same sender within this window
# of a CV (either order) joins that CV's person. 24 h covers "CV now, certificates in a
# second mail after lunch" without reaching last week's application of someone else
# mailing from a shared address. Measured on the messages' own received times (Graph's
# receivedDateTime), falling back to when the ATS received them (docs/candidates.md).
SAME_SENDER_WINDOW = datetime.timedelta(hours=24)
# A sender with more messages than this in the window is a list or an agency, not one
# applicant: nothing is joined (and the read stays small).
_SAME_SENDER_MAX_DOCUMENTS = 50


def _message_time(raw: RawIntake) -> datetime.datetime:
    value = (raw.metadata or {}).get("received_at")
    if isinstance(value, str):
        try:
            parsed = datetime.datetime.fromisoformat(value)
        except ValueError:
            parsed = None
        if parsed is not None and parsed.tzinfo is not None:
            return parsed
    return raw.received_at


def sender_companions(attachment_id: int) -> tuple[str, list[Companion]]:
    """The documents of the same sender's OTHER e-mail messages received within
    SAME_SENDER_WINDOW of this document's message, in arrival order, with the sender's
    address (lower-cased). Only mail, for the reason message_companions gives; ("", [])
    without a sender address or when the sender sent more than a person would."""
    att = Attachment.objects.select_related("raw_intake").filter(pk=attachment_id).first()
    if att is None or att.raw_intake.channel != "mail":
        return "", []
    return _same_sender(att)


def _same_sender(att: Attachment) -> tuple[str, list[Companion]]:
    sender = str((att.raw_intake.metadata or {}).get("from") or "").strip().lower()
    if "@" not in sender:
        return "", []
    when = _message_time(att.raw_intake)
    # The intake time bounds the read; the message time (which may be earlier, for a
    # backlog) decides. Two days of slack either side cover a mailbox polled late.
    slack = SAME_SENDER_WINDOW + datetime.timedelta(days=2)
    rows = list(
        Attachment.objects.select_related("raw_intake")
        .filter(
            raw_intake__channel="mail",
            raw_intake__metadata__from__iexact=sender,
            raw_intake__received_at__gte=att.raw_intake.received_at - slack,
            raw_intake__received_at__lte=att.raw_intake.received_at + slack,
        )
        .exclude(raw_intake_id=att.raw_intake_id)
        .order_by("pk")[: _SAME_SENDER_MAX_DOCUMENTS + 1]
    )
    if len(rows) > _SAME_SENDER_MAX_DOCUMENTS:
        return sender, []
    return sender, [
        Companion(a.pk, a.filename, a.state, a.candidate_id)
        for a in rows
        if abs(_message_time(a.raw_intake) - when) <= SAME_SENDER_WINDOW
    ]
