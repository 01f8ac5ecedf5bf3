"""Change set h54 (layout-28): rules for the development half's real documents' e-mail and
name misses. Built answers here; docs/extraction.md, "Change set h54 (layout-28)", says what
each rule is for and what it moved on development."""

from __future__ import annotations

from typing import Any

from ats.extraction.api import extract
from tests.extraction.answers import Row, name_of, pdf_answer, rows_answer, styled_block
from tests.extraction.corpus import AS_OF
from tests.extraction.test_layouts import docx


def _scan(*rows: Row) -> dict[str, Any]:
    return rows_answer(rows, ocr=True)


def _pdf(*rows: Row) -> dict[str, Any]:
    return rows_answer(rows, ocr=False)


def _emails(answer: dict[str, Any]) -> list[str]:
    return list(extract(answer, as_of=AS_OF).values("emails"))


def test_an_at_sign_ocr_read_as_a_letter_before_a_known_provider_is_an_at_sign() -> None:
    answer = _scan(
        ((71, 106, 160, 116), "Samuel Example", 12.5),
        ((71, 130, 164, 140), "| samexampleQgmail.com", 9.6),
        ((168, 130, 267, 140), "| linkedin.com/in/sexample", 9.1),
    )
    assert _emails(answer) == ["samexample@gmail.com"]
    source = extract(answer, as_of=AS_OF).fields["emails"][0].sources[0]
    assert (source.rule, source.text) == ("email.ocr_at", "samexampleQgmail.com")
    # a zero for the "@": the local part keeps its own digits
    answer = _scan(((54, 70, 213, 83), "Z spiffy770gmail.com", 17.9))
    assert _emails(answer) == ["spiffy77@gmail.com"]


def test_no_at_sign_is_read_into_a_word_or_an_unknown_domain_or_a_text_layer() -> None:
    # a lower-case "o" is a letter ("foo" + "gmail.com" is no address), an unknown domain
    # proves nothing, nor does a digital text layer (it has the "@" when there is one)
    for text in ("fooogmail.com", "janeQexample.org", "janeQgmail.com.br"):
        assert _emails(_scan(((54, 70, 213, 83), "Jane Example", 18.0), ((54, 90, 213, 100), text, 10.0))) == []
    assert _emails(_pdf(((54, 70, 213, 83), "Jane Example", 18.0), ((54, 90, 213, 100), "janeQgmail.com", 10.0))) == []


def test_a_glyph_before_the_name_and_the_space_after_it_are_no_part_of_it() -> None:
    # an icon's glyph OCR read as "=" glued to the name; a speck, a space, and a name whose
    # text layer lost the space between its words
    for text, meant in (("=Pierce Example", "Pierce Example"), (". AndréExample", "André Example")):
        answer = _scan(
            ((44, 45, 239, 87), text, 32.7),
            ((45, 95, 180, 106), "Z pexample@gmail.com", 14.7),
        )
        assert name_of(answer) == meant


def test_a_rule_drawn_as_a_dash_or_a_product_in_camel_case_is_no_name() -> None:
    # "—" (a rule, stripped to nothing) beside a heading does not make the heading a name;
    # "© GitHub" is an icon and a product, not "Git Hub"
    answer = _scan(
        ((62, 68, 204, 90), "Helge Example", 23.1),
        ((60, 166, 147, 176), "—", 42.1),
        ((157, 166, 305, 176), "Persönliche Informationen", 11.0),
    )
    assert name_of(answer) == "Helge Example"
    # moderncv's rule before a heading, read by OCR as a dash on the heading's line
    answer = _scan(
        ((62, 68, 204, 90), "Helge Example", 23.1),
        ((60, 166, 147, 176), "— Persönliche Informationen", 29.7),
    )
    assert name_of(answer) == "Helge Example"
    answer = _scan(((74, 76, 200, 126), "D", 33.9), ((374, 132, 419, 141), "| © GitHub", 11.6))
    assert name_of(answer) is None


def test_a_sentence_ending_on_a_name_with_an_at_sign_is_no_address_broken_at_its_dot() -> None:
    answer = _pdf(
        ((14, 21, 165, 46), "Paul Example", 24.8),
        ((48, 121, 174, 131), "paul.example@gmail.com", 10.0),
        ((215, 600, 567, 610), "Data published on ResearchSpace@Auckland.", 10.0),
        ((215, 612, 567, 622), "Example, P. & Shepherd, J. (2020). Data Acquisition with Python.", 10.0),
    )
    assert _emails(answer) == ["paul.example@gmail.com"]
    # a domain broken after its dot still joins
    answer = _pdf(
        ((14, 21, 165, 46), "Paul Example", 24.8),
        ((48, 121, 174, 131), "paul.example@example.", 10.0),
        ((48, 133, 174, 143), "org", 10.0),
    )
    assert _emails(answer) == ["paul.example@example.org"]


def test_a_phone_numbers_last_group_glued_to_a_web_address_is_no_mailbox() -> None:
    answer = _scan(
        ((198, 70, 394, 88), "JOHN EXAMPLE", 21.8),
        ((60, 107, 152, 116), "johnexample@gmail.com", 9.5),
        ((174, 107, 314, 116), "(+1) 987 6543210@johnexample.com", 10.6),
    )
    assert _emails(answer) == ["johnexample@gmail.com"]
    # a mailbox named by digits after a label is one
    answer = _scan(((198, 70, 394, 88), "Wang Example", 21.8), ((60, 107, 252, 116), "QQ: 123456@qq.com", 9.5))
    assert _emails(answer) == ["123456@qq.com"]


def test_the_candidates_footer_after_references_on_request_is_the_candidates() -> None:
    rows = [
        ((36, 40, 236, 67), "James Example", 24.0),
        ((36, 80, 236, 92), "https://james.example.info/", 10.0),
        ((36, 110, 236, 124), "Education", 14.0),
        ((36, 130, 400, 142), "B.Sc., Mathematics; Clayton State University", 10.0),
        ((36, 160, 236, 174), "References", 14.0),
        ((36, 180, 236, 192), "Available upon request", 10.0),
        ((36, 200, 400, 212), "james.example@gmail.com • (404) 939 – 3576", 10.0),  # noqa: RUF001 - as printed
    ]
    assert _emails(_pdf(*rows)) == ["james.example@gmail.com"]
    # a referee listed under the heading stays a referee
    rows[5] = ((36, 180, 236, 192), "Dr. Ann Referee, University of Somewhere", 10.0)
    assert _emails(_pdf(*rows)) == []


def test_an_address_whose_first_letter_the_text_layer_gave_to_the_label_before_it_is_whole() -> None:
    rows: list[Row] = [
        ((38, 44, 237, 68), "MARISSA EXAMPLE", 24.8),
        ((39.9, 92.3, 56.6, 100.7), "email: m", 8.0),
        ((56.6, 92.7, 137.3, 100.7), "mexample@yahoo-inc.com", 8.0),
    ]
    assert _emails(_pdf(*rows)) == ["mmexample@yahoo-inc.com"]
    # a gap between them (a space drawn, or the next cell) leaves the label's text out
    rows[2] = ((60.6, 92.7, 141.3, 100.7), "mexample@yahoo-inc.com", 8.0)
    assert _emails(_pdf(*rows)) == ["mexample@yahoo-inc.com"]
    rows[1] = ((39.9, 92.3, 56.6, 100.7), "Email", 8.0)
    rows[2] = ((56.6, 92.7, 137.3, 100.7), "mexample@yahoo-inc.com", 8.0)
    assert _emails(_pdf(*rows)) == ["mexample@yahoo-inc.com"]


def test_a_space_ocr_set_before_a_dot_of_the_local_part_is_no_part_of_the_address() -> None:
    rows: list[Row] = [
        ((78, 86, 211, 97), "Pablo Example Tejada", 11.1),
        ((78, 160, 218, 170), "pablo .example@gmail.com", 10.1),
    ]
    assert _emails(_scan(*rows)) == ["pablo.example@gmail.com"]
    rows[1] = ((78, 160, 218, 170), "Email .example@gmail.com", 10.1)
    assert _emails(_scan(*rows)) == ["example@gmail.com"]
    rows[1] = ((78, 160, 218, 170), "pablo .example@gmail.com", 10.1)
    source = extract(_scan(*rows), as_of=AS_OF).fields["emails"][0].sources[0]
    assert (source.rule, source.text) == ("email.ocr_repair", "pablo .example@gmail.com")


def test_a_spaced_dash_parts_the_name_from_its_tagline() -> None:
    answer = _pdf(
        ((180, 42, 430, 55), "ARTHUR L. – Software Engineer | Web3 Specialist", 11.0),  # noqa: RUF001 - as printed
        ((229, 59, 382, 68), "Nice, FR | arthur@proton.me | GitHub", 8.5),
    )
    assert name_of(answer) == "Arthur L."


def test_a_name_glued_into_one_word_is_cut_where_the_address_names_its_part() -> None:
    rows: list[Row] = [
        ((74, 19, 538, 76), "andreasexamplehaeuser", 49.8),
        ((232, 70, 380, 86), "cloud solution architect", 13.9),
        ((52, 137, 159, 148), "examplehaeuser@gmail.com", 10.0),
    ]
    assert name_of(_pdf(*rows)) == "Andreas Examplehaeuser"
    # an address that names no part of the word leaves it alone
    rows[2] = ((52, 137, 159, 148), "contact@gmail.com", 10.0)
    assert name_of(_pdf(*rows)) is None


def test_a_capital_ocr_parted_from_the_family_names_second_line_joins_it() -> None:
    answer = _scan(
        ((15, 24, 141, 42), "JOHN PAUL", 23.5),
        ((16, 44, 119, 64), "N EXAMPLE", 23.5),
        ((15, 77, 150, 90), "Senior Software Engineer", 12.3),
    )
    assert name_of(answer) == "John Paul Nexample"


def test_a_title_style_the_docx_gives_its_headings_says_nothing_of_the_name() -> None:
    body = [
        ("body", "Andy K. Example", {}),
        ("body", "Frontend Lead with a DevOps / security background.", {}),
        ("body", "andy@example.com", {"style": "Heading2"}),
        ("body", "Professional Experience", {"style": "Title"}),
        ("body", "Frontend Lead, Initech  2019 – 2022", {}),  # noqa: RUF001 - as printed
        ("body", "Open Source", {"style": "Title"}),
        ("body", "Maintainer of a date library.", {}),
    ]
    assert name_of(docx(*body)) == "Andy K. Example"
    # one "Title" line is the name's style, and wins over the first line
    answer = docx(("body", "Resume Builder Pro", {}), ("body", "Jane Example", {"style": "Title"}))
    assert name_of(answer) == "Jane Example"


def test_the_second_half_of_a_name_ocr_cut_on_its_row_is_no_name_of_its_own() -> None:
    answer = _scan(
        ((163, 48, 226, 66), "JAKUB", 21.4),
        ((253, 48, 431, 66), "T. EXAMPLEWICZ", 23.4),
        ((113, 79, 180, 88), "jakub@example.pl", 8.7),
    )
    assert name_of(answer) == "Jakub T. Examplewicz"


def test_a_names_second_line_below_it_is_found_past_the_contact_columns_lines() -> None:
    # a scan: the right-hand contact column's line and a speck come between the two in
    # reading order, and the OCR's sizes differ by a few points
    rows: list[Row] = [
        ((56.9, 58.1, 226.1, 74.6), "André Example", 20.5),
        ((395.4, 58.1, 537.5, 74.6), "* andre@example-kuschnereit.de", 12.3),
        ((167.9, 87.6, 171.3, 90.9), ".", 4.8),
        ((393.5, 78.9, 532.8, 110.4), "e linkedin.com/in/andre-example", 21.8),
        ((57.8, 78.9, 178.8, 110.4), "Kuschnereit", 26.3),
    ]
    assert name_of(_scan(*rows)) == "André Example Kuschnereit"
    # a document title below the name is no part of it
    rows[4] = ((57.8, 78.9, 178.8, 110.4), "Lebenslauf", 22.3)
    assert name_of(_scan(*rows)) == "André Example"


def test_an_initial_after_the_names_on_the_names_own_line_is_part_of_the_name() -> None:
    blocks = [
        styled_block((50, 57, 376, 93), "Karan Kumar Example R", 36.0),
        styled_block((50, 101, 413, 143), "Detail-oriented, analytical, and self-driven programmer.", 9.0),
        styled_block((460, 73, 558, 82), ": karanexample.r@gmail.com", 9.0),
    ]
    assert name_of(pdf_answer(blocks, ocr=False)) == "Karan Kumar Example R"
    # a lone capital at the end of an OCR'd line is as often an icon: not read as an initial -
    # cut off as one (layout-39: "JEFFERSON SILVA Q", an icon after a name on a scan)
    ocr = pdf_answer([{**b, "lines": [{**b["lines"][0], "runs": None}]} for b in blocks], ocr=True)
    assert name_of(ocr) == "Karan Kumar Example"
    # nor after a single word ("Langues M")
    blocks[0] = styled_block((50, 57, 376, 93), "Langues M", 36.0)
    assert name_of(pdf_answer(blocks, ocr=False)) is None


def test_an_icon_ocr_read_as_a_letter_before_the_name_is_no_part_of_it() -> None:
    answer = _scan(
        ((74, 76, 300, 126), "D ABDULLAH EXAMPLE", 33.9),
        ((194, 132, 315, 141), "@ abdullahexample11@hotmail.com", 8.9),
    )
    assert name_of(answer) == "Abdullah Example"
    # a letter before a single word is still no name ("E Experience")
    assert name_of(_scan(((74, 76, 300, 126), "E Experience", 33.9))) is None


def test_an_ocr_address_with_the_at_signs_look_alike_read_before_it_too_is_the_same_address() -> None:
    answer = _scan(
        ((246, 45, 455, 73), "Ivan Example", 29.5),
        ((270, 90, 359, 98), "MAIL: me@ivanexample.com", 8.6),
        ((270, 120, 359, 128), "MAIL: meQ@ivanexample.com", 8.4),
    )
    assert _emails(answer) == ["me@ivanexample.com"]
    # two mailboxes that differ otherwise are both kept
    answer = _scan(
        ((246, 45, 455, 73), "Ivan Example", 29.5),
        ((270, 90, 359, 98), "MAIL: me@ivanexample.com", 8.6),
        ((270, 120, 359, 128), "MAIL: mex@ivanexample.com", 8.4),
    )
    assert _emails(answer) == ["me@ivanexample.com", "mex@ivanexample.com"]
