"""Rules of change sets h44 (layout-14) and h45 (layout-15), each seen on one of the CVs drawn for the
development half after held-out v6 (tests/extraction/corpus/real/, docs/extraction.md
"Development CVs of h44"): on the vendored document through the real parser where the
document is the story, on single lines or a built page where a line is."""

# ruff: noqa: RUF001, RUF002 (CV text has typographic dashes and accents)
from __future__ import annotations

from typing import Any

import pytest

from ats.extraction import _layout
from ats.extraction._history import _parts, _split_job, date_ranges, ym_text
from ats.extraction.api import extract
from tests.extraction.test_date_columns import AS_OF, _pdf
from tests.extraction.test_real_layouts import _answer as _answer_of
from tests.extraction.test_real_layouts import _lines, _roles


def _range(text: str) -> tuple[str, str]:
    (only,) = date_ranges(text)
    return ym_text(only.start), ym_text(only.end) if only.end else "present"


# -- dates ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("Desenvolvedor de Software Pleno  Jul/2025 – Atual", "2025-07", "present"),  # month/year
        ("Set/2022 – Jun/2025", "2022-09", "2025-06"),
        ("June – August 2019", "2019-06", "2019-08"),  # two months, the year written once
        ("Jun-Aug 2019", "2019-06", "2019-08"),
        ("Praktikant in der Softwareentwicklung — Brockhaus AG  6 - 7/2016", "2016-06", "2016-07"),
    ],
)
def test_date_forms(text: str, start: str, end: str) -> None:
    assert _range(text) == (start, end)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("2013–16 Graduate Student Researcher, UC Berkeley", "2013", "2016"),  # the end year's two digits
        ("2017–  Postdoctoral Researcher", "2017", "present"),  # an open dash in a date column
        ("2009-12 – 2011-03", "2009-12", "2011-03"),  # ISO months stay months
    ],
)
def test_academic_year_forms(text: str, start: str, end: str) -> None:
    assert _range(text) == (start, end)


def test_a_day_after_a_dash_is_no_short_end_year() -> None:
    """ "30 Septembre, 2019 - 31 Mars, 2023": "2019 - 31" is no range to 2031."""
    assert not any(r.end and r.end[0] == 2031 for r in date_ranges("Spacefill  (30 Septembre, 2019 - 31 Mars, 2023)"))
    assert date_ranges("2019 - 31") == []


def test_a_range_of_two_years_is_not_read_as_months() -> None:
    assert _range("June 2018 – August 2019") == ("2018-06", "2019-08")
    assert date_ranges("Tel 12-11/2019") == []  # December to November is no range


def test_a_compound_duration_is_no_part_of_the_header() -> None:
    assert _parts("PariPassu | Florianópolis, SC | (1 year and 9 months)") == ["PariPassu", "Florianópolis, SC"]
    assert _parts("Empresa | (1 ano e 9 meses)") == ["Empresa"]


@pytest.mark.parametrize("place", ["São Paulo, SP", "Mesa, Arizona", "New York, New York", "Toronto, ON"])
def test_states_by_name_and_other_federations_codes_are_places(place: str) -> None:
    assert _layout.is_place(place)
    assert not _layout.is_place("Engineer, SP")


def test_the_places_after_an_entrys_sentence_are_its_location() -> None:
    assert _split_job(["Acumen Inc., Web Systems Developer. Mesa, Arizona."]) == (
        "Web Systems Developer", "Acumen Inc.", "Mesa, Arizona"
    )  # fmt: skip
    # "; "-separated places: the first is the entry's
    text = "Accenture, Consultant/Project Manager. London, England; New York, New York."
    assert _split_job([text]) == ("Consultant/Project Manager", "Accenture", "London, England")


def test_an_organisation_alone_is_an_employer_without_a_title() -> None:
    assert _split_job(["Raimi & Associates"]) == (None, "Raimi & Associates", None)
    assert _split_job(["Calthorpe Associates"]) == (None, "Calthorpe Associates", None)


def test_a_comma_in_brackets_splits_nothing() -> None:
    assert _parts("Backend Engineer (Freelance, Part-time)") == ["Backend Engineer (Freelance, Part-time)"]


def test_tex_spacing_accents_go_back_on_their_letters() -> None:
    assert _layout._clean("Technische Universit¨at Darmstadt, R´esum´e") == "Technische Universität Darmstadt, Résumé"


@pytest.mark.parametrize(
    "heading", ["Berufliche Erfahrung", "Praktische Erfahrung", "Professional Appointments", "Consulting Engagements"]
)
def test_a_modified_heading_keeps_its_kind(heading: str) -> None:
    assert _layout.heading_kind(heading) == "experience"


# -- headings set like the document's own ----------------------------------------------------------


def _sized(*lines: tuple[float, float, str, float]) -> dict[str, Any]:
    out = [{"bbox": [x, y, x + 5.5 * len(t), y + s], "text": t, "size": s} for x, y, t, s in lines]
    block = {"page": 1, "bbox": [60, 40, 500, 400], "text": "\n".join(ln["text"] for ln in out), "lines": out}
    return {"schema": 2, "kind": "pdf", "text": block["text"], "blocks": [block], "elements": []}


STYLED = _sized(
    (72, 40, "Dana Example", 17.0),
    (72, 80, "Education", 14.3),
    (72, 100, "PhD 2015, Department of Physics, New York University", 12.0),
    (72, 130, "Positions", 14.3),
    (72, 150, "Research Scientist, Flatiron Institute, 2022–2024.", 12.0),
    (72, 158, "Built the group's open-source samplers and their documentation.", 12.0),
    (72, 166, "Taught the summer school's course on Gaussian processes.", 12.0),
    (72, 170, "Mentorship", 14.3),
    (72, 190, "Former postdocs: Megan Example, Trevor Example, 2016–2017.", 12.0),
    (72, 210, "Selected invited talks & tutorials", 14.3),
    (72, 230, "Open software for Astrophysics, 2023, Invited Plenary, Seattle.", 12.0),
)


def test_a_line_set_like_the_documents_headings_ends_the_section() -> None:
    lines = _layout.lines_of(STYLED)
    assert [(ln.text, ln.heading) for ln in lines if ln.heading] == [
        ("Education", "education"),
        ("Positions", "experience"),
        ("Mentorship", "other"),
        ("Selected invited talks & tutorials", "other"),
    ]
    roles = [(v["title"], v["employer"]) for v in extract(STYLED, as_of=AS_OF).values("work_history")]
    assert roles == [("Research Scientist", "Flatiron Institute")]


def test_body_sized_lines_and_sentences_are_never_styled_headings() -> None:
    same_size = _sized(
        (72, 40, "Dana Example", 12.0),
        (72, 80, "Experience", 12.0),
        (72, 100, "Mentorship", 12.0),
        (72, 130, "Skills", 12.0),
    )
    assert [ln.text for ln in _layout.lines_of(same_size) if ln.heading] == ["Experience", "Skills"]
    lines = _layout.lines_of(STYLED)
    assert not any(ln.heading for ln in lines if ln.text.endswith("."))


def test_the_styled_headings_of_a_real_academic_cv() -> None:
    """dfm's CV: "Popular open-source software", "Mentorship", "Grants" in the headings' size -
    before, the talks and grants after "Positions" were read as five more roles."""
    assert _roles("dfm-cv") == [
        ("Member of Technical Staff", "Anthropic", "2025", "present"),
        ("Research Engineer", "Google DeepMind", "2024", "2025"),
        ("Research Scientist", "Flatiron Institute", "2022", "2024"),
        ("Associate Research Scientist", "Flatiron Institute", "2017", "2022"),
        ("Sagan Postdoctoral Fellow", "University of Washington", "2015", "2017"),
    ]


# -- entries -------------------------------------------------------------------------------------


def test_a_title_alone_above_employer_place_and_dates_is_the_entrys_title() -> None:
    roles = _roles("lucasbc92-en")
    assert ("Full Stack Java Developer", "Zukk Tecnologia", "2025-11", "2026-06") in roles
    assert ("Full Stack Developer", "PariPassu", "2022-08", "2024-04") in roles
    assert ("Junior Full Stack Developer", "Canal Telecom", "2018-02", "2018-11") in roles


def test_an_academic_cvs_consulting_and_professional_rows() -> None:
    roles = _roles("gboeing-cv")
    # the lab and its university, as the CV names them (layout-43); the campus after the
    # comma ("..., Berkeley") reads as the role's place
    assert ("Postdoctoral Researcher", "Urban Analytics Lab, University of California", "2017", "present") in roles
    assert (None, "Raimi & Associates", "2013", "2013") in roles
    assert ("Web Systems Developer", "Acumen Inc.", "2004", "2007") in roles


def test_portuguese_month_slash_year_dates_open_roles() -> None:
    roles = _roles("leonardofn-main")
    assert roles[0] == ("Desenvolvedor de Software Pleno", "Vetta Tecnologia", "2025-07", "present")
    assert len(roles) == 6


def test_headings_drawn_after_the_text_take_their_lines_by_position() -> None:
    """0xA1337's JSON Resume theme: WORK EXPERIENCE, SKILLS, EDUCATION, LANGUAGES come last in
    the text layer; the roles above SKILLS are experience, not the CV's top."""
    sections = {ln.text: ln.section for ln in _lines("0xa1337-resume")}
    assert sections["INJECTIVE"] == "experience"
    assert sections["Smart Contracts (Proficient): Solidity, Hardhat"] == "skills"
    assert [r[1] for r in _roles("0xa1337-resume")] == [
        "INJECTIVE", "DAYLIGHT", "POLARITY, HYPERHYPER", "IMPERATOR", "AVAILABS"
    ]  # fmt: skip


def test_a_tables_second_column_below_the_heading_stays_in_its_section() -> None:
    """psrpinto's wkhtmltopdf table: "Title / Employer / Place / dates" left, stack and text
    right, row by row; the right cell of the second row jumps up beside its row, which read
    as a new column back at the top of the page."""
    lines = _lines("psrpinto-resume")
    assert all(ln.section == "experience" for ln in lines if ln.text in ("Software Engineer", "OWI Technologies"))
    roles = _roles("psrpinto-resume")
    assert ("Software Engineer", "OWI Technologies", "2009-04", "2012-05") in roles
    # The date cell under "Freelancer" / "Remote" is not joined to the description beside it.
    assert "Since Sept. 2016" in [ln.text for ln in lines]


def test_a_stacked_date_cell_is_not_joined_but_a_date_column_still_is() -> None:
    stacked = _pdf(
        [(60, 40, "Ada Example")],
        [(60, 90, "Experience")],
        [(60, 110, "Freelancer"), (60, 123, "Remote"), (60, 136, "Since Sept. 2016")],
        [(200, 136, "Examples include websites for small businesses.")],
    )
    assert "Since Sept. 2016" in [ln.text for ln in _layout.lines_of(stacked)]
    column = _pdf(
        [(60, 40, "Ada Example")],
        [(60, 90, "Experience")],
        [(60, 110, "2019 – now")],
        [(170, 110, "Lead Data Engineer, Northwind Analytics")],
    )
    assert "2019 – now  Lead Data Engineer, Northwind Analytics" in [ln.text for ln in _layout.lines_of(column)]


def test_a_narrow_columns_line_ending_on_a_comma_goes_on_below() -> None:
    answer = _pdf([(93, 40, "Ada Example")], [(93, 100, "Remote | Lisbon,"), (93, 110, "Portugal")])
    assert "Remote | Lisbon, Portugal" in [ln.text for ln in _layout.lines_of(answer)]
    listed = _pdf([(93, 40, "Ada Example")], [(93, 100, "Python, Go, Docker, Kubernetes,"), (93, 110, "Terraform")])
    assert "Terraform" in [ln.text for ln in _layout.lines_of(listed)]


def test_a_dates_line_that_is_all_title_over_its_unit_and_university() -> None:
    """philipempl's CV: "Trainer - Cyber security I  09/2019 - 02/2020" over "Chair of
    Information Systems (Prof. Pernul)" / "University of Regensburg" - the course is part of
    the title, the university is the employer (it read "Cyber security I" as the employer)."""
    roles = _roles("modern-latex-cv-empl-en")
    assert ("Trainer - Cyber security I", "University of Regensburg", "2019-09", "2020-02") in roles
    assert ("Research assistant | PhD student", "University of Regensburg", "2020-09", "present") in roles
    # An employer on the dates' line stays the employer when an institution follows below only
    # as part of an incomplete header (basic-typst's "Microscopic Circus, Schrodinger's University").
    page = _pdf(
        [(60, 40, "Ada Example")],
        [(60, 90, "Experience")],
        [(60, 110, "DevOps Engineer | SoftServe  2015 – 2016"), (60, 124, "Used technologies: Ansible, Jenkins")],
    )
    roles = [(v["title"], v["employer"]) for v in extract(page, as_of=AS_OF).values("work_history")]
    assert roles == [("DevOps Engineer", "SoftServe")]


def test_a_title_and_its_topic_over_an_employer_with_its_legal_form() -> None:
    """helgee's moderncv: "Technology Consultant – Artificial Intelligence & Data Analytics"
    above "3.2020 – 8.2020  Lufthansa Industry Solutions AS GmbH"."""
    texts = ["Technology Consultant – Artificial Intelligence & Data Analytics", "Lufthansa Industry Solutions AS GmbH"]
    assert _split_job(texts) == (
        "Technology Consultant – Artificial Intelligence & Data Analytics",
        "Lufthansa Industry Solutions AS GmbH",
        None,
    )
    # A comma names the title and then the team: the title stays the title alone.
    assert _split_job(["Software Engineer, Equipo de Google Cloud", "Google LLC"]) == (
        "Software Engineer", "Google LLC", None
    )  # fmt: skip


def test_a_spanish_employers_tagline_is_no_part() -> None:
    assert _parts("Pulpos.- Punto de venta en la nube para comercios independientes") == ["Pulpos"]
    assert _split_job(["Desarrollador de software", "Pulpos.- Punto de venta en la nube"]) == (
        "Desarrollador de software", "Pulpos", None
    )  # fmt: skip


def test_a_cv_with_a_skills_list_is_read_by_its_list() -> None:
    """awesome-cv's CV lists its skills; what its roles' prose names besides (tools in a
    bullet) was a false positive against that list. It is kept, apart, as skills_mentioned."""
    page = _pdf(
        [(60, 40, "Ada Example")],
        [(60, 90, "Skills")],
        [(60, 110, "Python, PostgreSQL, Docker")],
        [(60, 140, "Experience")],
        [(60, 160, "Data Engineer, Northwind  2019 – 2021"), (60, 174, "• Moved the batch jobs to Kubernetes.")],
    )
    ex = extract(page, as_of=AS_OF)
    assert ex.values("skills") == ["Python", "PostgreSQL", "Docker"]
    assert ex.values("skills_mentioned") == ["Kubernetes"]
    # No list: the mentions are the skills.
    prose = _pdf(
        [(60, 40, "Ada Example")], [(60, 90, "Experience")], [(60, 110, "Moved the batch jobs to Kubernetes.")]
    )
    assert extract(prose, as_of=AS_OF).values("skills") == ["Kubernetes"]


# -- names ---------------------------------------------------------------------------------------


def test_a_degree_after_the_name_is_no_part_of_it() -> None:
    """rodluger's CV: "Rodrigo Luger, PhD" at the top."""
    assert extract(_answer_of("rodluger-industry"), as_of=AS_OF).values("name") == ["Rodrigo Luger"]
    page = _pdf([(60, 40, "Jane Example, Ph.D.")], [(60, 60, "jane@example.org")])
    assert extract(page, as_of=AS_OF).values("name") == ["Jane Example"]


def test_a_name_set_in_lower_case_as_a_style() -> None:
    """mindrunner's CV sets "lukas elsner" in lower case, the largest type on the page."""
    assert extract(_answer_of("mindrunner-cv-de"), as_of=AS_OF).values("name") == ["Lukas Elsner"]


def test_a_skills_line_keeps_its_list_shape_past_versions_and_brackets() -> None:
    """lucasbc92's list: "Back-end: Java 8–21, Spring Boot, BFF (Nest.js), Hibernate/JPA, jOOQ"
    read as prose before (one item had a version range, one a bracket): its unlinked items
    were lost."""
    from ats.extraction._rules import _list_items

    assert _list_items("Back-end: Java 8–21, Spring Boot, BFF (Nest.js), Hibernate/JPA, jOOQ, JWT") == [
        "Java", "Spring Boot", "BFF", "Nest.js", "Hibernate/JPA", "jOOQ", "JWT"
    ]  # fmt: skip
    # A bracket that says something is dropped; spoken languages and levels are no items.
    assert _list_items("English (Can read, write and speak fluently), Chinese (Native speaker), Go") == ["Go"]
    assert _list_items("Go (Intermediate), Python (Advanced)") == ["Go", "Python"]
    # Prose stays prose.
    assert _list_items("Built the pipelines, and ran them every night for the whole analytics team.") == []


# -- h45 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["2019 - ahora", "2016 - En cours", "2020 – actualmente"])
def test_more_words_for_an_ongoing_role(text: str) -> None:
    (only,) = date_ranges(text)
    assert only.end is None


def test_an_employers_place_in_brackets_is_its_location() -> None:
    assert _split_job(["Programador contratista", "Skyworks Inc (Mexicali, México)"]) == (
        "Programador contratista", "Skyworks Inc", "Mexicali, México"
    )  # fmt: skip
    assert _split_job(["Data Engineer", "Acme (Data Platform team)"])[1] == "Acme (Data Platform team)"


def test_a_friggeri_cv_in_spanish() -> None:
    """JavierRizzoA's CV: "2019 - ahora Ingeniero en Software" over "Microsoft (Bellevue,
    Estados Unidos)"; its "Reconocimientos" (hackathon prizes) are no roles."""
    roles = _roles("javierrizzoa-cv")
    assert ("Ingeniero en Software", "Microsoft", "2019", "present") in roles
    assert ("Programador contratista", "Skyworks Inc", "2016", "2016") in roles
    assert _layout.heading_kind("Reconocimientos") == "other"
    assert not any(r[0] and "Hackathon" in r[0] for r in roles)


def test_a_heading_that_names_technologies_second() -> None:
    """MiquelGomezCorral's "ENTORNOS Y TECNOLOGÍAS": its list was read as the education
    section's text (and, beside the roles' "Tecnologías:" lines, set apart as mentions)."""
    assert _layout.heading_kind("ENTORNOS Y TECNOLOGÍAS") == "skills"
    assert _layout.heading_kind("2019 - ahora Ingeniero en Software") is None
    skills = extract(_answer_of("miquelgomezcorral-cv"), as_of=AS_OF).values("skills")
    assert {"PyTorch", "OpenCV", "Unity"} <= set(skills)


# -- h46 -----------------------------------------------------------------------------------------


def test_a_roles_own_skills_label_in_a_docx_opens_no_section() -> None:
    """shalomb's pandoc DOCX: its sections are Word "Heading 3" paragraphs, and each role sets
    "Responsibilities" and "Skills" in the definition-list style its dates and titles use.
    Read as a heading, the first role's "Skills" turned every later role into a skills list."""
    lines = _lines("shalomb-cv")
    headings = [(ln.text, ln.heading) for ln in lines if ln.heading]
    assert headings[:2] == [("Core Competencies", "skills"), ("Professional Experience", "experience")]
    assert all(ln.section == "experience" for ln in lines if ln.text.startswith("Jun 2022"))
    skills = extract(_answer_of("shalomb-cv"), as_of=AS_OF).values("skills")
    assert len(skills) < 30  # was 88: every role's prose read as a list
