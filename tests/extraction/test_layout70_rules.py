"""Change set layout-70 (stop 71): a name whose capital I OCR read as a lower-case l, a
role's title drawn late above its house, a role's small label, a description's last line
read as a heading (docs/extraction.md, "Change set layout-70")."""

from __future__ import annotations

from typing import Any

from ats.extraction._layout import heading_kind
from ats.extraction._rules import _capital_i_read_as_l
from tests.extraction.answers import Row, name_of, pdf_answer, roles, rows_answer, styled_answer, styled_block

_TOP = [
    ((313, 51, 546, 86), "lvan Ogassavara", 30.0),
    ((427, 100, 551, 112), "Cientista de Datos", 13.6),
    ((114, 182, 550, 191), "Cientista de datos, analista de datos y programador con experiencia", 9.8),
    ((114, 261, 550, 270), "Posgrado en ingeniería de transportes, Universidade Federal de Santa Catarina,", 9.8),
    ((114, 272, 238, 283), "Florianópolis /Brasil, Maestría.", 9.7),
    ((114, 300, 266, 310), "Eniac, Guarulhos/Brasil, Lato Sensu.", 9.4),
]


def test_an_ocr_lower_case_l_starting_a_name_word_is_a_capital_i() -> None:
    # development's xmnlab-cv-es scan at 150 dpi: the grey name read on the second look as
    # "lvan Ogassavara"; before, the name was lost and a phrase of the education taken
    assert name_of(rows_answer(_TOP, ocr=True)) == "Ivan Ogassavara"


def test_a_text_layer_keeps_its_letters() -> None:
    # a text layer's letters are the document's own: no repair there
    assert name_of(styled_answer(_TOP)) != "Ivan Ogassavara"


def test_particles_and_lower_case_lines_are_left_alone() -> None:
    assert _capital_i_read_as_l(["lgor", "PETROV"]) == "Igor PETROV"
    assert _capital_i_read_as_l(["lNES", "GARCIA"]) == "INES GARCIA"
    assert _capital_i_read_as_l(["Maria", "de", "la", "Cruz"]) is None  # a particle
    assert _capital_i_read_as_l(["Ana", "de", "los", "Santos"]) is None
    assert _capital_i_read_as_l(["luis", "perez"]) is None  # nothing capitalised to go by
    assert _capital_i_read_as_l(["Linus", "Torvalds"]) is None
    assert _capital_i_read_as_l(["Driving", "license"]) is None  # a vowel after the l: a word's own
    assert _capital_i_read_as_l(["Jordi", "llorente"]) is None  # "ll": Catalan and Spanish names


def test_a_title_drawn_late_right_above_its_house_is_the_role_s() -> None:
    # a page printed from HTML (v27's benmacha): each role's title sits above its house's
    # line but comes after the dates in the text layer; the house's "X - Y" split into a
    # title and an employer before
    rows: list[Row] = [
        ((60, 36, 200, 60), "Ben Macha", 20.0),
        ((24, 223, 248, 238), "EXPÉRIENCE PROFESSIONNELLE", 14.0),
        ((38, 273, 213, 284), "CCM Benchmark - Groupe Le Figaro", 10.5),
        ((38, 289, 101, 299), "Paris, France", 10.5),
        ((475, 287, 571, 299), "août 2024 \u2013 Présent", 10.5),
        ((38, 255, 139, 266), "Lead Developer PHP", 10.5),
        ((51, 310, 523, 321), "En tant que Lead Developer PHP, j'assure le développement de produits internes", 10.5),
    ]
    ((title, employer, start),) = roles(styled_answer(rows))
    assert (title, start) == ("Lead Developer PHP", "2024-08")
    assert employer is not None and employer.replace(",", " -") == "CCM Benchmark - Groupe Le Figaro"


def _labelled_roles() -> dict[str, Any]:
    # novoresume (v27's pankajk): "Achievements/Tasks", 8 pt italic, over each role's
    # bullets, drawn after the rest of the page; the headings 13.9 pt bold, the body 8.9 pt
    blocks = [styled_block((25, 40, 200, 60), "Pankaj Kumar", 20.0, style=1)]
    blocks.append(styled_block((25, 205, 160, 221), "WORK EXPERIENCE", 13.9, style=1))
    y = 228.0
    roles_ = [
        ("Software Engineer", "Hubster", "04/2023 - Present"),
        ("Java Software Engineer", "Wing Global IT", "06/2022 - 04/2023"),
        ("Software Engineer", "Carvia Technologies", "08/2020 - 06/2022"),
    ]
    labels = []
    for title, house, dates in roles_:
        blocks.append(styled_block((25, y, 135, y + 13), title, 12.1, style=1))
        blocks.append(styled_block((25, y + 14, 180, y + 27), house, 12.1))
        blocks.append(styled_block((25, y + 31, 97, y + 40), dates, 8.0))
        labels.append(styled_block((25, y + 43, 98, y + 52), "Achievements/Tasks", 8.0, style=2))
        for k in range(3):
            text = f"Worked on the platform's part {k} with the team"
            blocks.append(styled_block((34, y + 54 + 12 * k, 268, y + 64 + 12 * k), text, 8.9))
        y += 100
    blocks.append(styled_block((25, y, 110, y + 15), "EDUCATION", 13.9, style=1))
    blocks.append(styled_block((25, y + 20, 148, y + 33), "Chandigarh University", 8.9))
    return pdf_answer(blocks + labels, ocr=False)


def test_a_role_s_small_label_opens_no_section() -> None:
    assert [(t, e) for t, e, _ in roles(_labelled_roles())] == [
        ("Software Engineer", "Hubster"),
        ("Java Software Engineer", "Wing Global IT"),
        ("Software Engineer", "Carvia Technologies"),
    ]


def test_a_description_s_last_line_is_no_heading() -> None:
    assert heading_kind("and frameworks.") is None  # "... emerging tools" / "and frameworks."
    assert heading_kind("Methods and Tools") == "skills"
    assert heading_kind("Entornos y tecnologías") == "skills"
