"""Work history and names on real people's own CVs (change set h29extract, layout-7).

The documents are the development half's CVs that people wrote about themselves with LaTeX or
Typst and published under a free licence (tests/extraction/corpus/real/, never the held-out
half): custom macros, a date column or dates flush right, "now" and "..." for an open end,
day-month-year dates in French, moderncv in German. Each is parsed in-process by the real
parser, as the evaluation does; the assertions name the rule each one exercises. A few rules
are also checked on single lines."""

# ruff: noqa: RUF001 (CV text has typographic dashes and apostrophes)
from __future__ import annotations

import functools
from datetime import date
from typing import Any

import pytest

from ats.extraction import _layout
from ats.extraction._history import _split_job, date_ranges, ym_text
from ats.extraction.api import RULES_VERSION, extract
from ats.extraction.eval import parse_answer
from tests.extraction.corpus import real

AS_OF = date(2026, 11, 1)


@functools.cache
def _answer(cv_id: str) -> dict[str, Any]:
    for entry, how in real._built("development"):
        if entry.id == cv_id:
            kind, data, dpi = how
            assert dpi is None
            return parse_answer(kind, data)
    raise KeyError(cv_id)


def _extraction(cv_id: str) -> Any:
    return extract(_answer(cv_id), as_of=AS_OF)


def _roles(cv_id: str) -> list[tuple[str | None, str | None, str | None, str | None]]:
    return [(v["title"], v["employer"], v["start"], v["end"]) for v in _extraction(cv_id).values("work_history")]


def test_rules_version_moved() -> None:
    assert RULES_VERSION == "layout-7"


# -- single lines -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("(30 Septembre, 2019 - 31 Mars, 2023)", "2019-09", "2023-03"),  # day, French month, comma
        ("(02 Mai, 2023 - ...)", "2023-05", "present"),  # an ellipsis for an open end
        ("(November 01, 2017 - December 01, 2017)", "2017-11", "2017-12"),
        ("May, 2019 – Present", "2019-05", "present"),  # a comma between month and year
        ("June, 2018 – Jan, 2019", "2018-06", "2019-01"),
    ],
)
def test_date_forms_of_personal_cvs(text: str, start: str, end: str) -> None:
    (found,) = date_ranges(text)
    assert (ym_text(found.start), ym_text(found.end)) == (start, end)


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (["Trendyol @Istanbul, Turkey", "Data Engineer"], ("Data Engineer", "Trendyol", "Istanbul, Turkey")),
        (
            ["Software Engineer / IT-Consultant, mindrunner."],
            ("Software Engineer / IT-Consultant", "mindrunner.", None),
        ),
        (["Blockchain / DevOps Engineer, a-Qube."], ("Blockchain / DevOps Engineer", "a-Qube.", None)),
        (["Ecotiz / Joinly", "Lead backend developper"], ("Lead backend developper", "Ecotiz / Joinly", None)),
        (
            [
                "Technology Consultant – Artificial Intelligence & Data Analytics",
                "Lufthansa Industry Solutions AS GmbH",
            ],
            (
                "Technology Consultant – Artificial Intelligence & Data Analytics",
                "Lufthansa Industry Solutions AS GmbH",
                None,
            ),
        ),
        (["PingCAP Inc. - Database - Full-Stack Engineer(Golang/JS)"], ("Full-Stack Engineer", "PingCAP Inc.", None)),
        (["Google / Software Engineer"], ("Software Engineer", "Google", None)),  # still two parts
        (
            ["Pulpos.- Punto de venta en la nube para comercios independientes", "Desarrollador de software"],
            ("Desarrollador de software", "Pulpos", None),  # an employer and its tagline
        ),
    ],
)
def test_headers_of_personal_cvs(texts: list[str], expected: tuple[str | None, ...]) -> None:
    assert _split_job(texts) == expected


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Internship Experience", "experience"),
        ("karriere", "experience"),
        ("Akademische Laufbahn", "education"),
        ("Research Experience", "other"),  # its rows are no employment (as "Other Experience")
        ("Selected Projects", "other"),
        ("EXPÉRIENCES DE BÉNÉVOLAT", "other"),
        ("zertifizierung / schulung", "other"),
        ("Zusätzliche Qualifikationen", "skills"),
        ("Persönliche Informationen", "contact"),
    ],
)
def test_headings_of_personal_cvs(text: str, kind: str) -> None:
    assert _layout.heading_kind(text) == kind


def test_tex_spacing_accents_join_their_letter() -> None:
    # pdfTeX with OT1 fonts: the accent and the letter are separate glyphs, accent first.
    assert _layout._clean("Technische Universit¨at Darmstadt") == "Technische Universität Darmstadt"
    assert _layout._clean("H¨ogskolan, Fran¸cais") == "Högskolan, Fran¸cais"  # a cedilla is not handled
    assert _layout._clean("Ingenier´ıa en Inform´atica") == "Ingeniería en Informática"  # TeX's dotless i


# -- whole documents ---------------------------------------------------------------------------


def test_friggeri_date_column_with_durations() -> None:
    # "2017 (6mth) Intermax Cloudsourcing": a year, its duration, the employer; "Time: ..." lines
    # under each role are no header of the next one.
    roles = _roles("timvisee-cv")
    assert ("Internship Software Engineer", "Intermax Cloudsourcing", "2017", "2017") in roles
    assert ("Software Engineer & PCB Assembler", "Hyperion Technologies", "2015", "2015") in roles
    assert ("System Administrator", "SystematIC Design", "2014", "2014") in roles
    assert ("Software Engineer", "Intermax Cloudsourcing", "2018", "present") in roles


def test_moderncv_casual_in_german() -> None:
    # "seit 2004  Title / Title, Employer.", "2019  Title, Employer." (a lone year in the date
    # column), a lower-case name.
    roles = {(t, (e or "").rstrip("."), s, n) for t, e, s, n in _roles("mindrunner-cv-de")}
    assert ("Software Engineer / IT-Consultant", "mindrunner", "2004", "present") in roles
    assert ("Blockchain / DevOps Engineer", "a-Qube", "2019", "2019") in roles
    assert ("CTO", "eco.income", "2018", "present") in roles
    assert _extraction("mindrunner-cv-de").values("name")[0] == "Lukas Elsner"


def test_moderncv_classic_title_above_dates_and_organisation() -> None:
    roles = _roles("helgee-lebenslauf")
    assert (
        "Technology Consultant – Artificial Intelligence & Data Analytics",
        "Lufthansa Industry Solutions AS GmbH",
        "2020-03",
        "2020-08",
    ) in roles
    assert (
        "Wissenschaftlicher Mitarbeiter am Fachgebiet für Datenverarbeitung in der Konstruktion (DiK)",
        "Technische Universität Darmstadt",
        "2013-11",
        "2016-10",
    ) in roles
    titles = {t for t, *_ in roles}
    assert "Freiberuflicher Berater in der Missionsanalyse – Nebentätigkeit" in titles
    assert "Praktikum und Masterarbeit in der Missionsanalyse" in titles
    assert not any("Master of Science" in (t or "") for t in titles)  # "Akademische Laufbahn" is education


def test_typst_french_day_month_dates() -> None:
    roles = _roles("itsalex-cv-fr")
    assert ("DevOps developper", "XXII", "2023-05", "present") in roles
    assert ("Senior fullstack developper", "Spacefill", "2019-09", "2023-03") in roles
    assert ("Lead backend developper", "Ecotiz / Joinly", "2019-01", "2019-09") in roles
    assert len(roles) == 4  # "Expériences de bénévolat" is no employment


def test_internship_experience_and_a_bracketed_name() -> None:
    ex = _extraction("1chooo-cv")
    assert ex.values("name")[0] == "Hugo (Chun-Ho) Lin"
    roles = [(t, e, s, n) for t, e, s, n in _roles("1chooo-cv")]
    assert roles[:3] == [
        ("R&D Engineer", "Futurenest", "2024-12", "2025-01"),
        ("Cloud Engineer", "eCloudValley Digital Technology", "2024-03", "2024-05"),
        ("AI Engineer", "PEGATRON Corporation", "2023-07", "2023-08"),
    ]


def test_research_and_projects_are_no_roles() -> None:
    roles = _roles("jolow99-resume")
    assert len(roles) == 8
    assert ("Research Engineer", "Metagov", "2024-08", "present") in roles
    schools = [v["institution"] for v in _extraction("jolow99-resume").values("education_entries")]
    assert len(schools) == 3  # the research rows under "Research Experience" are not schools


def test_employer_at_place_and_month_comma_year() -> None:
    roles = _roles("0x01h-resume")
    assert roles == [
        ("Data Engineer", "Trendyol", "2019-05", "present"),
        ("Member", "Deep Learning Türkiye", "2019-04", "present"),
        ("Software Developer", "Sociality.io", "2018-06", "2019-01"),
    ]


def test_spanish_moderncv_with_taglines_and_tag_lines() -> None:
    # "Empresa.- tagline" headers; one-skill tag lines ("React", "System Design") under a role
    # are no header of the next one.
    roles = _roles("fdelmazo-cv-es")
    assert ("Desarrollador de software", "Pulpos", "2024-04", "present") in roles
    assert ("Freelancer", "Dos Monos", "2021-11", "2024-03") in roles
    assert not any(t in ("System Design", "React") for t, *_ in roles)
