"""The scorer alone: integers that add up, evidence, fingerprints that ignore what they must."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ats.scoring import engine


def _v(value: object, rule: str = "skill.section", text: str = "Skills: x") -> dict[str, object]:
    return {"value": value, "sources": [{"text": text, "rule": rule, "attachment_id": 1, "page": 1}]}


CRIT = engine.Criteria(must_have=("Python", "PostgreSQL", "Docker"), nice_to_have=("Kubernetes",), min_years=4)


def test_split_is_exact_and_deterministic() -> None:
    assert engine.split(70, 3) == [24, 23, 23]
    assert engine.split(15, 4) == [4, 4, 4, 3]
    assert sum(engine.split(100, 7)) == 100 and engine.split(5, 0) == []


def test_found_missing_unclear_and_years() -> None:
    r = engine.score(
        CRIT,
        skills=[_v("Python"), _v("docker", rule="skill.text", text="worked beside the Docker team")],
        years_experience=[_v(2.0, rule="years.ranges", text="2022 - Present")],
        canonical={"docker": "Docker"},
    )
    by = {e["criterion"]: e for e in r.explanation}
    assert by["must-have: Python"]["status"] == "found" and by["must-have: Python"]["contribution"] == 24
    assert by["must-have: PostgreSQL"]["status"] == "missing" and by["must-have: PostgreSQL"]["contribution"] == 0
    assert by["must-have: PostgreSQL"]["evidence"] == []
    assert by["must-have: Docker"]["status"] == "unclear" and by["must-have: Docker"]["contribution"] == 11
    assert by["must-have: Docker"]["evidence"][0]["text"] == "worked beside the Docker team"
    assert by["nice-to-have: Kubernetes"]["contribution"] == 0
    years = next(e for e in r.explanation if e["criterion"].startswith("years"))
    assert years["contribution"] == 7 and years["max"] == 15  # 15 * 2 / 4, rounded down
    assert r.score == 24 + 11 + 7 == sum(e["contribution"] for e in r.explanation)
    assert sum(e["max"] for e in r.explanation) == 100


def test_perfect_candidate_scores_100_even_without_nice_to_haves_or_years() -> None:
    crit = engine.Criteria(must_have=("Python", "Go", "SQL"))
    r = engine.score(crit, skills=[_v("Python"), _v("Go"), _v("SQL")], years_experience=[])
    assert r.score == 100 and [e["max"] for e in r.explanation] == [34, 33, 33]
    assert "years_experience" not in r.inputs  # not a criterion: not an input either


def test_fingerprint_covers_criteria_values_inputs_and_config_only() -> None:
    base = engine.score(CRIT, skills=[_v("Python")], years_experience=[_v(5.0)])
    # Another sentence of evidence for the same values, an unrelated skill: same inputs used.
    same = engine.score(
        CRIT, skills=[_v("Python", text="Python, Go"), _v("Rust")], years_experience=[_v(5.0, text="other")]
    )
    assert same.fingerprint == base.fingerprint and same.score == base.score
    reordered = engine.Criteria(must_have=("Docker", "Python", "PostgreSQL"), nice_to_have=("Kubernetes",), min_years=4)
    assert engine.score(reordered, skills=[_v("Python")], years_experience=[_v(5.0)]).fingerprint == base.fingerprint
    more_years = engine.score(CRIT, skills=[_v("Python")], years_experience=[_v(6.0)])
    assert more_years.fingerprint != base.fingerprint
    stricter = engine.Criteria(must_have=CRIT.must_have, nice_to_have=CRIT.nice_to_have, min_years=5)
    assert engine.score(stricter, skills=[_v("Python")], years_experience=[_v(5.0)]).fingerprint != base.fingerprint
    assert len(base.fingerprint) == 64 and int(base.fingerprint, 16) >= 0


@given(
    must=st.lists(st.sampled_from(["Python", "Go", "SQL", "Rust", "Java", "C#"]), min_size=1, max_size=6, unique=True),
    nice=st.lists(st.sampled_from(["Docker", "Kubernetes", "Terraform"]), max_size=3, unique=True),
    min_years=st.one_of(st.none(), st.floats(min_value=0.5, max_value=20)),
    have=st.lists(
        st.tuples(
            st.sampled_from(["Python", "Go", "SQL", "Rust", "Docker", "Terraform", "Excel"]),
            st.sampled_from(["skill.section", "skill.text"]),
        ),
        max_size=8,
    ),
    years=st.one_of(st.none(), st.floats(min_value=0, max_value=40)),
)
def test_contributions_always_add_up_to_a_0_100_score(
    must: list[str], nice: list[str], min_years: float | None, have: list[tuple[str, str]], years: float | None
) -> None:
    crit = engine.Criteria(must_have=tuple(must), nice_to_have=tuple(nice), min_years=min_years)
    r = engine.score(
        crit, skills=[_v(s, rule=rule) for s, rule in have], years_experience=[] if years is None else [_v(years)]
    )
    assert 0 <= r.score <= 100
    assert r.score == sum(e["contribution"] for e in r.explanation)
    assert all(isinstance(e["contribution"], int) and 0 <= e["contribution"] <= e["max"] for e in r.explanation)
    assert sum(e["max"] for e in r.explanation) == 100


def test_the_cvs_own_wording_matches_the_requisitions_skill_through_the_taxonomy() -> None:
    linked = {"value": "Kube", "sources": [{"text": "Kube", "rule": "skill.section", "taxonomy_label": "Kubernetes"}]}
    r = engine.score(
        CRIT,
        skills=[_v("Postgres"), _v("Python 3"), linked],
        years_experience=[],
        # Today's vocabulary resolves "Postgres" and "Python 3"; "Kube" only through the
        # taxonomy entry the extractor linked it to (a spelling an older taxonomy had).
        canonical={"postgres": "PostgreSQL", "python 3": "Python"},
    )
    status = {e["criterion"]: e["status"] for e in r.explanation}
    assert status["must-have: Python"] == status["must-have: PostgreSQL"] == engine.FOUND
    assert status["nice-to-have: Kubernetes"] == engine.FOUND
    assert status["must-have: Docker"] == engine.MISSING


def test_a_slash_pair_matches_a_requisition_asking_for_either_side() -> None:
    """Extraction layout-29 keeps a skills list's "C/C++" as one value in the CV's wording
    with a source per side; scoring took only the first side's entry, and a requisition
    asking for "C++" found nothing where it had found the separate "C++" before."""
    pair = {
        "value": "C/C++",
        "sources": [
            {"text": "C/C++", "rule": "skill.section", "taxonomy_label": "C"},
            {"text": "C/C++", "rule": "skill.section", "taxonomy_label": "C++"},
        ],
    }
    crit = engine.Criteria(must_have=("C++", "C"), nice_to_have=("Rust",))
    r = engine.score(crit, skills=[pair], years_experience=[], canonical={})
    status = {e["criterion"]: e["status"] for e in r.explanation}
    assert status["must-have: C++"] == status["must-have: C"] == engine.FOUND
    assert status["nice-to-have: Rust"] == engine.MISSING
