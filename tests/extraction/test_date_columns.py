"""TeX CV classes' layouts (issue 25, held-out v2's weakest): dates in a column of their own,
degrees dated by one date, and the numbers on such CVs that are not the candidate's phone."""

# ruff: noqa: RUF001 (CV text has typographic dashes)
from __future__ import annotations

from datetime import date
from typing import Any

from ats.extraction import eval as evaluation
from ats.extraction._layout import date_cell, join_date_rows, lines_of
from ats.extraction.api import extract

AS_OF = date(2026, 11, 1)


def _pdf(*blocks: list[tuple[float, float, str]]) -> dict[str, Any]:
    """A one-page PDF answer: each block a list of (x0, y0, text) lines, in reading order."""
    out = []
    for block in blocks:
        lines = [{"bbox": [x, y, x + 5.5 * len(t), y + 12], "text": t, "size": 10.0} for x, y, t in block]
        x0 = min(ln["bbox"][0] for ln in lines)
        bbox = [x0, lines[0]["bbox"][1], max(ln["bbox"][2] for ln in lines), lines[-1]["bbox"][3]]
        out.append({"page": 1, "bbox": bbox, "text": "\n".join(t for _, _, t in block), "lines": lines})
    return {"schema": 2, "kind": "pdf", "text": "\n".join(b["text"] for b in out), "blocks": out, "elements": []}


def _values(answer: dict[str, Any], name: str) -> list[Any]:
    return [fv.value for fv in extract(answer, as_of=AS_OF).fields.get(name, [])]


# The text layer of a cv4tw / moderncv page: the heading and the name, then the date column
# as one block, then the text column as another - far apart in reading order.
DATE_COLUMN = _pdf(
    [(60, 40, "Ada Lovelace"), (60, 56, "ada@example.org")],
    [(200, 90, "Experience")],
    [(60, 110, "2019 – now"), (60, 124, "Berlin"), (60, 170, "03/2015 - 06/2019")],
    [
        (170, 110, "Lead Data Engineer, Northwind Analytics"),
        (170, 124, "Built the pipelines that feed every dashboard and report."),
        (170, 170, "Software Engineer, Globex GmbH"),
    ],
)


def test_a_date_column_dates_the_entry_beside_it() -> None:
    history = _values(DATE_COLUMN, "work_history")
    assert [(h["title"], h["employer"], h["start"], h["end"]) for h in history] == [
        ("Lead Data Engineer", "Northwind Analytics", "2019", "present"),
        ("Software Engineer", "Globex GmbH", "2015-03", "2019-06"),
    ]


def test_the_joined_line_keeps_the_date_column_place_and_both_boxes() -> None:
    lines = lines_of(DATE_COLUMN)
    joined = next(ln for ln in lines if ln.text.startswith("2019"))
    assert joined.text == "2019 – now  Lead Data Engineer, Northwind Analytics"
    assert joined.section == "experience"
    assert joined.bbox is not None and joined.bbox[0] == 60 and joined.bbox[2] > 170
    assert [ln.n for ln in lines] == list(range(len(lines)))


def test_dates_flush_right_join_the_line_left_of_them() -> None:
    answer = _pdf(
        [(60, 40, "Ada Lovelace")],
        [(60, 90, "Work Experience")],
        [(60, 110, "Data Engineer, Northwind Analytics"), (460, 110, "Jan 2020 – Mar 2023"), (60, 124, "Did things.")],
    )
    history = _values(answer, "work_history")
    assert [(h["employer"], h["start"], h["end"]) for h in history] == [("Northwind Analytics", "2020-01", "2023-03")]


def test_a_sidebar_line_level_with_a_date_in_the_body_is_not_joined() -> None:
    # The body's dates sit under "Title, Employer" (left-aligned with it); the sidebar's
    # languages happen to be on the same row, left of them: another column's line.
    answer = _pdf(
        [(40, 60, "Languages"), (40, 200, "Polish (native), English (B2)")],
        [(220, 60, "Ada Lovelace"), (220, 150, "Experience"), (220, 180, "Site Reliability Engineer, Globex GmbH")],
        [(220, 200, "Oct 2020 – May 2025"), (220, 214, "Kept the lights on.")],
        [(500, 400, "x")],  # the page's right edge is far right of the body's dates
    )
    texts = [ln.text for ln in join_date_rows(lines_of(answer))]
    assert "Oct 2020 – May 2025" in texts
    history = _values(answer, "work_history")
    assert [(h["employer"], h["start"]) for h in history] == [("Globex GmbH", "2020-10")]


def test_what_counts_as_a_date_cell() -> None:
    for text in ("1888-1905", "since 2019", "Mar 2019 – now", "2015 / 07", "Sept 2002 – June 2006", "Juin 1997"):
        assert date_cell(text), text
    for text in ("Founded 2019 in Berlin", "2019 – now Lead Engineer", "Phone: 2019 3344", "Summer school"):
        assert not date_cell(text), text


def test_a_degree_dated_by_one_date_is_an_entry_and_its_aside_stays_with_it() -> None:
    answer = _pdf(
        [(60, 40, "Jean Dupont")],
        [(60, 90, "Formation")],
        [(60, 110, "Septembre 2007"), (60, 140, "Juin 1997")],
        [
            (160, 110, "C2I N2E, Certificat Informatique et Internet"),
            (160, 124, "(IUFM Mérignac)"),
            (160, 140, "Licence de Mathématiques pures"),
            (160, 154, "(Université Bordeaux 1)"),
        ],
    )
    entries = _values(answer, "education_entries")
    assert [(e["end"], e["institution"]) for e in entries] == [
        ("2007-09", "Certificat Informatique et Internet"),
        ("1997-06", "Université Bordeaux 1"),
    ]


def test_a_fax_number_and_a_patent_number_are_no_phones() -> None:
    answer = {
        "text": "Philipp Maier\nThe Netherlands\nPhone: +31-50-313.7020\nFax: +31-50-363.7337\n"
        "pmaier@example.org\nExperience\nEngineer, Acme BV, 2015 - 2019\nUS Patent 11,234,567 (2021)\n"
        "Holder of patent 050 3637337 on valves"
    }
    assert _values(answer, "phones") == ["+31503137020"]


def test_an_international_number_outside_the_contact_block_is_still_read() -> None:
    answer = {"text": "Jan Kowalski\njan@example.org\nExperience\nEngineer, Acme\nReach me on +48 512 345 678"}
    assert _values(answer, "phones") == ["+48512345678"]


def test_a_phone_truth_kept_as_written_is_not_scored_even_with_a_plus() -> None:
    tally = evaluation.compare("phones", ["+353555123555"], ["+353 555 123 555"])
    assert (tally.tp, tally.predicted, tally.truth) == (0, 0, 0)
    tally = evaluation.compare("phones", ["+31503637337"], ["+31503137020"])
    assert (tally.tp, tally.predicted, tally.truth) == (0, 1, 1)


def _names(*lines: tuple[float, float, float, str]) -> list[Any]:
    """Top-of-page lines (x0, y0, font size, text), each its own block."""
    blocks = []
    for x, y, size, text in lines:
        bbox = [x, y, x + 0.6 * size * len(text), y + 1.2 * size]
        blocks.append({"page": 1, "bbox": bbox, "text": text, "lines": [{"bbox": bbox, "text": text, "size": size}]})
    answer = {"schema": 2, "kind": "pdf", "text": "", "blocks": blocks, "elements": []}
    return _values(answer, "name")


def test_names_as_tex_classes_text_layers_give_them() -> None:
    # Europass: the section label and the name on one row.
    assert _names((60, 90, 10, "PERSONAL INFORMATION Katie Smith"), (200, 120, 9, "12 Strawberry Hill")) == [
        "Katie Smith"
    ]
    # A name hyphenated over two lines.
    assert _names((90, 120, 28, "Minna von Barn-"), (90, 150, 28, "helm"), (90, 185, 12, "Dr. h. c. mult.")) == [
        "Minna von Barnhelm"
    ]
    # The space between given and family name lost; a degree under it in smaller type.
    assert _names((90, 170, 30, "JaneEyre"), (90, 216, 14, "B. Ed.")) == ["Jane Eyre"]
    # Given and family name stacked, flush right.
    assert _names((518, 48, 24, "Jules"), (509, 78, 24, "Verne"), (40, 160, 10, "More than 50 novels")) == [
        "Jules Verne"
    ]


def test_a_letterhead_line_that_starts_with_the_name() -> None:
    line = "Jean DUPONT 3, rue de la liberté - 33000 BORDEAUX - Tél. 05.56.31.32.33. Email : contact@mathweb.fr"
    assert _names((48, 14, 10, line), (211, 57, 20, "15 ans d'expérience")) == ["Jean Dupont"]
    # Without an address of the candidate's on it, a street is no name.
    assert _names((48, 14, 10, "Am Markt 5, 10115 Berlin")) == []


def test_a_letterhead_whose_address_fell_to_the_next_line() -> None:
    # On a scan of that letterhead OCR put its e-mail on a line of its own: the street
    # number after two capitalised words tells the letterhead too.
    line = "Jean DUPONT 3, rue de la liberté - 33000 BORDEAUX - Tél. 05.56.31.32.33. Email"
    assert _names((48, 14, 10, line), (48, 26, 9, "contact@mathweb.fr"), (211, 57, 20, "15 ans d'expérience")) == [
        "Jean Dupont"
    ]
    # A birth date is no letterhead: "Né le" is one capital and a particle, not a name.
    assert _names((48, 14, 10, "Né le 12 avril 1975 à Bordeaux")) == []


def test_a_name_that_needs_no_repair_is_left_alone() -> None:
    assert _names((90, 120, 24, "McDonald"), (90, 150, 12, "Sales Director")) == []
    assert _names((90, 120, 24, "Anna Schmidt"), (90, 150, 24, "Berlin")) == ["Anna Schmidt"]


def test_a_word_hyphenated_over_two_lines_and_a_wrapped_header_are_one_line() -> None:
    answer = _pdf(
        [(60, 40, "Jean Dupont")],
        [(60, 90, "Expérience professionnelle")],
        [(60, 110, "2003 - 2006"), (60, 150, "2000 - 2004")],
        [
            (140, 110, "Enseignant vacataire puis contractuel en Mathématiques, Education Na-"),
            (140, 122, "tionale"),
            (140, 150, "Enseignant vacataire en Mathématiques, ONAC, Lycées privés hors"),
            (140, 162, "contrat ACADIS"),
        ],
    )
    texts = [ln.text for ln in lines_of(answer)]
    assert "2003 - 2006  Enseignant vacataire puis contractuel en Mathématiques, Education Nationale" in texts
    assert "2000 - 2004  Enseignant vacataire en Mathématiques, ONAC, Lycées privés hors contrat ACADIS" in texts
    history = _values(answer, "work_history")
    assert (history[0]["employer"], history[0]["start"]) == ("Education Nationale", "2003")


def test_list_items_labels_and_ocr_bullets_are_not_wrapped_lines() -> None:
    answer = _pdf(
        [
            (60, 40, "Skills"),
            (60, 54, "Git, MySQL, FastAPI, C++, Figma, Kubernetes, Terraform,"),
            (60, 66, "dbt, Helm"),
            (60, 90, "Site Reliability Engineer at Umbrella Analytics since 2019"),
            (60, 102, "e Migrated the platform to Jenkins"),
        ]
    )
    texts = [ln.text for ln in lines_of(answer)]
    assert "dbt, Helm" in texts
    assert "e Migrated the platform to Jenkins" in texts


def test_title_at_the_employer_in_a_town() -> None:
    text = (
        "Philipp Maier\nWorking Experience\n03/1995–04/1995 Internship at the Office for Regional Statistics in Y-Town"
    )
    history = _values({"text": text}, "work_history")
    assert [(h["title"], h["employer"], h["start"]) for h in history] == [
        ("Internship", "Office for Regional Statistics", "1995-03")
    ]
