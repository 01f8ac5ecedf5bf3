"""The fairness report: selection rates and impact ratios per group and decision stage
(NYC Local Law 144's bias audit; the EEOC four-fifths rule), with Fisher's exact test for
small groups (docs/compliance.md, "Fairness evidence").

Only aggregates leave this module. A group of fewer than SUPPRESS_UNDER people is not
shown (it would point at individuals, and its rate means little).

Stages. A decision stage is a point where people are selected or not:

    screening  - advanced from new to screening (or further)
    interview  - advanced from screening to interview (or further)
    offer      - advanced from interview to an offer (or further)
    hire       - hired after an offer

At a stage, `n` counts the applications that reached the stage before it and were then
decided (advanced to this stage or further, or rejected there); `selected` those that
advanced. `selection_rate` = selected / n; `impact_ratio` = the rate / the highest rate
among the shown groups of the same category (sex; race/ethnicity; their intersection);
`four_fifths` is true when the ratio is at least 0.8 (the rule is met), false when below.
"Prefer not to say" and people who did not answer are shown as their own groups, never
taken as the reference and never flagged. `fisher_p` is the two-sided p-value of
Fisher's exact test of the group's selections against everyone else's at that stage.
"""

from __future__ import annotations

import datetime
import math
import statistics
from collections.abc import Iterable
from typing import Any

from ats.scoring import api as scoring_api
from ats.selfid.models import UNDISCLOSED, RaceEthnicity, SelfIdentification, Sex

SUPPRESS_UNDER = 5
FOUR_FIFTHS = 0.8
ORDER = ("new", "screening", "interview", "offer", "hired")
# (the stage's name in the report, the stage before it, the stage reached when selected)
STAGES = (
    ("screening", "new", "screening"),
    ("interview", "screening", "interview"),
    ("offer", "interview", "offer"),
    ("hire", "offer", "hired"),
)
NOT_ANSWERED = "not_answered"
_NOT_COMPARED = {UNDISCLOSED, NOT_ANSWERED}


# ------------------------------------------------------------------------------ statistics


def fisher_exact_p(a: int, b: int, c: int, d: int) -> float:
    """Two-sided Fisher exact test of the 2x2 table [[a, b], [c, d]]: the sum of the
    hypergeometric probabilities of every table with the same margins that is no more
    likely than the observed one (scipy.stats.fisher_exact's definition)."""
    row1, col1, n = a + b, a + c, a + b + c + d
    if n == 0:
        return 1.0
    total = math.comb(n, row1)

    def prob(x: int) -> float:
        return math.comb(col1, x) * math.comb(n - col1, row1 - x) / total

    observed = prob(a)
    lo, hi = max(0, row1 - (n - col1)), min(row1, col1)
    p = sum(q for q in (prob(x) for x in range(lo, hi + 1)) if q <= observed * (1 + 1e-7))
    return min(1.0, p)


# ------------------------------------------------------------------------------ the report


def _reached(o: scoring_api.Outcome) -> tuple[int, str | None]:
    """(furthest stage index reached, the stage a rejection was made at or None)."""
    seen = [o.stage] + [s for pair in o.decisions for s in pair]
    furthest = max((ORDER.index(s) for s in seen if s in ORDER), default=0)
    rejected_at = None
    for frm, to in o.decisions:
        if to == "rejected":
            rejected_at = frm
    if o.stage != "rejected":
        rejected_at = None  # re-opened since
    return furthest, rejected_at


def _groups_of(answer: SelfIdentification | None) -> list[str]:
    sex = answer.sex if answer else NOT_ANSWERED
    race = answer.race_ethnicity if answer else NOT_ANSWERED
    return [f"sex={sex}", f"race={race}", f"sex={sex},race={race}"]


_CATEGORY_WORDS = {"sex": ("Sex", dict(Sex.choices)), "race": ("Race / ethnicity", dict(RaceEthnicity.choices))}


def group_label(group: str) -> str:
    """A report's group key in words for a screen: `sex=female,race=asian` reads
    "Sex: Female · Race / ethnicity: Asian" (the JSON keeps the keys: a contract)."""
    words = []
    for part in group.split(","):
        category, _, value = part.partition("=")
        title, names = _CATEGORY_WORDS.get(category, (category, {}))
        words.append(f"{title}: {names.get(value, 'Not answered' if value == NOT_ANSWERED else value)}")
    return " · ".join(words)


def _category(group: str) -> str:
    return ",".join(part.split("=")[0] for part in group.split(","))


def _comparable(group: str) -> bool:
    return not any(part.split("=")[1] in _NOT_COMPARED for part in group.split(","))


def fairness_report(*, requisition_id: int | None = None, since: datetime.date | None = None) -> dict[str, Any]:
    outcomes = scoring_api.application_outcomes(requisition_id=requisition_id, since=since)
    answers = {
        a.candidate_id: a
        for a in SelfIdentification.objects.filter(candidate_id__in={o.candidate_id for o in outcomes})
    }
    stages = []
    for name, before, target in STAGES:
        b, t = ORDER.index(before), ORDER.index(target)
        counts: dict[str, list[int]] = {}  # group -> [n, selected]
        total = [0, 0]
        for o in outcomes:
            furthest, rejected_at = _reached(o)
            selected = furthest >= t
            if not (selected or (furthest == b and rejected_at == before)):
                continue  # not decided at this stage (yet)
            total[0] += 1
            total[1] += int(selected)
            for g in _groups_of(answers.get(o.candidate_id)):
                c = counts.setdefault(g, [0, 0])
                c[0] += 1
                c[1] += int(selected)
        stages.append(_stage(name, counts, total, bool(answers)))
    return {
        "stages": stages,
        "suppressed_under": SUPPRESS_UNDER,
        "scores": score_distributions(outcomes, answers),
    }


def _stage(name: str, counts: dict[str, list[int]], total: list[int], any_answers: bool) -> dict[str, Any]:
    shown = {g: c for g, c in counts.items() if c[0] >= SUPPRESS_UNDER}
    best: dict[str, float] = {}
    for g, (n, sel) in shown.items():
        if _comparable(g):
            best[_category(g)] = max(best.get(_category(g), 0.0), sel / n)
    groups = []
    for g in sorted(shown):
        n, sel = shown[g]
        rate = sel / n
        ref = best.get(_category(g))
        ratio = round(rate / ref, 4) if _comparable(g) and ref else None
        groups.append(
            {
                "group": g,
                "n": n,
                "selected": sel,
                "selection_rate": round(rate, 4),
                "impact_ratio": ratio,
                "four_fifths": None if ratio is None else ratio >= FOUR_FIFTHS,
                "fisher_p": round(fisher_exact_p(sel, n - sel, total[1] - sel, (total[0] - total[1]) - (n - sel)), 6),
            }
        )
    if total[0] == 0:
        explanation = f"No decisions at the {name} stage yet: nothing to measure."
    elif not any_answers:
        explanation = "No self-identification answers yet: groups cannot be formed."
    elif not groups:
        explanation = f"Every group has fewer than {SUPPRESS_UNDER} people: none is shown."
    else:
        hidden = len(counts) - len(shown)
        explanation = (
            f"{hidden} group(s) with fewer than {SUPPRESS_UNDER} people not shown (suppressed under"
            f" {SUPPRESS_UNDER}: too few to compare, and small enough to point at people)."
            if hidden
            else ""
        )
    return {"stage": name, "groups": groups, "explanation": explanation}


def score_distributions(
    outcomes: Iterable[scoring_api.Outcome], answers: dict[int, SelfIdentification]
) -> list[dict[str, Any]]:
    """Score distribution per group and scoring (config) version; small groups suppressed."""
    by: dict[tuple[str, str], list[int]] = {}
    for o in outcomes:
        if o.score is None:
            continue
        for g in _groups_of(answers.get(o.candidate_id)):
            by.setdefault((o.config_version, g), []).append(o.score)
    out = []
    for (version, g), scores in sorted(by.items()):
        if len(scores) < SUPPRESS_UNDER:
            continue
        q = statistics.quantiles(scores, n=4) if len(scores) > 1 else [scores[0]] * 3
        out.append(
            {
                "scoring_version": version,
                "group": g,
                "n": len(scores),
                "mean": round(statistics.fmean(scores), 2),
                "p25": q[0],
                "median": q[1],
                "p75": q[2],
            }
        )
    return out


def below_four_fifths(report: dict[str, Any]) -> list[dict[str, Any]]:
    """(stage, group, ratio) where a shown group's impact ratio is under 0.8."""
    return [
        {"stage": s["stage"], "group": g["group"], "impact_ratio": g["impact_ratio"]}
        for s in report["stages"]
        for g in s["groups"]
        if g["four_fifths"] is False
    ]


CATEGORIES = {"sex": Sex, "race": RaceEthnicity}
