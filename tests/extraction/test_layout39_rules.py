"""Change set layout-39 (stop 55): what development batch v16 - 21 unseen people's CVs,
read before any rule - showed about names and roles (docs/extraction.md). Invented text in the
showing documents' geometry; each test but the guards fails on layout-38."""

# ruff: noqa: RUF001, RUF003 - the en dash is what these documents hold

from __future__ import annotations

from ats.extraction.api import extract
from tests.extraction.answers import name_of, roles, rows_answer
from tests.extraction.corpus import AS_OF


def _contact(y: float) -> list[tuple[tuple[float, float, float, float], str, float]]:
    return [
        ((100, y, 490, y + 10), "mira@example.org • example.org • github.com/mira", 10.0),
        ((29, y + 23, 81, y + 35), "EXPERIENCE", 12.0),
        ((29, y + 45, 560, y + 57), "Software Developer at Example Labs (Izmir, Turkey)", 10.9),
        ((29, y + 59, 200, y + 70), "Jan 2023 - Present", 10.9),
    ]


def test_a_name_and_its_post_on_one_line_give_the_name() -> None:
    # oravli-en (and its scans): "Name Surname Full-Stack Developer", no gap between them
    for ocr in (False, True):
        rows = [((173, 28, 422, 45), "Mira Kaplan Full-Stack Developer", 17.2), *_contact(52)]
        assert name_of(rows_answer(rows, ocr=ocr)) == "Mira Kaplan"
    three = [((173, 28, 422, 45), "Ana Maria Souza Senior Data Engineer", 17.2), *_contact(52)]
    assert name_of(rows_answer(three, ocr=False)) == "Ana Maria Souza"


def test_a_surname_that_is_no_post_stays_with_the_name() -> None:
    # guard: the tail must end with a job word - "Clara Hill Stone" is three names
    rows = [((173, 28, 422, 45), "Clara Hill Stone", 17.2), *_contact(52)]
    assert name_of(rows_answer(rows, ocr=False)) == "Clara Hill Stone"


def test_a_column_of_dates_on_the_name_row_after_a_wide_gap_is_not_the_name() -> None:
    # jmitofsky-fr (Canva): the name and the right column's first dates drawn as one line
    rows = [((8, 10, 576, 34), "LINA MOREAU  Oct 2018 – Présent", 19.0), *_contact(60)]
    assert name_of(rows_answer(rows, ocr=False)) == "Lina Moreau"


def test_an_age_after_the_name_is_cut_at_its_comma() -> None:
    # lfcosta (Google Docs): "Name Surname, 20 anos"
    for written in ("Caio Henrique Lima Prado, 20 anos", "Caio Henrique Lima Prado, 31 years old"):
        rows = [((72, 68, 219, 88), written, 20.0), *_contact(100)]
        assert name_of(rows_answer(rows, ocr=False)) == "Caio Henrique Lima Prado"


def test_an_icon_read_after_a_name_on_a_scan_is_cut_off() -> None:
    # jefsilva-scan150, rasswad-fr-scan150: a bare letter or a bracketed speck after the name
    for read in ("RAFAEL MOURA Q", "Rafael Moura ee]"):
        rows = [((36, 68, 299, 120), read, 40.0), *_contact(130)]
        assert name_of(rows_answer(rows, ocr=True)) == "Rafael Moura"
    # guard (pjorgensen's scans): a logo's "NORTHWIND TRADERS A" beside a name read as one
    # stays no name, however large its type
    logo = [((44, 44, 240, 81), "Ada Lindqvist", 31.0), ((287, 44, 477, 81), "NORTHWIND TRADERS A", 44.8)]
    assert name_of(rows_answer([*logo, *_contact(130)], ocr=True)) == "Ada Lindqvist"


def test_given_names_a_comma_and_the_family_name_are_kept_as_written() -> None:
    # tchsu-en: "TZU CHUN, HSU" in the top's largest type
    rows = [((227, 27, 385, 44), "MEI LING, CHEN", 17.2), ((247, 52, 365, 62), "Taichung, Taiwan", 10.9)]
    rows += _contact(70)
    assert name_of(rows_answer(rows, ocr=False)) == "Mei Ling, Chen"


def test_a_name_and_its_city_after_a_comma_are_no_comma_name() -> None:
    # guard: "Name, City" is a name and a place, and smaller type is never a comma name
    rows = [((227, 27, 385, 44), "Mei Chen, Taipei", 17.2), *_contact(52)]
    found = extract(rows_answer(rows, ocr=False), as_of=AS_OF).first("name")
    assert found is None or str(found) != "Mei Chen, Taipei"
    small = [((227, 27, 385, 44), "Mei Chen", 17.2), ((29, 60, 200, 70), "Jones, Peter", 10.0), *_contact(80)]
    assert name_of(rows_answer(small, ocr=False)) == "Mei Chen"


def test_three_roles_under_one_house_line_with_its_place_take_its_employer() -> None:
    # aashishjain (deedy): "HOUSE | City, Country" over "POST | May 2017 – Jul 2018", bullets,
    # then two more "POST | dates" rows set the same way and no house line of their own
    answer = rows_answer(
        (
            ((40, 40, 180, 60), "Dev Example", 20.0),
            ((192, 91, 280, 106), "EXPERIENCE", 15.9),
            ((192, 111, 400, 123), "NORTHWIND LABS | Pune, India", 12.0),
            ((192, 125, 420, 136), "FULL-TIME RESEARCH ASSISTANT | May 2017 – Jul 2018", 11.0),
            ((206, 139, 560, 150), "• Built a forecasting model for cinema attendance.", 10.0),
            ((192, 176, 400, 187), "TEACHING ASSISTANT | Sep 2016 – Jul 2018", 11.0),
            ((206, 192, 560, 203), "• Mentored students on embedded systems projects.", 10.0),
            ((192, 229, 430, 240), "UNDERGRADUATE RESEARCH ASSISTANT | Sep 2016 – Apr 2017", 11.0),
            ((206, 245, 560, 256), "• Developed load monitoring algorithms.", 10.0),
        ),
        ocr=False,
    )
    assert [(t, e) for t, e, _ in roles(answer)] == [
        ("FULL-TIME RESEARCH ASSISTANT", "NORTHWIND LABS"),
        ("TEACHING ASSISTANT", "NORTHWIND LABS"),
        ("UNDERGRADUATE RESEARCH ASSISTANT", "NORTHWIND LABS"),
    ]


def test_portuguese_and_french_posts_are_read_as_posts_not_employers() -> None:
    # abassi (Google Docs): "Employer" / "Especialista em ..." / "02/2023 – 06/2025"
    answer = rows_answer(
        (
            ((36, 40, 200, 60), "Ana Exemplo", 20.0),
            ((36, 379, 200, 392), "Experiência Profissional", 13.0),
            ((36, 413, 80, 424), "Orvalho", 11.0),
            ((36, 425, 300, 436), "Especialista em Pesquisa e Desenvolvimento", 11.0),
            ((36, 437, 130, 448), "02/2023 – 06/2025", 11.0),
            ((54, 450, 500, 461), "● Arquitetura de pipelines de dados e reranking.", 11.0),
        ),
        ocr=False,
    )
    assert roles(answer) == [("Especialista em Pesquisa e Desenvolvimento", "Orvalho", "2023-02")]
    # lfcosta: "EMPLOYER - Aux Administrativo Novembro 2024 - Março 2025" on one line
    one_line = rows_answer(
        (
            ((72, 40, 200, 60), "Ana Exemplo", 20.0),
            ((72, 453, 150, 469), "Experiência", 16.0),
            ((72, 473, 480, 485), "ORVALHO TÊXTIL - Aux Administrativo Novembro 2024 - Março 2025", 12.0),
            ((72, 491, 520, 502), "Atuei como auxiliar de logística, emitindo documentos de carga.", 11.0),
        ),
        ocr=False,
    )
    assert roles(one_line) == [("Aux Administrativo", "ORVALHO TÊXTIL", "2024-11")]


def test_a_city_before_its_country_takes_the_country_s_region() -> None:
    # agalvez: "Granada, España" is Spain's Granada ("granada" is also Grenada's Spanish
    # name), so a national number under it is a Spanish one
    rows = [
        ((30, 0, 289, 99), "LUCÍA MORENO", 32.0),
        ((32, 168, 136, 180), "@ 615 914 882", 12.0),
        ((32, 216, 237, 228), "lucia.moreno@gmail.com", 12.0),
        ((33, 240, 156, 252), "Granada, España", 12.0),
    ]
    assert extract(rows_answer(rows, ocr=True), as_of=AS_OF).values("phones") == ["+34615914882"]


def test_an_address_whose_domain_ocr_spaced_after_its_dots_is_read_whole() -> None:
    # yzheng-en's scans: "name@buaa. edu. cn"
    rows = [
        ((30, 0, 289, 40), "Wei Example", 32.0),
        ((32, 100, 500, 112), "No.1 Example Road, Haidian District, Beijing, China", 12.0),
        ((32, 116, 237, 128), "wei.example@buaa. edu. cn", 12.0),
    ]
    assert extract(rows_answer(rows, ocr=True), as_of=AS_OF).values("emails") == ["wei.example@buaa.edu.cn"]
    # guard: a sentence after an address is no part of its domain
    text = [((30, 0, 289, 40), "Wei Example", 32.0), ((32, 116, 400, 128), "wei@example.org. Then more", 12.0)]
    assert extract(rows_answer(text, ocr=True), as_of=AS_OF).values("emails") == ["wei@example.org"]


def test_a_year_and_month_with_a_dash_and_nothing_after_it_is_an_open_role() -> None:
    # yzheng-en: "Intern, Institute  2019.03 -": the role goes on (its only one)
    answer = rows_answer(
        (
            ((265, 73, 340, 85), "Wei Example", 12.0),
            ((72, 251, 120, 262), "Experience", 10.0),
            ((166, 251, 560, 262), "Intern, Northwind Institute of Data and Computing  2019.03 -", 10.0),
            ((180, 262, 560, 273), "• Interested in natural language processing.", 10.0),
        ),
        ocr=False,
    )
    assert roles(answer) == [("Intern", "Northwind Institute of Data and Computing", "2019-03")]
    found = extract(answer, as_of=AS_OF).fields["work_history"][0].value
    assert found["end"] == "present"


def test_a_long_post_over_its_dates_on_a_scan_is_no_heading_set_like_the_headings() -> None:
    # abassi-scan150: OCR gave the post the headings' size; the line under it is its dates
    rows = [
        ((36, 40, 260, 70), "Ana Exemplo", 24.0),
        ((37, 207, 200, 220), "Resumo Profissional", 12.2),
        ((36, 221, 560, 233), "Engenheira de plataformas com mais de vinte anos de experiência em nuvem.", 10.4),
        ((37, 331, 200, 344), "Formação Acadêmica", 12.3),
        ((72, 352, 500, 364), "Graduação em Ciências da Computação - Universidade Exemplo (2001-2005)", 10.6),
        ((37, 380, 220, 393), "Experiência Profissional", 12.2),
        ((36, 414, 70, 424), "Orvalho", 8.6),
        ((37, 426, 300, 439), "Especialista em Pesquisa e Desenvolvimento", 12.4),
        ((36, 438, 130, 448), "02/2023 - 06/2025", 10.0),
        ((72, 451, 540, 462), "Arquitetura completa de pipelines de dados, incluindo reranking.", 10.5),
        ((37, 552, 90, 562), "Builders", 8.8),
        ((36, 564, 130, 575), "Cloud Architect", 9.5),
        ((36, 577, 130, 588), "01/2019 - 01/2023", 9.7),
        ((72, 590, 540, 601), "Arquitetura e operação de clusters Kubernetes.", 10.5),
    ]
    got = [(t, e) for t, e, _ in roles(rows_answer(rows, ocr=True))]
    assert ("Especialista em Pesquisa e Desenvolvimento", "Orvalho") in got
    assert ("Cloud Architect", "Builders") in got


def test_a_narrow_date_column_that_wrapped_its_range_dates_its_role() -> None:
    # tbrinkley (a résumé builder printed by Chrome): "Nov 2022  Application Engineer" over
    # "- present", then the employer in italics under the title
    rows = [
        ((30, 40, 250, 60), "Tess Example", 20.0),
        ((228, 137, 320, 151), "Work History", 13.8),
        ((200, 167, 400, 178), "Nov 2022  Application Engineer", 10.8),
        ((200, 179, 240, 187), "- present", 7.8),
        ((266, 187, 400, 197), "Northwind Inc., Remote", 10.2),
        ((276, 207, 560, 216), "Modernised a reporting system with agile sprints", 9.0),
        ((200, 310, 400, 321), "May 2022  IT Support Engineer", 10.8),
        ((200, 323, 240, 331), "- Nov 2022", 7.8),
        ((266, 331, 400, 341), "Contoso (AWS), Atlanta, GA", 10.2),
        ((276, 351, 560, 360), "Active Directory policy grouping", 9.0),
    ]
    found = extract(rows_answer(rows, ocr=False), as_of=AS_OF).fields["work_history"]
    assert [(v.value["title"], v.value["start"], v.value["end"]) for v in found] == [
        ("Application Engineer", "2022-11", "present"),
        ("IT Support Engineer", "2022-05", "2022-11"),
    ]
