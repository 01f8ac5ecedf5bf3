"""A new candidate's fields are written by one statement with one JSON parameter
(ats.candidates.services._insert_fields, issue 26): the same rows, in the same order, as the
ORM's bulk_create stored them - values with quotes, backslashes, non-ASCII text and nested
provenance included (the text-array form bulk_create used escaped each of those)."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = [pytest.mark.django_db(transaction=True)]

VALUES: dict[str, Any] = {
    "name": [
        {"value": "Jane O'Neil", "sources": [{"page": 1, "bbox": [72.0, 70.5, 210.25, 90.0], "rule": "name.top"}]}
    ],
    "emails": [{"value": "jane.o'neil@example.org", "sources": [{"text": 'mail: "jane"\\ <x>', "page": 1}]}],
    "skills": [
        {"value": v, "sources": [{"text": t, "part": "body", "index": i}]}
        for i, (v, t) in enumerate([("Python", 'Python, "Go"'), ("Kubernetes", "K8s\\Helm"), ("Ćwiczenia", "日本語 ✓")])
    ],
    "years_experience": [{"value": 7.5, "sources": []}],
    "phones": [],
}


def _rows(candidate_id: int) -> list[tuple[Any, ...]]:
    from ats.candidates.models import CandidateField

    return list(
        CandidateField.objects.filter(candidate_id=candidate_id)
        .order_by("pk")
        .values_list("field", "values", "source", "edited_by", "edited_at")
    )


def test_the_written_out_insert_stores_what_bulk_create_stored() -> None:
    from ats.candidates import services
    from ats.candidates.models import Candidate, CandidateField

    by_orm, written = Candidate.objects.create(), Candidate.objects.create()
    CandidateField.objects.bulk_create(
        [CandidateField(candidate=by_orm, field=name, values=v) for name, v in VALUES.items()]
    )
    services._insert_fields(written.pk, VALUES)
    assert _rows(written.pk) == _rows(by_orm.pk)
    assert [row[0] for row in _rows(written.pk)] == list(VALUES)  # the dict's order
    assert _rows(written.pk)[1][1][0]["sources"][0]["text"] == 'mail: "jane"\\ <x>'
