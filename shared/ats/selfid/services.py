"""Writes of the self-identification module (issue 27 items 3-4, docs/compliance.md)."""

from __future__ import annotations

import datetime
import logging
from typing import Any

from django.core import signing
from django.db import transaction

from ats.audit import api as audit_api
from ats.errors import NotAllowed
from ats.iam import api as iam_api
from ats.selfid import fairness
from ats.selfid.data import StoredFairnessReport
from ats.selfid.models import FairnessReport, RaceEthnicity, SelfIdentification, Sex

logger = logging.getLogger(__name__)

_SALT = "ats.selfid.form"
LINK_MAX_AGE_S = 90 * 24 * 3600  # the acknowledgement's link works for 90 days


def selfid_token(*, candidate_id: int) -> str:
    """The signed token of the optional form's link (sent with the acknowledgement)."""
    return signing.dumps({"c": candidate_id}, salt=_SALT)


def selfid_token_candidate(token: str) -> int | None:
    try:
        data = signing.loads(token, salt=_SALT, max_age=LINK_MAX_AGE_S)
    except signing.BadSignature:
        return None
    return int(data["c"]) if isinstance(data, dict) and "c" in data else None


def selfid_answered(*, candidate_id: int) -> bool:
    """Whether the person has answered: the form says so on a second visit, never what
    (whoever holds the link sees it, and links get forwarded)."""
    return SelfIdentification.objects.filter(candidate_id=candidate_id).exists()


def selfid_record(*, candidate_id: int, sex: str, race_ethnicity: str, source: str, actor: Any) -> None:
    """Store (or replace) a person's answers. `source` is `candidate_form` (the person,
    through their signed link) or `admin_survey` (an admin typing in a paper survey)."""
    if sex not in Sex.values or race_ethnicity not in RaceEthnicity.values:
        raise ValueError("unknown category")
    if source == "admin_survey" and not iam_api.can(actor, "selfid.enter"):
        raise NotAllowed(f"{iam_api.actor_label(actor)} may not enter self-identification (admins only)")
    if source not in ("admin_survey", "candidate_form"):
        raise ValueError("unknown source")
    label = "candidate" if source == "candidate_form" else iam_api.actor_label(actor)
    with transaction.atomic():
        SelfIdentification.objects.update_or_create(
            candidate_id=candidate_id,
            defaults={"sex": sex, "race_ethnicity": race_ethnicity, "source": source, "entered_by": label},
        )
        # The fact of an answer is audited, never the answer.
        audit_api.audit_event_record(
            actor=label,
            action="selfid.recorded",
            object_type="candidate",
            object_id=candidate_id,
            payload={"source": source},
        )


def selfid_personal_rows(*, candidate_ids: list[int]) -> dict[str, list[dict[str, Any]]]:
    """Subject access (GDPR art. 15, ats.retention's export): the person's own answers are
    theirs to receive - the one place an answer leaves this module, and only in the export
    the person is given (admin-only `candidate.export`), never to a screen or a score."""
    rows = SelfIdentification.objects.filter(candidate_id__in=candidate_ids).order_by("pk")
    return {
        "selfid_response": [
            {
                "id": r.pk,
                "candidate_id": r.candidate_id,
                "sex": r.get_sex_display(),
                "race_ethnicity": r.get_race_ethnicity_display(),
                "source": r.source,
                "entered_by": r.entered_by,
                "updated_at": r.updated_at,
            }
            for r in rows
        ]
    }


def selfid_erase(*, candidate_ids: list[int]) -> dict[str, int]:
    """Erasure (ats.retention): the person's answers go with them."""
    n = SelfIdentification.objects.filter(candidate_id__in=candidate_ids).delete()[0]
    return {"selfid_response": n}


def fairness_report_run(
    *, actor: Any, requisition_id: int | None = None, since: datetime.date | None = None, store: bool = True
) -> dict[str, Any]:
    """The report (aggregates only); stored for the admin page and the alert."""
    if not iam_api.can(actor, "fairness.view"):
        raise NotAllowed(f"{iam_api.actor_label(actor)} may not read the fairness report (admins only)")
    report = fairness.fairness_report(requisition_id=requisition_id, since=since)
    if store:
        low = fairness.below_four_fifths(report)
        FairnessReport.objects.create(
            requisition_id=requisition_id, since=since, report=report, below_four_fifths=len(low)
        )
        if low:
            logger.warning("fairness: impact ratio under 0.8 with enough data: %s", low)
    return report


def fairness_status() -> dict[str, Any]:
    """For the metrics collector: the latest whole-population report's flagged groups."""
    last = FairnessReport.objects.filter(requisition_id__isnull=True, since__isnull=True).order_by("-pk").first()
    return {"below_four_fifths": last.below_four_fifths if last else 0, "at": last.created_at if last else None}


def fairness_latest() -> StoredFairnessReport | None:
    """The latest stored report (whole population or one requisition)."""
    last = FairnessReport.objects.order_by("-pk").first()
    if last is None:
        return None
    return StoredFairnessReport(
        id=last.pk,
        created_at=last.created_at,
        requisition_id=last.requisition_id,
        since=last.since,
        report=last.report,
        below_four_fifths=last.below_four_fifths,
    )
