"""Layout-12: the page geometry of real people's CVs that held-out v5 (development since
held-out v6) showed - an academic date column with one-year roles and departments above
their universities, and a two-column CV whose main column goes on over the page after the
sidebar. Made-up content in those geometries; the documents themselves are in the corpus."""

# ruff: noqa: RUF001, RUF003 (CV text has typographic dashes)
from __future__ import annotations

from datetime import date
from typing import Any

from ats.extraction._layout import lines_of
from ats.extraction.api import extract

AS_OF = date(2026, 11, 1)


def _pdf(*blocks: tuple[int, list[tuple[float, float, str]]]) -> dict[str, Any]:
    """A PDF answer: each block (page, [(x0, y0, text), ...]), in reading order."""
    out = []
    for page, block in blocks:
        lines = [{"bbox": [x, y, x + 5.5 * len(t), y + 11], "text": t, "size": 10.0} for x, y, t in block]
        x0 = min(ln["bbox"][0] for ln in lines)
        bbox = [x0, lines[0]["bbox"][1], max(ln["bbox"][2] for ln in lines), lines[-1]["bbox"][3]]
        out.append({"page": page, "bbox": bbox, "text": "\n".join(t for _, _, t in block), "lines": lines})
    return {"schema": 2, "kind": "pdf", "text": "\n".join(b["text"] for b in out), "blocks": out, "elements": []}


def _history(answer: dict[str, Any]) -> list[tuple[Any, ...]]:
    found = extract(answer, as_of=AS_OF).fields.get("work_history", ())
    return [(v.value["title"], v.value["employer"], v.value["start"], v.value["end"]) for v in found]


# moderncv as academics fill it in: a date column (one year for a short role, "–on" or
# "–still" for the current one), the title beside the dates, then the department and the
# university on lines of their own - and no bullet between one entry and the next.
ACADEMIC = _pdf(
    (1, [(70, 80, "Ana Quintero"), (70, 96, "ana.quintero@example.org")]),
    (1, [(70, 130, "Professional Appointments")]),
    (1, [(80, 150, "2022–on")]),
    (
        1,
        [
            (147, 150, "Postdoctoral Research Fellow"),
            (147, 163, "Department of Ocean Sciences"),
            (147, 176, "University of Tarragona"),
        ],
    ),
    (1, [(80, 196, "2021")]),
    (1, [(147, 196, "Coding Trainer"), (147, 209, "Code Outreach Initiative")]),
    (1, [(80, 229, "2017–2019")]),
    (
        1,
        [
            (147, 229, "Assistant Professor"),
            (147, 242, "Faculty of Exact Sciences,"),
            (147, 255, "Universidad Nacional del Sur, Bahía Blanca, Argentina"),
        ],
    ),
    (1, [(80, 275, "2012–still")]),
    (1, [(147, 275, "Board Member, Geoscience Society")]),
)


def test_an_academic_date_column_gives_every_role_with_its_university() -> None:
    assert _history(ACADEMIC) == [
        ("Postdoctoral Research Fellow", "University of Tarragona", "2022", "present"),
        ("Coding Trainer", "Code Outreach Initiative", "2021", "2021"),
        ("Assistant Professor", "Universidad Nacional del Sur", "2017", "2019"),
        ("Board Member", "Geoscience Society", "2012", "present"),
    ]


def test_a_single_year_in_the_body_is_no_role() -> None:
    """Only a date column's year opens a one-year role: a year in a sentence or first on a
    line of running text does not."""
    answer = _pdf(
        (1, [(70, 80, "Ana Quintero"), (70, 96, "ana.quintero@example.org")]),
        (1, [(70, 130, "Experience")]),
        (1, [(70, 150, "2021 was the year the team moved to Lisbon and doubled in size.")]),
        (1, [(70, 170, "Data Engineer, Northwind Analytics  2019 – 2020")]),
    )
    assert _history(answer) == [("Data Engineer", "Northwind Analytics", "2019", "2020")]


def test_a_title_above_a_date_column_row_after_bullets_is_still_its_title() -> None:
    """The date column's row may hold the employer, the title standing above it: after the
    previous entry's bullets, the line above belongs to the new entry."""
    answer = _pdf(
        (1, [(70, 80, "Jonas Weber"), (70, 96, "jonas@example.org")]),
        (1, [(156, 130, "Berufserfahrung")]),
        (1, [(156, 150, "Principal Software Engineer")]),
        (1, [(102, 166, "seit 9.2020")]),
        (1, [(156, 166, "Orbital Systems GmbH"), (156, 178, "○ Leitung der Entwicklung des Simulators")]),
        (1, [(156, 200, "Software Engineer")]),
        (1, [(80, 216, "2.2017 – 6.2018")]),
        (1, [(156, 216, "Telemetrie Deutschland GmbH"), (156, 228, "○ Wartung des Bodensegments")]),
    )
    assert _history(answer) == [
        ("Principal Software Engineer", "Orbital Systems GmbH", "2020-09", "present"),
        ("Software Engineer", "Telemetrie Deutschland GmbH", "2017-02", "2018-06"),
    ]


def test_two_titles_wait_for_the_employer_and_a_chair_yields_to_its_university() -> None:
    answer = _pdf(
        (1, [(70, 80, "Lena Brandt"), (70, 96, "lena@example.org")]),
        (1, [(216, 130, "Work experience")]),
        (
            1,
            [
                (216, 150, "Research assistant | PhD student  09/2020 - today"),
                (216, 163, "Chair of Information Systems (Prof. Keller)"),
                (216, 176, "University of Passau"),
                (216, 196, "Areas of responsibility: the research project's work packages and teaching."),
            ],
        ),
    )
    # The dates' line is all title (h44: labels keep "Research assistant | PhD student" whole).
    assert _history(answer) == [("Research assistant | PhD student", "University of Passau", "2020-09", "present")]


def test_a_duration_under_the_dates_is_no_employer() -> None:
    answer = _pdf(
        (1, [(70, 80, "Paul Mercier"), (70, 96, "paul@example.org")]),
        (1, [(70, 130, "Expériences")]),
        (1, [(78, 150, "1996")]),
        (1, [(175, 150, "Ingénieur stagiaire, Laboratoire Philips")]),
        (1, [(78, 163, "(6 mois)")]),
    )
    assert _history(answer) == [("Ingénieur stagiaire", "Laboratoire Philips", "1996", "1996")]


# A two-column CV: page 1 has the sidebar (skills, contact) and the main column (profile,
# experience); page 2's text layer gives its sidebar (languages, projects) first, then the
# main column's last roles - still under "Experience", not the sidebar's last heading.
TWO_COLUMNS = _pdf(
    (1, [(34, 180, "SKILLS"), (34, 200, "Linux"), (34, 214, "Python")]),
    (1, [(34, 500, "CONTACT"), (51, 520, "Lyon, France"), (51, 534, "marc.a@example.org")]),
    (1, [(277, 60, "MARC ARNAUD"), (322, 97, "Site Reliability Engineer")]),
    (1, [(201, 330, "EXPERIENCE")]),
    (1, [(201, 350, "Lead SRE  2022 - 2026"), (201, 363, "Araxis, Lyon")]),
    (1, [(212, 380, "• Ran the platform and its on-call rota")]),
    (2, [(34, 30, "LANGUAGES"), (34, 50, "French"), (34, 64, "English")]),
    (2, [(34, 160, "PROJECTS"), (51, 180, "homelab"), (51, 194, "network-lab")]),
    (2, [(201, 40, "SRE  2018 - 2022"), (201, 53, "Hawkline, Montpellier")]),
    (2, [(212, 70, "• Moved every service to Kubernetes")]),
)


def test_the_main_column_goes_on_with_its_section_on_the_next_page() -> None:
    assert _history(TWO_COLUMNS) == [("Lead SRE", "Araxis", "2022", "2026"), ("SRE", "Hawkline", "2018", "2022")]
    lines = {ln.text: ln.section for ln in lines_of(TWO_COLUMNS)}
    assert lines["homelab"] == "other"  # the sidebar keeps its own heading's section
    assert lines["SRE  2018 - 2022"] == "experience"


def test_a_narrowed_heading_opens_its_section() -> None:
    """ "Selected Projects" after the roles is the projects section: its dated projects are
    no roles."""
    answer = _pdf(
        (1, [(70, 80, "Lee Tan"), (70, 96, "lee@example.org")]),
        (1, [(70, 130, "Experience")]),
        (1, [(70, 150, "Data Engineer, Northwind Analytics  2023 – 2024")]),
        (1, [(70, 180, "Selected Projects")]),
        (1, [(70, 200, "Civic Chatbot, open-source assistant  2025 – 2026")]),
    )
    assert _history(answer) == [("Data Engineer", "Northwind Analytics", "2023", "2024")]
    assert {ln.text: ln.heading for ln in lines_of(answer)}["Selected Projects"] == "other"


def _skills(answer: dict[str, Any]) -> list[Any]:
    return [fv.value for fv in extract(answer, as_of=AS_OF).fields.get("skills", ())]


def test_programming_languages_under_a_languages_heading_are_skills() -> None:
    """ "Sprachen" then "Julia, Python, MATLAB" - a list of the taxonomy's skills is a skills
    list whatever its heading; the spoken languages beside it are not skills."""
    answer = _pdf(
        (1, [(70, 80, "Jonas Weber"), (70, 96, "jonas@example.org")]),
        (1, [(156, 130, "Sprachen")]),
        (1, [(156, 150, "Deutsch, Englisch, Französisch")]),
        (1, [(156, 170, "Julia, Python, MATLAB, Fortran")]),
        (1, [(156, 190, "TypeScript, Elixir, Rust, C/C++")]),
    )
    skills = _skills(answer)
    assert {"Julia", "Python", "MATLAB", "Fortran", "TypeScript", "Elixir", "Rust"} <= set(skills)
    assert "C/C++" in skills  # one item in the CV's wording, each side's taxonomy entry in its sources (h55)
    assert not {"Deutsch", "Englisch", "Französisch"} & set(skills)
