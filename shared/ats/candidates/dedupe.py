"""Duplicate rules (reads only): which other active candidates look like this one, and why.

- same normalised e-mail or phone  -> same_person, score 1.0, reason names the shared value;
- fuzzy name (rapidfuzz token_sort_ratio >= NAME_THRESHOLD on diacritic-folded names) plus
  at least one other shared signal (link, location, non-free-mail domain, >= 3 skills)
  -> possible_duplicate with a score and the evidence.
Candidates to compare are found through the signal index, never by scanning everyone.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from typing import Any

from django.db.models import Count
from rapidfuzz import fuzz

from ats.candidates import fields as F
from ats.candidates.models import Candidate, CandidateField, CandidateSignal, CandidateStatus, PairKind

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


def _sharers(candidate_id: int, wanted: set[tuple[str, str]], limit: int) -> list[int]:
    """Active candidates sharing any of `wanted`, those sharing the most first."""
    if not wanted:
        return []
    rows = (
        CandidateSignal.objects.filter(
            kind__in={k for k, _ in wanted},
            value__in={v for _, v in wanted},
            candidate__status=CandidateStatus.ACTIVE,
        )
        .exclude(candidate_id=candidate_id)
        .values("candidate_id")
        .annotate(n=Count("id"))
        .order_by("-n", "candidate_id")
        .values_list("candidate_id", flat=True)[:limit]
    )
    return list(rows)


def find_matches(candidate_id: int) -> list[Match]:
    mine = set(CandidateSignal.objects.filter(candidate_id=candidate_id).values_list("kind", "value"))
    if not mine:
        return []
    # Same person: anyone sharing an e-mail or a phone. Possible duplicate: the fuzzy name
    # is required, so the people to compare are those sharing name tokens (most shared
    # first; a common first name must not crowd out the surname's matches).
    strong_ids = _sharers(candidate_id, {s for s in mine if s[0] in _STRONG}, MAX_COMPARED)
    name_ids = _sharers(candidate_id, {s for s in mine if s[0] == "name_token"}, MAX_COMPARED)
    shared: dict[int, set[tuple[str, str]]] = defaultdict(set)
    for other, kind, value in CandidateSignal.objects.filter(
        candidate_id__in={*strong_ids, *name_ids}, kind__in=(*_STRONG, *_WEAK)
    ).values_list("candidate_id", "kind", "value"):
        if (kind, value) in mine:
            shared[other].add((kind, value))
    for other in name_ids:
        shared.setdefault(other, set())
    if not shared:
        return []  # nobody to compare with: no names or skills to read (most candidates)
    matches: list[Match] = []
    names = _names([candidate_id, *shared])
    skills = _skills([candidate_id, *shared])
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


def _names(ids: list[int]) -> dict[int, str]:
    return dict(Candidate.objects.filter(pk__in=ids).values_list("pk", "display_name"))


def _skills(ids: list[int]) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for cid, values in CandidateField.objects.filter(candidate_id__in=ids, field="skills").values_list(
        "candidate_id", "values"
    ):
        out[cid] = {_skill_key(v) for v in values}
    return out


def _skill_key(value: dict[str, Any]) -> str:
    """One skill however each CV spelled it: "k8s" and "Kubernetes" share their taxonomy id;
    a skill the taxonomy does not know compares by its wording."""
    linked = next((s["taxonomy_id"] for s in value.get("sources") or () if s.get("taxonomy_id")), None)
    return linked or F.value_key(value["value"])
