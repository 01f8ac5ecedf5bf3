"""Change set layout-63 (stop 66), from held-out v24's documents once they were development:
LinkedIn's profile export in Spanish ("Contactar", "Aptitudes principales") and its kin in
German, Italian and Dutch, a "Hard Skills" heading, and a name set solid in capitals over two
lines whose boxes overlap (docs/extraction.md, "Change set layout-63"). Invented text in the
documents' geometry; each test fails on layout-62 (the solid name's asserts that the post
in the same type below it is not taken in)."""

from __future__ import annotations

from ats.extraction._layout import heading_kind
from ats.extraction.api import extract
from tests.extraction.answers import Row, styled_answer
from tests.extraction.corpus import AS_OF


def test_a_spanish_linkedin_exports_top_skills_are_its_skills() -> None:
    # v24's jangarita: "Contactar" was no contact heading, so the document was no export, and
    # sixteen mentions from the summary's prose stood in for its three top skills
    rows: list[Row] = [
        ((22, 40, 78, 59), "Contactar", 13.0),
        ((22, 62, 140, 77), "kofi.mensah@example.org", 10.5),
        ((22, 86, 149, 102), "www.linkedin.com/in/kofi-mensah-1a2b", 11.0),
        ((22, 115, 70, 131), "(LinkedIn)", 11.0),
        ((22, 174, 142, 193), "Aptitudes principales", 13.0),
        ((22, 196, 77, 211), "Lang Graph", 10.5),
        ((22, 214, 72, 229), "LangChain", 10.5),
        ((22, 232, 111, 246), "Ingeniería de datos", 10.5),
        ((224, 38, 505, 74), "Kofi Mensah Asante", 26.0),
        ((224, 74, 556, 91), "Data Science & Machine Learning Practitioner", 12.0),
        ((224, 123, 281, 145), "Extracto", 15.8),
        ((224, 152, 569, 169), "I build web apps with React and Next.js, and models with SQL", 12.0),
        ((224, 170, 567, 187), "and Google Cloud; deep learning is my hobby.", 12.0),
    ]
    found = extract(styled_answer(rows), as_of=AS_OF)
    assert found.values("skills") == ["Lang Graph", "LangChain", "Ingeniería de datos"]
    assert found.values("name") == ["Kofi Mensah Asante"]


def test_the_exports_headings_in_other_languages_are_headings() -> None:
    assert heading_kind("Contactar") == "contact"
    assert heading_kind("Extracto") == "summary"
    for top in ("Aptitudes principales", "Top-Kenntnisse", "Competenze principali", "Belangrijkste vaardigheden"):
        assert heading_kind(top) == "skills", top


def test_hard_skills_is_a_skills_heading_glued_or_not() -> None:
    # v24's hoseiro (Word, Portuguese): "HardSkills" over its bulleted list; nothing was read
    assert heading_kind("Hard Skills") == "skills"
    assert heading_kind("HardSkills") == "skills"
    rows: list[Row] = [
        ((72, 60, 300, 80), "Dana Whitfield", 20.0),
        ((72, 86, 300, 98), "dana@example.org", 11.0),
        ((72, 574, 152, 594), "HardSkills", 16.0),
        ((90, 609, 284, 625), "• HTML, CSS, JavaScript, Bootstrap", 12.0),
        ((90, 627, 171, 642), "• Git, GitHub", 12.0),
    ]
    assert extract(styled_answer(rows), as_of=AS_OF).values("skills") == [
        "HTML",
        "CSS",
        "JavaScript",
        "Bootstrap",
        "Git",
        "GitHub",
    ]


# The page's body: small type, so that 33 pt is display type there
_BODY: list[Row] = [
    ((34, 228, 83, 239), "Milan, 20134", 8.0),
    ((34, 248, 136, 259), "nico.bianchi@example.org", 8.0),
    ((315, 147, 546, 157), "Junior Full Stack Developer with a strong focus on Front-", 8.0),
    ((315, 157, 539, 167), "End development, specializing in React (TSX), Tailwind,", 8.0),
    ((315, 167, 535, 177), "and Vite. Through my years of study, I have developed", 8.0),
    ((315, 177, 550, 187), "technical precision and a strong visual sensibility.", 8.0),
]


def test_a_name_set_solid_in_capitals_over_two_lines_is_whole() -> None:
    # v24's nmaffioli (InDesign): 33 pt capitals whose boxes are 55 pt tall and overlap by 23,
    # the post below in the same type; no name was read
    rows: list[Row] = [
        ((34, 18, 202, 73), "NICCOLÒ", 33.0),
        ((34, 50, 202, 106), "BIANCHI", 33.0),
        ((34, 88, 265, 144), "Full Stack", 33.0),
        ((34, 122, 223, 177), "Developer", 33.0),
        ((34, 174, 269, 191), "Student at ITS, fullstack development", 10.0),
        *_BODY,
    ]
    found = extract(styled_answer(rows), as_of=AS_OF).fields["name"][0]
    assert found.value == "Niccolò Bianchi"  # not "... Full Stack", the post in the same type
    assert [s.text for s in found.sources] == ["NICCOLÒ", "BIANCHI"]
