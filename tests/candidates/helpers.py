"""Build Extraction objects directly: these tests are about storing, versioning and
deduplicating values, not about the extractor's accuracy."""

from __future__ import annotations

import itertools
import time
from typing import Any

from django.db import connection

from ats.extraction.data import Extraction, FieldValue, Source
from ats.iam import api as iam_api

VIEWER = iam_api.SystemActor("test:viewer")

_ids = itertools.count(int(time.time() * 1000) % 10**8 * 100)


def attachment_id() -> int:
    return next(_ids)


def fv(value: Any, text: str | None = None, rule: str = "test.rule", page: int = 1) -> FieldValue:
    return FieldValue(value, (Source(text=text or str(value), rule=rule, page=page, bbox=(10.0, 20.0, 200.0, 34.0)),))


def extraction(
    *,
    name: str | None = None,
    emails: tuple[str, ...] = (),
    phones: tuple[str, ...] = (),
    location: str | None = None,
    skills: tuple[str, ...] = (),
    links: tuple[str, ...] = (),
    years: float | None = None,
    contact_emails: tuple[str, ...] = (),
    version: str = "test-1",
) -> Extraction:
    fields: dict[str, tuple[FieldValue, ...]] = {}
    if name:
        fields["name"] = (fv(name, rule="name.top_block"),)
    if emails:
        fields["emails"] = tuple(fv(e, rule="email.contact") for e in emails)
    if phones:
        fields["phones"] = tuple(fv(p, rule="phone.e164") for p in phones)
    if location:
        fields["location"] = (fv(location, rule="location.header"),)
    if skills:
        fields["skills"] = tuple(fv(s, rule="skills.vocab") for s in skills)
    if links:
        fields["links"] = tuple(fv({"kind": "linkedin", "url": u}, text=u, rule="links.url") for u in links)
    if years is not None:
        fields["years_experience"] = (fv(years, text="2015 - Present", rule="years.ranges"),)
    return Extraction(extractor_version=version, fields=fields, contact_emails=contact_emails)


# Every table a merge may touch, for "unmerge restores every row" comparisons.
CANDIDATE_TABLES = (
    "candidates_candidate",
    "candidates_document",
    "candidates_field",
    "candidates_signal",
    "candidates_proposed_change",
    "candidate_duplicate_pair",
    "candidates_extraction",
)


def dump() -> dict[str, list[Any]]:
    out = {}
    with connection.cursor() as cur:
        for table in CANDIDATE_TABLES:
            cur.execute(f"SELECT to_jsonb(t)::text FROM {table} t ORDER BY id")
            out[table] = [r[0] for r in cur.fetchall()]
    return out


def dedupe_jobs(candidate_id: int) -> list[str]:
    with connection.cursor() as cur:
        cur.execute(
            # A lone dedupe job, or the candidate step's batch of follow-ups (issue 26) that
            # carries a dedupe step for this candidate.
            "SELECT status::text FROM procrastinate_jobs WHERE (task_name = 'candidates.dedupe'"
            " AND (args->>'candidate_id')::bigint = %s) OR (task_name = 'candidates.follow_ups'"
            " AND args->'steps' @> jsonb_build_array(jsonb_build_array('candidates.dedupe',"
            " jsonb_build_object('candidate_id', %s::bigint)))) ORDER BY id",
            [candidate_id, candidate_id],
        )
        return [r[0] for r in cur.fetchall()]
