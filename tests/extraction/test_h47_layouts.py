"""Rules of change set h47 (layouts 17 to 21), each seen on one of held-out v6's CVs after v6
was spent and moved to development (tests/extraction/corpus/real/, docs/extraction.md "Change
set h47"): on the vendored document through the real parser where the document is the story,
on single lines or a built page where a line is. Every test here but the guards (named
test_guard_...) fails on the layout before its own section's (layout-16 for layout-17's,
layout-17 for layout-18's names, and so on)."""

# ruff: noqa: RUF001, RUF002 (CV text has typographic dashes and accents)
from __future__ import annotations

import pytest

from ats.extraction import _layout
from ats.extraction import _lexicon as lex
from ats.extraction._history import _parts, _split_job, date_ranges, ym_text
from ats.extraction._rules import RegionEvidence, _phone_candidates, emails, letter_spaced, looks_like_name, read_phone
from tests.extraction.test_date_columns import _pdf, _values
from tests.extraction.test_real_layouts import _extraction, _roles


def _range(text: str) -> tuple[str, str]:
    (only,) = date_ranges(text)
    return ym_text(only.start), ym_text(only.end) if only.end else "present"


# -- dates ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("08/15 - 12/15 Intern", "2015-08", "2015-12"),  # month and two-digit year, as a range
        ("08/12 - 07/13 Researcher", "2012-08", "2013-07"),
        ("1/19 – present", "2019-01", "present"),
        ("2023 Sep. — 2024 Sep.  Haifa, Israel", "2023-09", "2024-09"),  # the month after its year
        ("SOFTWARE DEVELOPER Aug-2021 – now", "2021-08", "present"),  # month and year joined by a hyphen
        ("Nov-2020 – Sep-2021", "2020-11", "2021-09"),
    ],
)
def test_date_forms(text: str, start: str, end: str) -> None:
    assert _range(text) == (start, end)


def test_guard_what_the_new_date_forms_do_not_read() -> None:
    assert date_ranges("12/15 - 08/15") == []  # backwards: no range
    # US full dates are not MM/YY; since layout-42 they read month first, as days over 12 show
    assert [(r.start, r.end) for r in date_ranges("08/15/2019 - 12/15/2019")] == [((2019, 8), (2019, 12))]
    assert date_ranges("ISO-2019 audit") == []  # a hyphen before a year makes no month of a word
    assert _range("2015 - 2019 Munich") == ("2015", "2019")  # a word after a year is no month


# -- places ------------------------------------------------------------------------------------


@pytest.mark.parametrize("place", ["Haifa, Israel", "Moscow, Russia", "Costa Rica", "Buenos Aires, Argentina"])
def test_every_country_is_a_place(place: str) -> None:
    assert _layout.is_place(place)


def test_country_names_come_from_phonenumbers_except_given_names_and_us_states() -> None:
    for word in ("georgia", "jordan", "chad"):
        assert word not in lex.COUNTRIES
    assert lex.COUNTRIES["israel"] == "IL"
    assert lex.COUNTRIES["germany"] == "DE"  # the hand-made spellings keep their regions


@pytest.mark.parametrize(
    "text",
    [
        "University College London, UK",
        "King's College London, UK",
    ],
)
def test_an_institution_with_its_country_is_no_place(text: str) -> None:
    assert not _layout.is_place(text)


def test_guard_an_institution_with_its_city_and_country_is_no_place() -> None:
    assert not _layout.is_place("Universidad Nacional de Rosario, Rosario, Argentina")
    assert _layout.is_place("Mountain View, California, USA")


def test_the_last_two_parts_that_are_a_place_together_are_one_part() -> None:
    assert _parts("Beckhoff Automation LLC, Savage, Minnesota") == ["Beckhoff Automation LLC", "Savage, Minnesota"]
    assert _parts("Associate Application Engineer, Los Angeles, CA") == [
        "Associate Application Engineer", "Los Angeles, CA"
    ]  # fmt: skip
    # guard: "Acme, CA" after a title may be the employer and its state - left as parts
    assert _parts("Developer, Acme, CA") == ["Developer", "Acme", "CA"]


def test_a_long_title_before_at_and_an_institution_after_it() -> None:
    assert _split_job(["Senior Research Software Engineer at University College London, UK"]) == (
        "Senior Research Software Engineer", "University College London", "UK"
    )  # fmt: skip
    assert _split_job(["Research Associate in Software and Hardware Engineering at King's College London, UK"]) == (
        "Research Associate in Software and Hardware Engineering", "King's College London", "UK"
    )  # fmt: skip


# -- entries -----------------------------------------------------------------------------------

# A company's line with the span of all its roles, each role indented below it with its own
# dates (a Word CV exported to PDF).
NESTED = _pdf(
    [(96, 40, "Ada Lovelace"), (96, 56, "ada@example.org")],
    [(20, 76, "EXPERIENCE")],
    [
        (96, 90, "Northwind Analytics GmbH, Leipzig, Saxony  Jun 2019 – Present"),
        (109, 104, "Lead Data Engineer, Berlin, Germany, Jan 2023 – Present"),
        (150, 118, "Runs the platform team of five."),
        (109, 132, "Data Engineer, Leipzig, Jun 2019 – Dec 2022"),
        (96, 160, "Globex Corporation, Hamburg, Germany  Mar 2015 – May 2019"),
        (109, 174, "Software Engineer, Mar 2015 – May 2019"),
    ],
)


def test_roles_under_a_company_line_take_its_name() -> None:
    history = _values(NESTED, "work_history")
    assert [(h["title"], h["employer"], h["start"], h["end"]) for h in history] == [
        ("Lead Data Engineer", "Northwind Analytics GmbH", "2023-01", "present"),
        ("Data Engineer", "Northwind Analytics GmbH", "2019-06", "2022-12"),
        ("Software Engineer", "Globex Corporation", "2015-03", "2019-05"),
    ]


def test_guard_a_date_columns_rows_are_roles_not_company_lines() -> None:
    """komacv's "1846–1847  Governess, Thornfield Hall" then "1847  Village teacher, ..." set
    further right (a shorter date, right-aligned): two roles, not a company and its role."""
    assert [(t, e) for t, e, _, _ in _roles("komacv-casual")[:3]] == [
        ("Teacher", "Lowood School"),
        ("Governess", "Thornfield Hall"),
        ("Village teacher", "girl’s school"),
    ]


def test_a_title_above_an_organisation_and_its_tagline() -> None:
    """Typst "vantage": "Research Assistant" / "Technion - Automated planning" / "2023 Sep. —
    2024 Sep.  Haifa, Israel": the dash sets the organisation's tagline apart."""
    page = _pdf(
        [(71, 40, "Ada Lovelace")],
        [(71, 90, "Experience")],
        [
            (71, 110, "Research Assistant"),
            (71, 124, "Technion - Automated planning"),
            (84, 140, "2023 Sep. — 2024 Sep.  Haifa, Israel"),
        ],
    )
    history = _values(page, "work_history")
    assert [(h["title"], h["employer"], h["start"]) for h in history] == [("Research Assistant", "Technion", "2023-09")]


def test_guard_a_dashed_name_of_capitalised_words_stays_whole() -> None:
    assert _split_job(["Software Researcher", "UoA - Physical Acoustics Laboratory"])[1] == (
        "UoA, Physical Acoustics Laboratory"
    )


# -- the vendored documents ---------------------------------------------------------------------


def test_roles_nested_under_their_company_in_a_word_cv() -> None:
    assert _roles("villacuellar-word-resume-pdf")[:5] == [
        ("Associate Application Engineer", "Beckhoff Automation LLC", "2024-01", "present"),
        ("Talent Development Associate", "Beckhoff Automation LLC", "2023-06", "2023-12"),
        ("Industrial Automation Engineering Internship", "Beckhoff Automation LLC", "2022-06", "2022-08"),
        ("Embedded Systems Team", "TAMU RoboMasters", "2021-08", "2023-05"),
        ("Standard Robot Design and Fabrication Team", "TAMU RoboMasters", "2020-01", "2022-01"),
    ]


def test_research_experience_is_the_experience_of_a_cv_without_another() -> None:
    assert _roles("xochicale-two-pages") == [
        ("Senior Research Software Engineer", "University College London", "2022-10", "present"),
        ("Research Associate in Real-time AI-based Ultrasound Imaging", "King’s College London", "2021-09", "2022-09"),
        ("Research Associate in Software and Hardware Engineering", "King’s College London", "2019-04", "2021-08"),
    ]


def test_headings_drawn_before_the_text_and_titles_beside_their_dates() -> None:
    """pandoc's HTML resume: "Experience" and "Education" drawn first in a margin column;
    "Head of Digital Experience" beside "Advanced MedTech, May 2019–Feb 2021" is a title."""
    assert _roles("chua-pandoc-resume-pdf")[:5] == [
        ("Fractional Head of Product & Design", "Self-employed", "2024-03", "present"),
        ("VP of Design", "CodeSee (exited to GitKraken)", "2022-03", "2024-02"),
        ("Head of Digital Experience", "Advanced MedTech", "2019-05", "2021-02"),
        ("Product Design Lead", "Honeycomb", "2017-10", "2019-04"),
        ("Senior PM (Product & UX)", "Microsoft", "2011-10", "2015-12"),
    ]


def test_a_roles_tech_stack_label_opens_no_skills_section() -> None:
    """ "Tech stack:" in the body's size under each role of a CV whose headings are larger."""
    assert [(t, e, s) for t, e, s, _ in _roles("rogerninow-resume-en-pdf")[:4]] == [
        ("SOFTWARE DEVELOPER", "RN Software", "2021-08"),
        ("SOFTWARE DEVELOPER", "Guidinn", "2022-05"),
        ("SOFTWARE DEVELOPER", "Datainfo", "2020-11"),
        ("SOFTWARE DEVELOPER", "Grupo Plan Marketing", "2019-02"),
    ]


def test_month_and_two_digit_year_ranges_in_a_friggeri_cv() -> None:
    assert _roles("ddmendes-pt") == [
        ("Estagiário", "Circuitar Eletrônicos, Importação e Exportação", "2015-08", "2015-12"),
        ("Auxiliar", "Samsung Instituto de Desenvolvimento para a Informática", "2015-01", "2015-07"),
        ("Pesquisador", "Universidade de São Paulo", "2012-08", "2013-07"),
    ]


# -- names (layout-18) ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["Rua Tereza Valverde", "Home Address", "Languages Known", "Meine Forschungsthemen", "Cientista de Datos"]
)
def test_a_street_a_label_or_a_job_noun_is_no_name(text: str) -> None:
    assert not looks_like_name(text)


@pytest.mark.parametrize("text", ["Davi Mendes", "Anne St. Clair", "Tran Thi My", "Lucia Via"])
def test_guard_names_with_words_near_those_still_read(text: str) -> None:
    assert looks_like_name(text)


# -- skills under one larger heading (layout-19) -------------------------------------------------


def test_a_languages_sub_heading_under_skills_lists_programming_languages() -> None:
    """ "Technical expertise" over a grid of smaller sub-headings - "Languages" (Bash, Python),
    "Frameworks", "Containers" in a third column: all of it is the skills list."""
    skills = _extraction("luisenmarroquin-cv-en").values("skills")
    assert {"Bash", "Python", "JavaScript", "TypeScript", "Jenkins", "GitHub Actions", "Vue", "React"} <= set(skills)
    assert _extraction("luisenmarroquin-cv-en").values("languages") == ["Spanish", "English"]


def test_after_the_spoken_languages_the_skills_sub_sections_are_skills() -> None:
    """ "Skills and Competences" / "Languages" (Italian: Native, ...) then "Technical and
    Organizational", "Computer Tools and Software Development" in the same small size."""
    extraction = _extraction("mzannoni-cv")
    assert {"Python", "VHDL", "Git", "Subversion", "Cadence DFII"} <= set(extraction.values("skills"))
    assert extraction.values("languages") == ["Italian", "English", "German"]


def test_guard_a_languages_heading_as_large_as_the_skills_one_is_a_languages_section() -> None:
    page = _pdf(
        [(60, 40, "Ana Kowalska"), (60, 56, "ana@example.org")],
        [(60, 90, "Skills")],
        [(60, 106, "Python, Django, PostgreSQL")],
        [(60, 130, "Languages")],
        [(60, 146, "Polish (native), English (C1)")],
    )
    assert _values(page, "languages") == ["Polish", "English"]
    assert _values(page, "skills") == ["Python", "Django", "PostgreSQL"]


# -- phones (layout-20) ---------------------------------------------------------------------------


def test_a_national_number_valid_only_in_another_country_of_the_cvs_language() -> None:
    """ "(47) 9 8829-1690" on a Portuguese CV from Blumenau: no number in Portugal, one in Brazil."""
    assert _extraction("rogerninow-resume-pt-pdf").values("phones") == ["+5547988291690"]
    portuguese = RegionEvidence(cv=(("PT", "cv.language:pt"), ("BR", "cv.language:pt")))
    reading = read_phone("(47) 9 8829-1690", portuguese)
    assert reading is not None and (reading.e164, reading.region) == ("+5547988291690", "BR")


def test_guard_the_languages_first_country_still_comes_first() -> None:
    portuguese = RegionEvidence(cv=(("PT", "cv.language:pt"), ("BR", "cv.language:pt")))
    reading = read_phone("912 345 678", portuguese)
    assert reading is not None and (reading.e164, reading.region) == ("+351912345678", "PT")


def test_digits_glued_to_a_word_are_no_phone() -> None:
    """A LinkedIn slug ("/in/arthur-bernard-789955152") under the real number."""
    assert _extraction("arthur-bernard-en").values("phones") == ["+33659291450"]
    line = _layout.Line("Tel-0612345678  /in/jane-doe-789955152", 0, section="top")
    assert [c for c, _ in _phone_candidates(line) if c] == ["0612345678"]  # guard: a label glued to its number


# -- e-mails and letter-spaced contact lines (layout-21) --------------------------------------------


def test_an_address_broken_after_its_at_with_a_separator_read_before_the_domain() -> None:
    """A 300 dpi scan of the generator's "e-mail broken after its @": OCR reads the rule beside
    the break as "|" ("alvaro.sanchez@" / "| gmail.com")."""
    lines = [
        _layout.Line("alvaro.sanchez@", 0, section="top"),
        _layout.Line("| gmail.com", 1, section="top"),
        _layout.Line("| +34 723 469 066", 2, section="top"),
    ]
    found, _ = emails(lines)
    assert [f.value for f in found] == ["alvaro.sanchez@gmail.com"]


def test_guard_a_finished_address_takes_nothing_after_a_separator() -> None:
    lines = [_layout.Line("ana@example.org", 0, section="top"), _layout.Line("| gmail.com", 1, section="top")]
    found, _ = emails(lines)
    assert [f.value for f in found] == ["ana@example.org"]


def test_a_letter_spaced_contact_line_gives_its_address_and_number() -> None:
    assert letter_spaced("h a c ke r @ l i n u x . c o m") == "hacker@linux.com"
    assert letter_spaced("+ 1 ( 3 3 7 ) 9 3 5 0 0 1 6") == "+1(337)9350016"
    assert letter_spaced("Built the pipelines that feed every dashboard and report") is None  # guard
    assert letter_spaced("Tél. : +33 6 57 26 61 74") is None  # guard: a number written in pairs
    extraction = _extraction("lester-html-resume-pdf")
    assert extraction.values("emails") == ["hacker@linux.com"]
    assert extraction.values("phones") == ["+13379350016"]
