"""Candidates with chosen skills/years (through the candidates facade) and requisitions."""

from __future__ import annotations

from typing import Any

from django.db import connection, transaction

from ats.candidates import api as candidates_api
from ats.extraction.data import Extraction, FieldValue, Source
from ats.iam import api as iam_api
from ats.scoring import api as scoring_api
from tests.candidates.helpers import attachment_id

ACTOR = iam_api.SystemActor("test:recruiter")


def _fv(value: Any, text: str, rule: str) -> FieldValue:
    return FieldValue(value, (Source(text=text, rule=rule, page=1, bbox=(10.0, 20.0, 200.0, 34.0)),))


def candidate(
    *,
    skills: tuple[str, ...] = (),
    prose_skills: tuple[str, ...] = (),
    years: float | None = None,
    name: str = "Test Person",
    email: str | None = None,
) -> int:
    fields: dict[str, tuple[FieldValue, ...]] = {"name": (_fv(name, name, "name.top_block"),)}
    vals = [_fv(s, f"Skills: {s}", "skill.section") for s in skills]
    vals += [_fv(s, f"worked with {s} daily", "skill.text") for s in prose_skills]
    if vals:
        fields["skills"] = tuple(vals)
    if years is not None:
        fields["years_experience"] = (_fv(years, "2015 - Present", "years.ranges"),)
    if email:
        fields["emails"] = (_fv(email, email, "email.contact"),)
    c = candidates_api.candidate_apply_document(
        attachment_id=attachment_id(), parse_attempt=1, extraction=Extraction(extractor_version="t-1", fields=fields)
    )
    assert c is not None
    return c.id


def requisition(
    must: str = "Python,PostgreSQL", nice: str = "Kubernetes", min_years: float | None = 3, title: str = "Backend"
) -> Any:
    return scoring_api.requisition_create(
        title=title,
        must_have=must.split(","),
        nice_to_have=[s for s in nice.split(",") if s],
        min_years=min_years,
        actor=ACTOR,
    )


def apply(candidate_id: int, requisition_id: int) -> int:
    with transaction.atomic():
        app = scoring_api.application_apply(candidate_id=candidate_id, requisition_id=requisition_id)
    return int(app.id)


def count(table: str, where: str = "TRUE", params: list[Any] | None = None) -> int:
    with connection.cursor() as cur:
        cur.execute(f"SELECT count(*) FROM {table} WHERE {where}", params or [])
        return int(cur.fetchone()[0])


def jobs(task_name: str, key: str, value: int) -> list[str]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT status::text FROM procrastinate_jobs WHERE task_name = %s AND (args->>%s)::bigint = %s ORDER BY id",
            [task_name, key, value],
        )
        return [r[0] for r in cur.fetchall()]
