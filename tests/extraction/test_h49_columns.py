"""Change set h49 (layout-23): an OCR'd two-column page is read column by column; a term's
year range is no phone; a heading's icon as OCR read it does not hide the heading.

OCR gives a page's lines row by row across both columns: on a sidebar CV the sidebar's
"Skills" heading lands between a role's title and its employer, and the main column's
roles are read as skills. Digital PDFs give each column as its own blocks and keep their
order. Built answers here; docs/extraction.md "Layout-23" says what each rule is for."""

from __future__ import annotations

from typing import Any

import pytest

from ats.extraction import _layout
from ats.extraction._history import date_ranges
from ats.extraction._rules import RegionEvidence, phones
from ats.extraction.api import extract
from tests.extraction.answers import pdf_answer
from tests.extraction.corpus import AS_OF

LEFT, RIGHT, WIDE = (30, 190), (240, 560), (30, 560)


def _ocr(*rows: tuple[tuple[tuple[int, int], str], ...], ocr: bool = True) -> dict[str, Any]:
    """A one-page answer whose lines come row by row, as OCR gives them: each row is its
    cells, each cell ((x0, x1), text) on that row's baseline."""
    blocks, y = [], 40
    for cells in rows:
        for (x0, x1), text in cells:
            line = {"bbox": [x0, y, x1, y + 12], "text": text, "size": 10.0}
            blocks.append({"page": 1, "bbox": line["bbox"], "text": text, "lines": [line]})
        y += 16
    return pdf_answer(blocks, ocr=ocr)


# A sidebar CV: contact and skills on the left, experience on the right.
SIDEBAR = (
    ((WIDE, "Jane Example"),),
    ((LEFT, "Contact"), (RIGHT, "Experience")),
    ((LEFT, "jane@example.org"), (RIGHT, "Data Engineer")),
    ((LEFT, "Skills"), (RIGHT, "Northwind Analytics GmbH, Berlin")),
    ((LEFT, "Python"), (RIGHT, "03/2019 - 12/2023")),
    ((LEFT, "Docker"), (RIGHT, "Built the ingestion pipelines")),
    ((LEFT, "Kubernetes"), (RIGHT, "Backend Developer")),
    ((LEFT, "Languages"), (RIGHT, "Contoso AG, Hamburg")),
    ((LEFT, "German"), (RIGHT, "01/2016 - 02/2019")),
)


def _texts(answer: dict[str, Any]) -> list[str]:
    return [ln.text for ln in _layout.lines_of(answer)]


def test_an_ocr_page_of_two_columns_is_read_column_by_column() -> None:
    texts = _texts(_ocr(*SIDEBAR))
    assert texts[0] == "Jane Example"  # the full-width line keeps its place
    sidebar = ["Contact", "jane@example.org", "Skills", "Python", "Docker", "Kubernetes", "Languages", "German"]
    assert texts[1:9] == sidebar
    assert texts[9] == "Experience"
    extraction = extract(_ocr(*SIDEBAR), as_of=AS_OF)
    roles = [(v["title"], v["employer"]) for v in extraction.values("work_history")]
    assert ("Data Engineer", "Northwind Analytics GmbH") in roles
    assert ("Backend Developer", "Contoso AG") in roles
    assert {"Python", "Docker", "Kubernetes"} <= set(extraction.values("skills"))


def test_a_digital_page_keeps_its_order() -> None:
    # A digital PDF's blocks are in column order already: the same rows stay as given.
    assert _texts(_ocr(*SIDEBAR, ocr=False))[1:4] == ["Contact", "Experience", "jane@example.org"]


def test_a_date_column_beside_its_roles_is_read_row_by_row() -> None:
    # Dates on the left of each role: a row's two cells belong together, so the page keeps
    # OCR's order (the rows' dates are then joined to their roles by their geometry).
    rows = (
        ((WIDE, "Experience"),),
        ((LEFT, "2019 - 2023"), (RIGHT, "Data Engineer, Northwind Analytics")),
        ((LEFT, "Berlin"), (RIGHT, "Built the ingestion pipelines")),
        ((LEFT, "2016 - 2019"), (RIGHT, "Backend Developer, Contoso")),
        ((LEFT, "Hamburg"), (RIGHT, "Wrote the billing service")),
        ((LEFT, "2014 - 2016"), (RIGHT, "Intern, Fabrikam")),
        ((LEFT, "Munich"), (RIGHT, "Tested the web shop")),
    )
    lines = _layout._pdf_lines(_ocr(*rows)["blocks"])
    assert [ln.text for ln in _layout._by_columns(list(lines))] == [ln.text for ln in lines]
    texts = _texts(_ocr(*rows))
    assert texts[1:3] == ["2019 - 2023  Data Engineer, Northwind Analytics", "Berlin"]


def test_a_line_run_a_glyph_over_the_gutter_stays_in_its_column() -> None:
    # "...langue mater- p": the OCR line of a sidebar entry took a glyph of the main column.
    rows = list(SIDEBAR[1:])  # a page of this size tolerates one line across the gutter, not two
    rows[4] = (((30, 250), "Docker, Podman (langue mater- p"), (RIGHT, "Built the ingestion pipelines"))
    texts = _texts(_ocr(*rows))
    left = texts.index("Docker, Podman (langue mater- p")
    assert texts.index("Kubernetes") == left + 1  # the sidebar is not cut in two there
    assert texts.index("Experience") > texts.index("German")


@pytest.mark.parametrize("text", ["Economics Tutorium (WS 2016-17)", "Research Seminar (WS 2019-20, SS 2020)"])
def test_a_terms_year_range_is_no_phone(text: str) -> None:
    # In a contact block (section "top"), where unlabelled national numbers are read.
    line = _layout.Line(text, 0, section="top")
    assert [f.value for f in phones([line], RegionEvidence(default="DE"))[0]] == []


def test_a_number_that_starts_like_a_year_is_still_a_phone() -> None:
    # Only a term written as a year and the next one or two ("2017-18") is passed over.
    number = _layout.Line("Mobil: 0151 2017 1845", 0, section="top")
    assert [f.value for f in phones([number], RegionEvidence(default="DE"))[0]] == ["+4915120171845"]


@pytest.mark.parametrize(
    ("text", "kind"),
    [("Ii) PROFESSIONAL EXPERIENCE", "experience"), ("a) Education", "education"), ("ś-)SKILLS", "skills")],
)
def test_a_headings_icon_read_as_letters_does_not_hide_it(text: str, kind: str) -> None:
    assert _layout.heading_kind(text) == kind


def test_a_bracketed_note_is_no_heading() -> None:
    assert _layout.heading_kind("(c) 2020 Jane Example") is None
    assert _layout.heading_kind("1) Built the ingestion pipelines") is None


# -- names on scans (h49) ---------------------------------------------------------------------


def _page(*lines: tuple[tuple[float, float, float, float], str]) -> dict[str, Any]:
    """An OCR'd one-page answer of the given lines, in this order."""
    blocks = [{"page": 1, "bbox": list(b), "text": t, "lines": [{"bbox": list(b), "text": t, "size": b[3] - b[1]}]}
              for b, t in lines]  # fmt: skip
    text = "\n".join(t for _, t in lines)
    return {"schema": 3, "kind": "pdf", "text": text, "blocks": blocks, "elements": [], "ocr_used": True}


CONTACT = ((42, 91, 552, 100), "(646) 344-2210 ° jane.roe@example.org ° Dallas TX")


@pytest.mark.parametrize(
    ("cells", "expected"),
    [
        # A letter-spaced name OCR cut at its wide gap.
        ((((234, 64, 273, 86), "Sean"), ((296, 64, 360, 86), "Bailey")), "Sean Bailey"),
        ((((54, 90, 169, 121), "Zach Van"), ((222, 90, 337, 121), "Handel")), "Zach Van Handel"),
        # Not a place beside the name, nor a heading before it.
        ((((54, 90, 200, 112), "Jane Roe"), ((230, 90, 300, 112), "Berlin")), "Jane Roe"),
        ((((65, 98, 176, 109), "PERSONAL INFORMATION"), ((188, 98, 259, 109), "Katie Smith")), "Katie Smith"),
    ],
)
def test_a_name_cut_on_its_row_is_joined(cells: tuple[Any, ...], expected: str) -> None:
    extraction = extract(_page(*cells, CONTACT), as_of=AS_OF)
    assert extraction.values("name") == [expected]


def test_a_place_is_no_name_and_a_speck_before_the_name_is_dropped() -> None:
    answer = _page(((60, 20, 200, 44), "Seattle. Wa"), ((60, 50, 300, 70), ".Pierce Jorgensen"), CONTACT)
    assert extract(answer, as_of=AS_OF).values("name") == ["Pierce Jorgensen"]


def test_a_grave_set_before_its_letter_goes_back_on_it() -> None:
    # TeX's old fonts: "VIGN`ERES" in the text layer; a code span keeps its backticks.
    answer = _page(((190, 41, 422, 67), "ROMAIN VIGN`ERES"), CONTACT)
    assert extract(answer, as_of=AS_OF).values("name") == ["Romain Vignères"]
    assert _layout._clean("I use `kubectl` daily") == "I use `kubectl` daily"


# -- earlier roles and their workload (h49) ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Other work experiences", "experience"),
        ("Previous Commercial Experience", "experience"),
        ("Weitere Berufserfahrung", "experience"),
        ("Other experience", "other"),  # the corpus's volunteering and side projects
    ],
)
def test_earlier_roles_under_their_own_heading_are_roles(text: str, kind: str) -> None:
    assert _layout.heading_kind(text) == kind


def test_a_roles_workload_is_not_its_employers_name() -> None:
    answer = _page(
        ((60, 20, 200, 40), "Jane Roe"),
        CONTACT,
        ((60, 120, 300, 134), "Other work experiences"),
        ((60, 140, 200, 150), "Computer technician"),
        ((300, 140, 380, 150), "09/2009–02/2014"),  # noqa: RUF001 - the CV's own dash
        ((80, 152, 220, 162), "MacWorks SàRL (20-50%)"),
    )
    roles = extract(answer, as_of=AS_OF).values("work_history")
    assert [(r["title"], r["employer"], r["start"]) for r in roles] == [
        ("Computer technician", "MacWorks SàRL", "2009-09")
    ]


def test_the_kind_of_post_and_what_it_was_are_one_title() -> None:
    answer = _page(
        ((60, 20, 200, 40), "Jane Roe"),
        CONTACT,
        ((60, 120, 300, 134), "Experience"),
        ((60, 140, 560, 152), "06/2016 - 08/2016  Internship - iOS developer (2 months), Lundi Matin, Montpellier"),
        ((80, 154, 500, 164), "Internationalised the cash register app."),
    )
    roles = extract(answer, as_of=AS_OF).values("work_history")
    assert [(r["title"], r["employer"], r["start"]) for r in roles] == [
        ("Internship - iOS developer", "Lundi Matin", "2016-06")
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Oct. 19 – Juin 24", ((2019, 10), (2024, 6))),  # noqa: RUF001 - the CV's own dash
        ("Août 24 – Présent", ((2024, 8), None)),  # noqa: RUF001 - the CV's own dash
        ("Sept. 14 - Oct. 15", ((2014, 9), (2015, 10))),
    ],
)
def test_month_names_with_two_digit_years_make_a_range(text: str, expected: tuple[Any, Any]) -> None:
    assert [(r.start, r.end) for r in date_ranges(text)] == [expected]


def test_a_month_name_and_a_number_alone_are_no_range() -> None:
    assert date_ranges("Top 10 - Best 20") == []
    assert date_ranges("Oct. 19") == []
    # with a full year on the line, its dates are read as ever
    assert [(r.start, r.end) for r in date_ranges("Jan 2019 - Mar 2020")] == [((2019, 1), (2020, 3))]


def test_a_french_title_with_en_keeps_it_and_a_used_list_is_no_employer() -> None:
    answer = _page(
        ((60, 20, 200, 40), "Jane Roe"),
        CONTACT,
        ((60, 120, 300, 134), "Expérience professionnelle"),
        ((60, 140, 120, 150), "Oct. 15 - Sept. 18"),
        ((133, 140, 540, 150), "Ingénieur en développement Web, Quividi (Python, Django, SQL, Elasticsearch)"),
        ((160, 152, 500, 162), "Développement d'un back office Python / Django."),
    )
    roles = extract(answer, as_of=AS_OF).values("work_history")
    assert [(r["title"], r["employer"], r["start"], r["end"]) for r in roles] == [
        ("Ingénieur en développement Web", "Quividi", "2015-10", "2018-09")
    ]


def test_a_phone_written_with_en_dashes_is_read() -> None:
    line = _layout.Line("jane@example.org | GitHub | 775–232–8142", 0, section="top")  # noqa: RUF001 - as printed
    assert [f.value for f in phones([line], RegionEvidence(default="US"))[0]] == ["+17752328142"]
    for text in ("Engineer 2019–2021", "03/2019 – 08/2019"):  # noqa: RUF001 - as printed
        assert [f.value for f in phones([_layout.Line(text, 0, section="top")], RegionEvidence(default="US"))[0]] == []


def test_a_chinese_cv_gives_its_national_number_chinas_region() -> None:
    # Written in Chinese with English tool names; the deployment's default is the US, where
    # "132-6262-0332" is a valid number too.
    summary = (
        "物理学专业直博研究生，有扎实的物理、数学与统计学基础，"  # noqa: RUF001 - Chinese punctuation
        "擅长数据建模与分析。熟练掌握 Shell、Python 和 C 语言编程。"
    )
    answer = _page(
        ((42, 40, 130, 60), "李维天"),
        ((42, 66, 130, 77), "132-6262-0332"),
        ((42, 80, 200, 90), "liweitianux@live.com"),
        ((42, 120, 553, 132), summary),
    )
    assert extract(answer, as_of=AS_OF, default_region="US").values("phones") == ["+8613262620332"]


def test_a_referees_address_under_no_references_heading_is_not_the_candidates() -> None:
    answer = _page(
        ((60, 20, 200, 40), "Jane Roe"),
        CONTACT,
        ((60, 120, 300, 134), "Publications"),
        ((100, 140, 400, 150), "Prof. Dr. Eckhard Hein, Berlin School of Economics and Law"),
        ((100, 152, 260, 162), "eckhard.hein@hwr-berlin.de"),
        ((100, 170, 300, 180), "Mail me at jane.roe@example.org"),
    )
    assert extract(answer, as_of=AS_OF).values("emails") == ["jane.roe@example.org"]


def test_a_month_its_date_left_behind_is_no_employer() -> None:
    # The range's end on the line below ("Sep 2016 -" over "Mar 2018"): its month is no part.
    answer = _page(
        ((60, 20, 200, 40), "Jane Roe"),
        CONTACT,
        ((131, 120, 200, 134), "Experience"),
        ((72, 140, 460, 151), "Sep 2016 –  Software Developer, Contoso, Lille."),  # noqa: RUF001 - as printed
        ((80, 154, 122, 165), "Mar 2018"),
        ((131, 170, 460, 181), "Wrote the billing service."),
    )
    roles = extract(answer, as_of=AS_OF).values("work_history")
    assert all(r["employer"] not in ("Sep", "Mar") and r["title"] not in ("Sep", "Mar") for r in roles)
    assert [(r["title"], r["employer"]) for r in roles] == [("Software Developer", "Contoso")]
