"""Layout-32 (stop 47): rules written on the development half's real documents (held-out v11
not read). Built answers here; docs/extraction.md, "Change set layout-32", says what each
rule is for and what it moved on development."""

# ruff: noqa: RUF001, RUF003 (CV text has typographic dashes)
from __future__ import annotations

from ats.extraction import _lexicon as lex
from ats.extraction._history import date_ranges
from ats.extraction._layout import is_place
from ats.extraction.api import extract
from tests.extraction.answers import Row, pdf_answer, roles, rows_answer, styled_block
from tests.extraction.corpus import AS_OF


def test_a_role_held_in_two_places_has_them_as_its_location() -> None:
    # deedy's résumé: "Jan 2013 – May 2013 | Palo Alto, CA & Ithaca, NY" under "PHABRICATOR |
    # Open Source Contributor & Team Leader" read as a role "Palo Alto" at "CA & Ithaca"
    # (on the newcomer's candidate page, stop 46)
    answer = rows_answer(
        (
            ((217, 30, 400, 50), "Jane Example", 20.0),
            ((217, 80, 330, 96), "EXPERIENCE", 15.9),
            ((217, 246, 431, 258), "GOOGLE | Software Engineering Intern", 11.9),
            ((217, 259, 422, 269), "May 2013 – Aug 2013 | Mountain View, CA", 9.9),
            ((232, 274, 566, 284), "• Worked on the YouTube Captions team.", 9.9),
            ((217, 332, 538, 344), "PHABRICATOR | Open Source Contributor & Team Leader", 11.9),
            ((217, 345, 453, 355), "Jan 2013 – May 2013 | Palo Alto, CA & Ithaca, NY", 9.9),
            ((232, 360, 572, 370), "• Phabricator is used daily by Facebook, Dropbox and more.", 9.9),
        ),
        ocr=False,
    )
    assert roles(answer) == [
        ("Software Engineering Intern", "GOOGLE", "2013-05"),
        ("Open Source Contributor & Team Leader", "PHABRICATOR", "2013-01"),
    ]


def test_two_places_joined_are_a_place_and_an_organisation_joined_is_not() -> None:
    assert is_place("Palo Alto, CA & Ithaca, NY")
    assert is_place("London / Remote")
    assert is_place("Berlin and Munich")
    assert not is_place("Ernst & Young, London")
    assert not is_place("Marks and Spencer")
    assert not is_place("Palo Alto, CA & Team Leader")


def test_a_portuguese_range_reads_ate_as_its_separator() -> None:
    (found,) = date_ranges("Desenvolvedor, Totvs, março 2019 até junho 2021")
    assert (found.start, found.end) == ((2019, 3), (2021, 6))


def test_a_line_breaks_only_after_a_separator_a_range_reads() -> None:
    # one home for a range's separators (lexicon): the words a line may end on are among them
    assert set(lex.SEPARATORS_AT_LINE_END) <= lex.RANGE_SEPARATORS


def _name(*rows: Row, styled: bool = False) -> str | None:
    if styled:
        answer = pdf_answer([styled_block(bbox, text, size) for bbox, text, size in rows], ocr=False)
    else:
        answer = rows_answer(rows, ocr=True)
    names = extract(answer, as_of=AS_OF).values("name")
    return names[0] if names else None


def test_a_documents_title_read_as_a_glued_name_is_no_name() -> None:
    # Europass's logo on a 300 dpi scan read "XeuropasSs" in the largest type, split as a
    # glued name "Xeuropas Ss"; the name is in the personal-information block below
    assert (
        _name(
            ((53, 41, 175, 71), "XeuropasSs", 33.5),
            ((192, 41, 262, 71), "Curriculum vitae", 16.6),
            ((192, 101, 254, 112), "Mario Rossi", 11.0),
            ((192, 177, 315, 195), "mario.rossi@example.org", 11.0),
        )
        == "Mario Rossi"
    )


def test_a_name_labels_cell_names_the_line_beside_it_and_a_contact_label_is_no_name() -> None:
    # europecv's Europass sample: the label column's lines and the values' lines are lines
    # of their own; "Personal Email" (a label) was read as the name, "Pythagoras" (one name,
    # the label says so) was not a name at all
    rows = (
        ((124, 91, 191, 105), "Europass", 14.3),
        ((60, 110, 191, 124), "Curriculum Vitae", 14.3),
        ((68, 221, 191, 233), "Personal information", 12.0),
        ((116, 246, 191, 256), "Name / Surname", 10.0),
        ((216, 245, 282, 257), "Pythagoras", 12.0),
        ((147, 297, 191, 307), "Telephone", 10.0),
        ((216, 297, 287, 307), "+30 2273012345", 10.0),
        ((125, 331, 191, 341), "Personal Email", 10.0),
        ((216, 331, 321, 341), "pythagoras@home.example", 10.0),
    )
    assert _name(*rows) == "Pythagoras"
    nome = ((100, 246, 191, 256), "Nome(i) / Cognome(i)", 10.0), ((216, 245, 300, 257), "Pitagora", 12.0)
    assert _name(*nome) == "Pitagora"
    # no label beside it: one word is no name
    assert _name(((216, 245, 282, 257), "Pythagoras", 12.0), ((125, 331, 191, 341), "Personal Email", 10.0)) is None
