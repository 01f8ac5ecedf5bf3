"""Change set layout-45 (stop 60): e-mail addresses a text layer breaks without breaking
the line, and OCR'd headings; change set layout-46 (the last two tests): a Brazilian town and
its state after a dash (docs/extraction.md, "Change sets layout-45 and layout-46"). Invented
text in the showing documents' geometry; each test but the guards fails on the layout before."""

# ruff: noqa: RUF001 - the en dashes are what these documents hold

from __future__ import annotations

from typing import Any

from ats.extraction._layout import is_place, lines_of
from ats.extraction.api import extract
from tests.extraction.answers import Row, emails_of, roles, rows_answer, styled_answer
from tests.extraction.corpus import AS_OF


def _pdf(*rows: Row) -> dict[str, Any]:
    return rows_answer(rows, ocr=False)


def test_an_underscore_drawn_as_a_rule_is_put_back_between_two_name_words() -> None:
    # obiwankeoni, silvioschwarz: LaTeX's "\_" is a rule, so the text layer has a space
    answer = _pdf(
        ((36, 35, 133, 49), "Kailani Mercer", 14.0),
        ((418, 37, 576, 48), "Email : kailani mercer@example.com", 9.0),
        ((36, 51, 152, 62), "https://kailanimercer.dev", 9.0),
    )
    assert emails_of(answer) == ["kailani_mercer@example.com"]
    source = extract(answer, as_of=AS_OF).fields["emails"][0].sources[0]
    assert (source.rule, source.text) == ("email.underscore_rule", "kailani mercer@example.com")
    # the name glued in the text layer, drawn last, after an icon glyph
    answer = _pdf(
        ((32, 145, 142, 156), "\ufffdjonas weber@example.de", 9.0),
        ((43, 160, 130, 170), "\ufffd+49 174 6507598", 9.0),
        ((186, 8, 339, 33), "JonasWeber", 22.0),
    )
    assert emails_of(answer) == ["jonas_weber@example.de"]


def test_a_word_before_an_address_that_is_not_the_name_stays_out_of_it() -> None:
    # guards: a label, a word that is not the person's, a role's text
    answer = _pdf(
        ((36, 35, 133, 49), "Kailani Mercer", 14.0),
        ((418, 37, 576, 48), "email mercer@example.com", 9.0),
        ((418, 52, 576, 63), "write to support mercer@example.org", 9.0),
    )
    assert emails_of(answer) == ["mercer@example.com", "mercer@example.org"]
    # an OCR'd page's space may be a dot OCR lost: no separator is guessed there
    answer = rows_answer(
        [((36, 35, 133, 49), "Kailani Mercer", 14.0), ((418, 37, 576, 48), "Email : kailani mercer@example.com", 9.0)],
        ocr=True,
    )
    assert "kailani_mercer@example.com" not in emails_of(answer)


def test_a_space_before_the_top_level_domain_is_closed() -> None:
    # aaronzi: AltaCV's icon font spaces "aaron@zielstorff .com"
    answer = _pdf(
        ((180, 42, 426, 67), "LENA HARTMANN", 24.0),
        ((182, 90, 280, 100), "\\ faAt : lena@hartmann-web .com", 9.0),
        ((316, 91, 390, 100), "+49-30-62963482", 9.0),
    )
    assert emails_of(answer) == ["lena@hartmann-web.com"]
    # guard: a sentence's next word after an address with its own domain is not a domain
    answer = _pdf(
        ((180, 42, 426, 67), "Lena Hartmann", 24.0),
        ((182, 90, 480, 100), "Write to lena@hartmann.de .Net developer", 9.0),
    )
    assert emails_of(answer) == ["lena@hartmann.de"]


def _scan(*rows: Row) -> dict[str, Any]:
    return rows_answer(rows, ocr=True)


def _sections(answer: dict[str, Any]) -> dict[str, str]:
    return {ln.text: ln.section for ln in lines_of(answer)}


def test_a_rule_ocr_read_left_of_a_heading_does_not_make_it_a_word_of_a_row() -> None:
    # helgee (moderncv, scanned): the class draws a rule left of each heading; OCR reads "—"
    answer = _scan(
        ((62, 68, 204, 90), "Lena Hartmann", 22.0),
        ((60, 166, 147, 176), "—", 10.0),
        ((157, 166, 305, 176), "Persönliche Informationen", 12.8),
        ((60, 223, 147, 236), "—", 12.0),
        ((157, 223, 248, 236), "Berufserfahrung", 12.8),
        ((157, 242, 290, 253), "Principal Software Engineer", 10.0),
        ((102, 259, 268, 268), "seit 9.2020  Northwind Raumfahrt GmbH", 9.0),
        ((60, 300, 147, 312), "—", 12.0),
        ((157, 300, 248, 312), "Ausbildung", 12.8),
    )
    sections = _sections(answer)
    assert sections["Principal Software Engineer"] == "experience"
    assert sections["Ausbildung"] == "education"
    assert roles(answer) == [("Principal Software Engineer", "Northwind Raumfahrt GmbH", "2020-09")]
    # guard: a word just left of a heading's word on its row still makes it a row's word
    answer = _scan(
        ((62, 68, 204, 90), "Lena Hartmann", 22.0),
        ((60, 100, 147, 110), "Ausbildung", 12.8),
        ((40, 223, 147, 236), "Designed the whole", 10.0),
        ((150, 223, 248, 236), "Experience", 10.0),
    )
    assert _sections(answer)["Experience"] == "education"


def test_an_ocr_heading_with_descenders_is_read_in_the_headings_style() -> None:
    # xochicale (scanned): OCR's size comes from the ink, so "Research Experience" (its "p")
    # reads larger than "Education" and "Publications" in the same style; it is the only
    # experience section, so it holds the posts
    answer = _scan(
        ((15, 21, 203, 46), "Nadia Okafor", 25.9),
        ((13, 96, 79, 106), "Education", 12.4),
        ((17, 113, 315, 123), "Ph.D. in Computer Engineering at the University of Leeds", 9.6),
        ((26, 126, 580, 134), "Thesis: Movement variability in human-robot interaction.  Nov 2014 - Nov 2018", 8.0),
        ((13, 216, 148, 230), "Research Experience", 14.3),
        ((17, 233, 580, 243), "Senior Research Software Engineer at Contoso University, UK  Oct 2022 - Present", 10.0),
        ((26, 247, 580, 255), "I lead development of cloud robotics infrastructure for researchers.", 8.7),
        ((17, 291, 580, 301), "Research Associate in Imaging at Northwind College, UK  Sep 2021 - Sep 2022", 10.0),
        ((13, 386, 95, 396), "Publications", 12.0),
        ((16, 404, 580, 412), "1. N. Okafor and T. Leung, Towards affordable eye tracking, EMBC, 2025.", 8.0),
        ((13, 444, 50, 454), "Skills", 11.5),
    )
    first_post = "Senior Research Software Engineer at Contoso University, UK  Oct 2022 - Present"
    assert _sections(answer)[first_post] == "experience"
    assert [(t, s) for t, _, s in roles(answer)] == [
        ("Senior Research Software Engineer", "2022-10"),
        ("Research Associate in Imaging", "2021-09"),
    ]
    # guard: a line in capitals in the headings' OCR'd size names no heading's word, so it
    # opens no section (an employer's line)
    answer = _scan(
        ((15, 21, 203, 46), "Nadia Okafor", 25.9),
        ((13, 96, 100, 108), "EXPERIENCE", 12.4),
        ((13, 120, 300, 132), "NORTHWIND ROBOT LAB | RESEARCHER", 12.6),
        ((13, 140, 400, 150), "Built a grasping pipeline for the lab's arms.  May 2019 - Aug 2020", 9.0),
        ((13, 300, 100, 312), "EDUCATION", 12.4),
    )
    assert _sections(answer)["NORTHWIND ROBOT LAB | RESEARCHER"] == "experience"


def test_a_brazilian_town_and_its_state_after_a_dash_are_one_place() -> None:
    # artursf-pt (Google Docs): post, house, then "dates, district, town - state"
    rows: list[Row] = [
        ((40, 40, 300, 60), "Mariana Costa", 20.0),
        ((40, 357, 132, 370), "EXPERIÊNCIA", 12.0),
        ((40, 392, 269, 406), "Analista de Monitoramento de Dados", 11.0),
        ((40, 407, 96, 417), "Northwind Dados", 9.0),
        ((40, 429, 241, 439), "Junho 2024 - Present, Asa Norte, Brasília - DF", 9.0),
        ((39, 441, 271, 452), "• Manter a qualidade dos dados e monitorar sistemas.", 9.0),
        ((40, 683, 255, 697), "Desenvolvedor Backend Javascript", 11.0),
        ((40, 698, 122, 708), "Cartório Exemplo", 9.0),
        ((40, 716, 276, 726), "Outubro 2021 - março 2022, Santa Cruz do Sul – RS", 9.0),
        ((39, 728, 265, 739), "• Desenvolvimento de aplicações com NodeJS.", 9.0),
        ((330, 392, 530, 406), "Desenvolvedor Full Stack", 11.0),
        ((330, 407, 420, 417), "Contoso Telecom", 9.0),
        ((330, 429, 570, 439), "Junho 2019 - Abril 2021, Uberlândia, Minas Gerais - MG (Remoto)", 9.0),
    ]
    answer = styled_answer(rows)
    assert roles(answer) == [
        ("Analista de Monitoramento de Dados", "Northwind Dados", "2024-06"),
        ("Desenvolvedor Backend Javascript", "Cartório Exemplo", "2021-10"),
        ("Desenvolvedor Full Stack", "Contoso Telecom", "2019-06"),
    ]
    places = [v.value["location"] for v in extract(answer, as_of=AS_OF).fields["work_history"]]
    assert places[:2] == ["Asa Norte, Brasília/DF", "Santa Cruz do Sul/RS"]
    assert places[2] is not None and places[2].startswith("Uberlândia, Minas Gerais/MG")


def test_a_state_code_after_a_dash_is_no_town_behind_a_post_or_a_house() -> None:
    # guards: a post, a house, a department, a fund's kind are not towns
    for text in ("Técnico de Infraestrutura - DF", "Acme Ltda - SP", "Marketing - PR", "Banco do Brasil - DF"):
        assert not is_place(text), text
    assert is_place("Brasília - DF") and is_place("São Paulo/SP") and is_place("Asa Norte, Brasília - DF")
    # "Lemma Capital - PE fund": the code does not end the part
    rows: list[Row] = [
        ((40, 40, 300, 60), "Dana Levi", 20.0),
        ((40, 100, 200, 112), "EXPERIENCE", 12.0),
        ((40, 120, 540, 132), "Associate (Data/ML) - Contract", 11.0),
        ((40, 136, 540, 148), "Example Capital - PE fund (late stage)  Jan 2024 - Aug 2024", 9.0),
    ]
    assert [e for _, e, _ in roles(styled_answer(rows))] == ["Example Capital"]
