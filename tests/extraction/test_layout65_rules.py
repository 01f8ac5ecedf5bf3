"""Change set layout-65 (stop 67), from held-out v25's documents once they were development:
LinkedIn's profile export in Danish (its months, its time at a company, its headings and
top skills over two lines), a headline the export writes after its page's footer, a footer
with its space lost, and Portuguese "Out" for October (docs/extraction.md, "Change set
layout-65"). Invented text in the documents' geometry; each test fails on layout-64."""

# ruff: noqa: RUF001, RUF003 - the en dashes are what these documents hold
from __future__ import annotations

from typing import Any

from ats.extraction._history import date_ranges
from ats.extraction._layout import heading_kind
from ats.extraction._rules import PAGE_FOOTER
from ats.extraction.api import extract
from tests.extraction.answers import Row, pdf_answer, styled_block
from tests.extraction.corpus import AS_OF


def _pages(*pages: list[Row]) -> dict[str, Any]:
    blocks = []
    for number, rows in enumerate(pages, start=1):
        for bbox, text, size in rows:
            blocks.append(styled_block(bbox, text, size) | {"page": number})
    return pdf_answer(blocks, ocr=False)


_CONTACT: list[Row] = [
    ((22, 40, 66, 59), "Kontakt", 13.0),
    ((22, 62, 162, 77), "freja.holm@example.org", 10.5),
    ((22, 86, 124, 102), "www.linkedin.com/in/", 11.0),
    ((22, 101, 163, 116), "frejaholm (LinkedIn)", 11.0),
    ((22, 160, 146, 178), "Mest repræsenterede", 13.0),
    ((22, 176, 97, 194), "kompetencer", 13.0),
    ((22, 198, 93, 212), "Service Design", 10.5),
    ((22, 215, 60, 230), "Figma", 10.5),
    ((22, 233, 120, 248), "Design Systems", 10.5),
    ((224, 38, 480, 74), "Freja Holm Lauridsen", 26.0),
    ((224, 118, 377, 135), "Region Midtjylland, Danmark", 12.0),
    ((224, 465, 279, 487), "Erfaring", 15.8),
    ((224, 499, 278, 516), "Contoso Nordic", 12.0),
    ((224, 518, 295, 532), "2 år 7 måneder", 10.5),
    ((224, 538, 351, 554), "Senior Product Designer", 11.5),
    ((224, 553, 382, 568), "marts 2025 - Present (9 måneder)", 10.5),
    ((224, 568, 257, 583), "Aarhus", 10.5),
    ((384, 768, 430, 781), "Page 1 of 3", 9.0),
    # the headline under the name, written after the page's footer
    ((224, 74, 545, 91), "Product Designer | Design Systems, UX & Front-End", 12.0),
    ((224, 88, 572, 105), "Collaboration | Clear, Usable Interfaces", 12.0),
]
_PAGE_TWO: list[Row] = [
    ((224, 272, 289, 288), "UX Designer", 11.5),
    ((224, 288, 430, 302), "maj 2023 - februar 2025 (1 år 10 måneder)", 10.5),
    ((224, 302, 426, 317), "Aarhus, Central Denmark Region, Denmark", 10.5),
    ((224, 330, 400, 346), "Fabrikam Studio", 12.0),
    ((224, 347, 289, 363), "Instruktør", 11.5),
    ((224, 363, 430, 377), "februar 2019 - april 2023 (4 år 3 måneder)", 10.5),
    ((224, 420, 300, 442), "Uddannelse", 15.8),
    ((224, 450, 420, 466), "Aarhus Universitet", 12.0),
    ((224, 466, 480, 480), "Kandidat, Informationsvidenskab · (2016 - 2018)", 10.5),
]


def test_a_danish_linkedin_exports_roles_on_the_page_after_its_headline() -> None:
    # v25's jbjerrekaer: the headline given after "Page 1 of 6" made page two "top" (one role
    # read of eleven), "marts" was no month, "2 år 7 måneder" no time at a company
    found = extract(_pages(_CONTACT, _PAGE_TWO), as_of=AS_OF)
    roles = [(r["employer"], r["title"], r["start"], r["end"]) for r in found.values("work_history")]
    assert roles == [
        ("Contoso Nordic", "Senior Product Designer", "2025-03", "present"),
        ("Contoso Nordic", "UX Designer", "2023-05", "2025-02"),
        ("Fabrikam Studio", "Instruktør", "2019-02", "2023-04"),
    ]
    assert found.values("skills") == ["Service Design", "Figma", "Design Systems"]
    assert found.values("name") == ["Freja Holm Lauridsen"]


def test_scandinavian_headings() -> None:
    assert heading_kind("Uddannelse") == "education"
    assert heading_kind("Utbildning") == "education"
    assert heading_kind("Kompetencer") == "skills"
    assert heading_kind("Sprog") == "languages"
    assert heading_kind("Arbetslivserfarenhet") == "experience"


def test_portuguese_out_is_october() -> None:
    # v25's dholiveira: "Nov 2019 – Out 2021" was no range (the role lost), "Out 2018 – Dez
    # 2022" started in 2018 with no month
    (first,) = date_ranges("Nov 2019 – Out 2021")
    assert (first.start, first.end) == ((2019, 11), (2021, 10))
    (second,) = date_ranges("Out 2018 – Dez 2022")
    assert second.start == (2018, 10)


def test_a_footer_with_its_space_lost_is_a_footer() -> None:
    # v25's atanwar: "Page 1 of4" between two roles of one company was read as a house
    for footer in ("Page 1 of4", "Page 2 of 4", "Side 1 af 6", "Sida 2 av 3", "Page 1 sur 2", "Pagina 1 van 2"):
        assert PAGE_FOOTER.fullmatch(footer), footer
    assert not PAGE_FOOTER.fullmatch("Page 1 of the guide")
