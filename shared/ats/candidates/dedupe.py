"""Duplicate rules (reads only): which other active candidates look like this one, and why.

- same normalised e-mail or phone  -> same_person, score 1.0, reason names the shared value;
- fuzzy name (rapidfuzz token_sort_ratio >= NAME_THRESHOLD on diacritic-folded names) plus
  at least one other shared signal (link, location, non-free-mail domain, >= 3 skills)
  -> possible_duplicate with a score and the evidence.
Candidates to compare are found through the signal index, never by scanning everyone.
"""

from __future__ import annotations

import dataclasses
import json
from collections import defaultdict
from typing import Any

from django.db import connection
from rapidfuzz import fuzz

from ats.candidates import fields as F
from ats.candidates.models import CandidateStatus, PairKind

NAME_THRESHOLD = 85.0
MIN_SHARED_SKILLS = 3
MAX_COMPARED = 500  # a very common name token must not turn one check into a table scan

_STRONG = ("email", "phone")
_WEAK = ("link", "location", "email_domain")
_LABEL = {"email": "e-mail", "phone": "phone", "link": "link", "location": "location", "email_domain": "e-mail domain"}


@dataclasses.dataclass(frozen=True)
class Match:
    other_id: int
    kind: str
    score: float
    reason: str
    evidence: list[dict[str, Any]]


# What a dedupe needs before it compares anyone, in one statement (change set h50perf: was
# five - the candidate, its signals, the two sharer lists, their signals): the candidate's
# status, its signals, and the active candidates sharing its e-mails/phones and its name
# tokens with their signals. The sharer lists keep the ORM's reading (any wanted kind with
# any wanted value, those sharing the most first, ties by id, at most MAX_COMPARED each).
# One statement is also one snapshot: the lists and their signals agree with each other.
# A sharer shares a (kind, value) pair: one index descent per signal of the candidate's
# (candidates_signal's (kind, value) index). It read "any wanted kind and any wanted
# value", which the planner ran as a scan of every e-mail and phone signal - O(candidates)
# per dedupe (issue 26: 2.7 ms with 300 candidates, growing with the pool); the pairs are
# the same sharers, as an e-mail and a phone never share a value.
_SHARERS = """
SELECT s.candidate_id
  FROM candidates_signal s JOIN candidates_candidate c ON c.id = s.candidate_id
 WHERE (s.kind, s.value) IN (SELECT kind, value FROM mine WHERE kind = ANY(%(kinds)s))
   AND c.status = %(active)s AND s.candidate_id <> %(id)s
 GROUP BY s.candidate_id ORDER BY count(s.id) DESC, s.candidate_id LIMIT %(limit)s
"""
_STATE_AND_SHARERS = f"""
WITH mine AS (SELECT kind, value FROM candidates_signal WHERE candidate_id = %(id)s),
strong AS ({_SHARERS.replace("%(kinds)s", "%(strong)s")}),
names AS ({_SHARERS.replace("%(kinds)s", "%(name)s")}),
shared AS (
    SELECT candidate_id, kind, value FROM candidates_signal
     WHERE candidate_id IN (SELECT candidate_id FROM strong UNION SELECT candidate_id FROM names)
       AND kind = ANY(%(compared)s)
)
SELECT (SELECT status FROM candidates_candidate WHERE id = %(id)s),
       (SELECT coalesce(json_agg(json_build_array(kind, value)), '[]') FROM mine),
       (SELECT coalesce(json_agg(candidate_id), '[]') FROM names),
       (SELECT coalesce(json_agg(json_build_array(candidate_id, kind, value)), '[]') FROM shared)
"""


def _json(value: Any) -> Any:
    # Django's cursor hands json back as text.
    return json.loads(value) if isinstance(value, str) else value


def state_and_matches(candidate_id: int) -> tuple[str | None, list[Match]]:
    """The candidate's status (None: gone) and its matches, as find_matches."""
    with connection.cursor() as cur:
        cur.execute(
            _STATE_AND_SHARERS,
            {
                "id": candidate_id,
                "active": CandidateStatus.ACTIVE.value,
                "strong": list(_STRONG),
                "name": ["name_token"],
                "compared": [*_STRONG, *_WEAK],
                "limit": MAX_COMPARED,
            },
        )
        status, mine_rows, name_ids, shared_rows = cur.fetchone()
    mine = {(k, v) for k, v in _json(mine_rows)}
    if not mine:
        return status, []
    # Same person: anyone sharing an e-mail or a phone. Possible duplicate: the fuzzy name
    # is required, so the people to compare are those sharing name tokens (most shared
    # first; a common first name must not crowd out the surname's matches).
    shared: dict[int, set[tuple[str, str]]] = defaultdict(set)
    for other, kind, value in _json(shared_rows):
        if (kind, value) in mine:
            shared[other].add((kind, value))
    for other in _json(name_ids):
        shared.setdefault(other, set())
    return status, _compare(candidate_id, shared)


def find_matches(candidate_id: int) -> list[Match]:
    return state_and_matches(candidate_id)[1]


def _compare(candidate_id: int, shared: dict[int, set[tuple[str, str]]]) -> list[Match]:
    if not shared:
        return []  # nobody to compare with: no names or skills to read (most candidates)
    matches: list[Match] = []
    names, skills = _names_and_skills([candidate_id, *shared])
    for other, common in sorted(shared.items()):
        strong = sorted((k, v) for k, v in common if k in _STRONG)
        if strong:
            reason = "; ".join(f"same {_LABEL[k]} {v}" for k, v in strong)
            matches.append(
                Match(other, PairKind.SAME_PERSON, 1.0, reason, [{"signal": k, "value": v} for k, v in strong])
            )
            continue
        a, b = names.get(candidate_id, ""), names.get(other, "")
        if not a or not b:
            continue
        name_score = fuzz.token_sort_ratio(F.fold(a), F.fold(b))
        if name_score < NAME_THRESHOLD:
            continue
        evidence: list[dict[str, Any]] = [{"signal": "name", "a": a, "b": b, "score": round(name_score, 1)}]
        evidence += [{"signal": k, "value": v} for k, v in sorted(common) if k in _WEAK]
        both = skills.get(candidate_id, set()) & skills.get(other, set())
        if len(both) >= MIN_SHARED_SKILLS:
            evidence.append({"signal": "skills", "value": sorted(both)})
        others = len(evidence) - 1
        if others == 0:
            continue  # a similar name alone is not evidence: namesakes are common
        score = round(min(0.99, 0.6 * name_score / 100 + 0.15 * others), 3)
        reason = f"similar name ({name_score:.0f}) and " + ", ".join(
            f"same {_LABEL.get(e['signal'], e['signal'])}" for e in evidence[1:]
        )
        matches.append(Match(other, PairKind.POSSIBLE_DUPLICATE, score, reason, evidence))
    return matches


def _names_and_skills(ids: list[int]) -> tuple[dict[int, str], dict[int, set[str]]]:
    """Display names and skill keys of `ids`, in one statement (was one each)."""
    names: dict[int, str] = {}
    skills: dict[int, set[str]] = {}
    with connection.cursor() as cur:
        cur.execute(
            "SELECT c.id, c.display_name, f.values FROM candidates_candidate c"
            " LEFT JOIN candidates_field f ON f.candidate_id = c.id AND f.field = 'skills'"
            " WHERE c.id = ANY(%s)",
            [ids],
        )
        for cid, name, values in cur.fetchall():
            names[cid] = name
            if values is not None:
                skills[cid] = {_skill_key(v) for v in _json(values)}
    return names, skills


def _skill_key(value: dict[str, Any]) -> str:
    """One skill however each CV spelled it: "k8s" and "Kubernetes" share their taxonomy id;
    a skill the taxonomy does not know compares by its wording."""
    linked = next((s["taxonomy_id"] for s in value.get("sources") or () if s.get("taxonomy_id")), None)
    return linked or F.value_key(value["value"])
