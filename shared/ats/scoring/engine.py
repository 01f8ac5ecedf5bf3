"""The scorer: pure, deterministic, explainable. No Django, no database.

Inputs are exactly two candidate fields - skills and years of experience - with their
provenance (see candidates' SCORING_FIELDS). Protected or proxy attributes (name, photo,
date of birth, age, gender, nationality, address/postcode, marital status, location,
languages) never reach this module, so they cannot influence a score.

The score (0-100) is the sum of integer per-criterion contributions; each criterion's
maximum comes from splitting its category's weight by largest remainder, so the maxima add
up to exactly 100 and the contributions to exactly the score.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

# Bump when any rule below changes what a score is: every fingerprint changes with it, so a
# batch rescore then writes new results (and an unchanged config makes rescoring a no-op).
CONFIG_VERSION = "score-v1"

DEFAULT_WEIGHTS: dict[str, int] = {"must_have": 70, "nice_to_have": 15, "years": 15}
WEIGHT_KEYS = tuple(DEFAULT_WEIGHTS)

# Provenance rules that make a skill clearly present: a skills section, or a recruiter's
# edit. A skill named only in running text ("worked beside the Java team") is unclear.
CLEAR_RULES = frozenset({"skill.section", "recruiter.edit"})

FOUND, UNCLEAR, MISSING = "found", "unclear", "missing"


@dataclasses.dataclass(frozen=True)
class Criteria:
    must_have: tuple[str, ...]
    nice_to_have: tuple[str, ...] = ()
    min_years: float | None = None
    weights: Mapping[str, int] = dataclasses.field(default_factory=lambda: dict(DEFAULT_WEIGHTS))

    def values(self) -> dict[str, Any]:
        """What the fingerprint covers: criteria values, not titles or version numbers."""
        return {
            "must_have": sorted(self.must_have),
            "nice_to_have": sorted(self.nice_to_have),
            "min_years": self.min_years,
            "weights": {k: int(self.weights.get(k, 0)) for k in WEIGHT_KEYS},
        }


@dataclasses.dataclass(frozen=True)
class Result:
    score: int
    explanation: list[dict[str, Any]]
    inputs: dict[str, Any]  # the candidate values actually used
    fingerprint: str
    config_version: str = CONFIG_VERSION


def validate_weights(weights: Mapping[str, int]) -> dict[str, int]:
    unknown = set(weights) - set(WEIGHT_KEYS)
    if unknown:
        raise ValueError(f"unknown weight(s) {', '.join(sorted(unknown))}; use {', '.join(WEIGHT_KEYS)}")
    out = {k: int(weights.get(k, 0)) for k in WEIGHT_KEYS}
    if any(v < 0 for v in out.values()) or sum(out.values()) != 100:
        raise ValueError(f"weights must be non-negative integers adding up to 100, got {out}")
    return out


def split(points: int, n: int) -> list[int]:
    """`points` over `n` criteria in integers (largest remainder, earlier ones first)."""
    if n <= 0:
        return []
    base, extra = divmod(points, n)
    return [base + (1 if i < extra else 0) for i in range(n)]


def _effective_weights(c: Criteria) -> dict[str, int]:
    w = {k: int(c.weights.get(k, 0)) for k in WEIGHT_KEYS}
    # Points of a category with nothing to judge go to the must-haves, so a perfect
    # candidate can always reach 100.
    if not c.nice_to_have:
        w["must_have"] += w["nice_to_have"]
        w["nice_to_have"] = 0
    if not c.min_years:
        w["must_have"] += w["years"]
        w["years"] = 0
    return w


def effective_weights(c: Criteria) -> dict[str, int]:
    """The category weights the score actually uses (what screens must show)."""
    return _effective_weights(c)


def criterion_maxima(c: Criteria) -> list[tuple[str, int]]:
    """Each criterion's maximum points, in explanation order: the same split `score` uses,
    so a screen showing these shows what the explanation adds up."""
    if not c.must_have:
        return []
    w = _effective_weights(c)
    out: list[tuple[str, int]] = []
    for kind, key, names in (("must-have", "must_have", c.must_have), ("nice-to-have", "nice_to_have", c.nice_to_have)):
        out += [(f"{kind}: {n}", m) for n, m in zip(names, split(w[key], len(names)), strict=True)]
    if w["years"]:
        out.append((f"years of experience (minimum {float(c.min_years or 0):g})", w["years"]))
    return out


def _evidence(sources: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    keep = ("text", "rule", "attachment_id", "parse_attempt", "page", "part", "index")
    # The strongest evidence first (a skills section before a mention in prose).
    ordered = sorted(sources, key=lambda s: s.get("rule") not in CLEAR_RULES)
    return [{k: s.get(k) for k in keep} for s in ordered][:5]


def _skill_index(skills: Sequence[Mapping[str, Any]], canonical: Mapping[str, str]) -> dict[str, list[Any]]:
    """Canonical skill name (case-folded) -> its sources.

    Values are the CV's own wording ("k8s"): resolved through today's vocabulary first,
    then through the taxonomy entry the extractor linked them to (`taxonomy_label` in their
    sources), so a requisition's "Kubernetes" finds either spelling."""
    out: dict[str, list[Any]] = {}
    for v in skills:
        raw = " ".join(str(v.get("value", "")).split()).casefold()
        # Every entry the value is linked to: a skills list's "C/C++" or "HTML/CSS" is one
        # value in the CV's wording with a source per side (extraction layout-29), and a
        # requisition's "C++" must find it as its "C" does.
        linked = list(dict.fromkeys(s["taxonomy_label"] for s in v.get("sources") or () if s.get("taxonomy_label")))
        names = [canonical[raw]] if raw in canonical else linked or [raw]
        for name in names:
            out.setdefault(name.casefold(), []).extend(v.get("sources") or [])
    return out


def _status(sources: Sequence[Mapping[str, Any]] | None) -> str:
    if not sources:
        return MISSING
    return FOUND if any(s.get("rule") in CLEAR_RULES for s in sources) else UNCLEAR


def _years_value(years: Sequence[Mapping[str, Any]]) -> tuple[float | None, list[Any]]:
    for v in years:
        try:
            return round(float(v["value"]), 1), list(v.get("sources") or [])
        except (KeyError, TypeError, ValueError):
            continue
    return None, []


def fingerprint(criteria_values: Mapping[str, Any], inputs: Mapping[str, Any], config_version: str) -> str:
    blob = json.dumps(
        {"criteria": criteria_values, "inputs": inputs, "config": config_version},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode()).hexdigest()


def score(
    criteria: Criteria,
    *,
    skills: Sequence[Mapping[str, Any]],
    years_experience: Sequence[Mapping[str, Any]],
    canonical: Mapping[str, str] | None = None,
) -> Result:
    """Score one candidate against one set of criteria.

    `skills` / `years_experience` are the candidate's stored values ({value, sources}).
    `canonical` maps a case-folded spelling to its canonical skill name (recruiter-typed
    skills are normalised through it).
    """
    canonical = canonical or {}
    weights = _effective_weights(criteria)
    index = _skill_index(skills, canonical)
    explanation: list[dict[str, Any]] = []
    used_skills: dict[str, str] = {}

    for kind, names in (("must-have", criteria.must_have), ("nice-to-have", criteria.nice_to_have)):
        points = weights["must_have" if kind == "must-have" else "nice_to_have"]
        for name, max_points in zip(names, split(points, len(names)), strict=True):
            sources = index.get(name.casefold())
            status = _status(sources)
            used_skills[name] = status
            contribution = {FOUND: max_points, UNCLEAR: max_points // 2, MISSING: 0}[status]
            explanation.append(
                {
                    "criterion": f"{kind}: {name}",
                    "status": status,
                    "contribution": contribution,
                    "max": max_points,
                    "evidence": _evidence(sources or []),
                }
            )

    years, year_sources = _years_value(years_experience)
    if weights["years"]:
        min_years = float(criteria.min_years or 0)
        if years is None:
            status, contribution = UNCLEAR, 0
        elif years >= min_years:
            status, contribution = FOUND, weights["years"]
        else:
            status, contribution = MISSING, int(weights["years"] * years / min_years)
        explanation.append(
            {
                "criterion": f"years of experience: {years if years is not None else 'unknown'} against a minimum of "
                f"{min_years:g}",
                "status": status,
                "contribution": contribution,
                "max": weights["years"],
                "evidence": _evidence(year_sources),
            }
        )

    inputs: dict[str, Any] = {"skills": used_skills}
    if weights["years"]:
        inputs["years_experience"] = years
    total = sum(e["contribution"] for e in explanation)
    assert 0 <= total <= 100 and sum(e["max"] for e in explanation) == 100
    return Result(
        score=total,
        explanation=explanation,
        inputs=inputs,
        fingerprint=fingerprint(criteria.values(), inputs, CONFIG_VERSION),
    )
