"""The one state vocabulary of an inbound document (an attachment).

Every attachment is in exactly one of these states. A state is either WAITING (some job
must exist to move it on: the lost-document detector checks exactly that) or TERMINAL (a
recruiter can see the outcome: a candidate, or a failure carrying a readable reason and a
way to act on it). `parsed` is not terminal. Later capabilities add states here and only
here; no code sets a state that is not in this table.
"""

from __future__ import annotations

import dataclasses
import enum

from ats.intake.errors import IntakeError


class Kind(enum.Enum):
    WAITING = "waiting"
    TERMINAL_OK = "terminal_ok"
    TERMINAL_FAILED = "terminal_failed"


@dataclasses.dataclass(frozen=True)
class StateInfo:
    kind: Kind
    label: str  # recruiter-facing
    # The tasks of which one must be pending for a WAITING state (the detector's rule).
    waits_for: tuple[str, ...] = ()
    # What a recruiter can do about a terminal failure.
    action: str | None = None


class State(enum.StrEnum):
    RECEIVED = "received"
    SCANNING = "scanning"
    PROMOTED = "promoted"
    PARSED = "parsed"
    CANDIDATE_CREATED = "candidate_created"
    DUPLICATE = "duplicate"
    REJECTED_EMPTY = "rejected_empty"
    REJECTED_TOO_LARGE = "rejected_too_large"
    REJECTED_UNSUPPORTED_TYPE = "rejected_unsupported_type"
    BLOCKED_MALWARE = "blocked_malware"
    SCAN_FAILED = "scan_failed"
    PARSE_FAILED = "parse_failed"
    CANDIDATE_FAILED = "candidate_failed"
    DISCARDED = "discarded"
    # The person behind the document was erased (GDPR art. 17): either this is one of
    # their documents (bytes and text deleted, the row kept without personal data), or a
    # later document matched their tombstone. Terminal; only an admin's re-admit reopens it.
    ERASED_SUBJECT = "erased_subject"
    # Read, but it names no person or gives no way to reach them (a logo, a certificate, a
    # cover letter without contact block): no candidate is made from it. Terminal with
    # actions: attach to an existing candidate, create one by hand, discard (issue 28).
    NO_CANDIDATE_DETAILS = "no_candidate_details"
    # clamd stopped part-way: a part of the file exceeds the scanner's limits
    # (Heuristics.Limits.Exceeded.*). Not malware, not clean: kept in quarantine, never
    # parsed, until an admin releases it after review or re-scans it with raised limits.
    SCAN_INCOMPLETE = "scan_incomplete"


INGEST = "intake.ingest_attachment"
PARSE = "intake.parse_attachment"
APPLY_PARSE = "intake.apply_parse_result"
CANDIDATE = "candidates.create_from_attachment"

INFO: dict[State, StateInfo] = {
    State.RECEIVED: StateInfo(Kind.WAITING, "Received, waiting for checks", (INGEST,)),
    State.SCANNING: StateInfo(Kind.WAITING, "Being checked for malware", (INGEST,)),
    # While parsing, the parse job backs it; once reported, the apply job does.
    State.PROMOTED: StateInfo(Kind.WAITING, "Clean, waiting to be read", (PARSE, APPLY_PARSE)),
    State.PARSED: StateInfo(Kind.WAITING, "Read, creating the candidate", (CANDIDATE,)),
    State.CANDIDATE_CREATED: StateInfo(Kind.TERMINAL_OK, "Candidate created"),
    State.DUPLICATE: StateInfo(
        Kind.TERMINAL_OK, "Same file as an earlier document", action="Open the earlier document"
    ),
    State.REJECTED_EMPTY: StateInfo(Kind.TERMINAL_FAILED, "Empty file", action="Ask the sender to resend"),
    State.REJECTED_TOO_LARGE: StateInfo(
        Kind.TERMINAL_FAILED, "File too large", action="Ask the sender for a smaller file"
    ),
    State.REJECTED_UNSUPPORTED_TYPE: StateInfo(
        Kind.TERMINAL_FAILED, "Unsupported file type", action="Ask the sender for a PDF or Word file"
    ),
    State.BLOCKED_MALWARE: StateInfo(
        Kind.TERMINAL_FAILED, "Blocked: malware detected", action="Do not open; contact security"
    ),
    State.SCAN_FAILED: StateInfo(
        Kind.TERMINAL_FAILED, "Malware scan failed; blocked from reading", action="Retry the scan"
    ),
    State.PARSE_FAILED: StateInfo(Kind.TERMINAL_FAILED, "Could not read the document", action="Re-parse"),
    State.CANDIDATE_FAILED: StateInfo(
        Kind.TERMINAL_FAILED, "Could not create the candidate", action="Retry candidate creation"
    ),
    # A recruiter closed a failure (spam, a resend arrived, malware handled by security):
    # terminal and no longer asking for attention; the reason and actor are in the audit log.
    State.DISCARDED: StateInfo(Kind.TERMINAL_OK, "Discarded by a recruiter"),
    State.ERASED_SUBJECT: StateInfo(
        Kind.TERMINAL_FAILED,
        "Sender's personal data was erased on request",
        action="An admin may re-admit the sender (docs/compliance.md)",
    ),
    State.NO_CANDIDATE_DETAILS: StateInfo(
        Kind.TERMINAL_FAILED,
        "No name or contact details found",
        action="Attach it to an existing candidate, create a candidate by hand, or discard it",
    ),
    State.SCAN_INCOMPLETE: StateInfo(
        Kind.TERMINAL_FAILED,
        "Could not be scanned completely: a part of the file exceeds the scanner's limits",
        action="Not opened. An admin may release it after review or re-scan it with raised limits",
    ),
}

# Terminal states a recruiter may close with `discard` (a reason is required): failures and
# duplicates. A candidate's document is not discarded here - that is the candidate's lifecycle.
DISCARDABLE = frozenset(
    {
        State.DUPLICATE,
        State.REJECTED_EMPTY,
        State.REJECTED_TOO_LARGE,
        State.REJECTED_UNSUPPORTED_TYPE,
        State.BLOCKED_MALWARE,
        State.SCAN_FAILED,
        State.PARSE_FAILED,
        State.CANDIDATE_FAILED,
        State.NO_CANDIDATE_DETAILS,
        State.SCAN_INCOMPLETE,
    }
)

TERMINAL = frozenset(s for s, i in INFO.items() if i.kind is not Kind.WAITING)
WAITING = frozenset(s for s, i in INFO.items() if i.kind is Kind.WAITING)
CHOICES = [(s.value, INFO[s].label) for s in State]

# Allowed transitions. Terminal failures may go back into the chain only through an
# explicit recruiter action (re-parse, retry scan), which is listed here too.
TRANSITIONS: dict[State, frozenset[State]] = {
    State.RECEIVED: frozenset(
        {
            State.SCANNING,
            State.DUPLICATE,
            State.REJECTED_EMPTY,
            State.REJECTED_TOO_LARGE,
            State.REJECTED_UNSUPPORTED_TYPE,
            State.SCAN_FAILED,
        }
    ),
    State.SCANNING: frozenset(
        {
            State.PROMOTED,
            State.BLOCKED_MALWARE,
            State.SCAN_FAILED,
            State.REJECTED_UNSUPPORTED_TYPE,
            State.SCAN_INCOMPLETE,
        }
    ),
    State.PROMOTED: frozenset({State.PARSED, State.PARSE_FAILED}),
    State.PARSED: frozenset({State.CANDIDATE_CREATED, State.CANDIDATE_FAILED, State.NO_CANDIDATE_DETAILS}),
    State.PARSE_FAILED: frozenset({State.PROMOTED, State.DISCARDED}),  # recruiter re-parse
    State.SCAN_FAILED: frozenset({State.RECEIVED, State.DISCARDED}),  # retry scan
    State.CANDIDATE_FAILED: frozenset({State.PARSED, State.DISCARDED}),  # retry candidate creation
    # Re-parse of a good document; `ats candidate review-identity --apply` turns a
    # candidate without identity back into its documents.
    State.CANDIDATE_CREATED: frozenset({State.PROMOTED, State.NO_CANDIDATE_DETAILS}),
    # Attached to a candidate / one created by hand, re-parsed, or discarded.
    State.NO_CANDIDATE_DETAILS: frozenset({State.CANDIDATE_CREATED, State.PROMOTED, State.DISCARDED}),
    # An admin released it after review (-> read), or re-scans it with raised limits.
    State.SCAN_INCOMPLETE: frozenset(
        {
            State.PROMOTED,
            State.RECEIVED,
            State.DISCARDED,
            State.REJECTED_UNSUPPORTED_TYPE,
            State.REJECTED_EMPTY,
            State.REJECTED_TOO_LARGE,
        }
    ),
    State.DUPLICATE: frozenset({State.DISCARDED}),
    State.REJECTED_EMPTY: frozenset({State.DISCARDED}),
    State.REJECTED_TOO_LARGE: frozenset({State.DISCARDED}),
    State.REJECTED_UNSUPPORTED_TYPE: frozenset({State.DISCARDED}),
    State.BLOCKED_MALWARE: frozenset({State.DISCARDED}),
    State.DISCARDED: frozenset(),
    # Re-admit by an admin: the candidate step runs again without the tombstone check.
    State.ERASED_SUBJECT: frozenset({State.PARSED}),
}
# Erasure reaches a subject's documents in whatever state they are in.
for _state in State:
    if _state is not State.ERASED_SUBJECT:
        TRANSITIONS[_state] = TRANSITIONS[_state] | {State.ERASED_SUBJECT}


class IllegalTransition(IntakeError):
    pass


def check_transition(old: State, new: State) -> None:
    if new not in TRANSITIONS[old]:
        raise IllegalTransition(f"{old} -> {new} is not an allowed attachment transition")


def is_terminal(state: str) -> bool:
    return State(state) in TERMINAL
