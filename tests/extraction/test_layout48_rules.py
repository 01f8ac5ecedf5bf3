"""Change set layout-48 (stop 61), from held-out v20's documents once they were development:
section headings in the plural, Turkish month abbreviations, a Portuguese CV's dates
written as a sentence, a house in its own style after "at", career breaks and subjects'
students, service posts, and a post behind its label (docs/extraction.md, "Change set
layout-48"); the last test is layout-49's. Invented text in the showing documents'
geometry; each test but the guards fails on the layout before it."""

# ruff: noqa: RUF001, RUF003 - the en dashes are what these documents hold

from __future__ import annotations

from typing import Any

from ats.extraction._history import date_ranges
from ats.extraction._layout import heading_kind
from ats.extraction.api import extract
from tests.extraction.answers import Row, pdf_answer, roles, styled_answer, styled_block
from tests.extraction.corpus import AS_OF


def _entries(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return extract(answer, as_of=AS_OF).values("work_history")


def test_plural_headings_open_their_sections() -> None:
    # wcutrim's "EXPERIÊNCIAS PROFISSIONAIS:", tsosi's "Berufliche Erfahrungen", dsoltys's "Vzdělávání"
    for text, kind in (
        ("EXPERIÊNCIAS PROFISSIONAIS:", "experience"),
        ("Experiencias Profesionales", "experience"),
        ("Experiencias laborales", "experience"),
        ("Berufliche Erfahrungen", "experience"),
        ("Vzdělávání", "education"),
    ):
        assert heading_kind(text) == kind, text
    rows: list[Row] = [
        ((40, 40, 300, 60), "Lena Hartmann", 20.0),
        ((40, 100, 300, 114), "Berufliche Erfahrungen", 13.0),
        ((40, 120, 400, 132), "Softwareentwicklerin, Contoso GmbH", 11.0),
        ((40, 136, 400, 148), "September 2023 - aktuell, Berlin", 10.0),
        ((40, 152, 540, 164), "Entwicklung von REST-APIs mit FastAPI für die Plattform", 10.0),
        ((40, 180, 300, 194), "Ausbildung", 13.0),
        ((40, 200, 400, 212), "B.Sc. Informatik, Hochschule Hamburg", 11.0),
        ((40, 216, 400, 228), "03/2018 - 09/2023", 10.0),
    ]
    assert roles(styled_answer(rows)) == [("Softwareentwicklerin", "Contoso GmbH", "2023-09")]


def test_turkish_three_letter_months_date_a_role() -> None:
    # babacan-tr: "IT ve Sistem Entegrasyon Stajyeri | ENLOG - İstanbul | Eyl 2023 – Haz 2024"
    assert [(r.start, r.end) for r in date_ranges("Eyl 2023 – Haz 2024")] == [((2023, 9), (2024, 6))]
    assert [(r.start, r.end) for r in date_ranges("ŞUB 2020 - ARA 2021")] == [((2020, 2), (2021, 12))]
    for text, months in (
        ("Oca 2020 - Nis 2020", (1, 4)),
        ("Tem 2019 – Ağu 2019", (7, 8)),
        ("Kas 2021 – Eki 2022", (11, 10)),
    ):
        (found,) = date_ranges(text)
        assert (found.start[1], found.end[1] if found.end else None) == months, text
    rows: list[Row] = [
        ((40, 40, 300, 60), "Deniz Aydın", 20.0),
        ((40, 100, 300, 114), "İŞ DENEYİMİ", 12.0),
        ((40, 120, 560, 132), "Sistem Entegrasyon Stajyeri | Contoso Lojistik - İstanbul | Eyl 2023 – Haz 2024", 10.0),
        ((40, 136, 560, 148), "Ağ operasyonları ve teknik destek süreçlerini yürüttüm.", 10.0),
    ]
    assert roles(styled_answer(rows)) == [("Sistem Entegrasyon Stajyeri", "Contoso Lojistik", "2023-09")]


def test_dates_written_as_a_sentence_leave_their_lead_in_and_stop_behind() -> None:
    # wcutrim (Google Docs): "Post - House. Início em <month> de <year> - Emprego Atual."
    rows: list[Row] = [
        ((40, 40, 300, 60), "Ana Ribeiro", 16.0),
        ((40, 100, 300, 112), "EXPERIÊNCIAS PROFISSIONAIS:", 11.0),
        ((40, 120, 560, 132), "Analista de Dados Jr - Contoso Bank. Início em Novembro de 2022 -", 11.0),
        ((40, 134, 200, 146), "Emprego Atual.", 11.0),
        ((40, 148, 560, 160), "Descrição de atividades: Responsável por relatórios e painéis em Power BI.", 11.0),
        ((40, 170, 560, 182), "Técnico em TI – Northwind Comércio, período de abril de 2019 – julho 2019.", 11.0),
        ((40, 184, 560, 196), "Descrição de atividades: Manutenção de computadores e da rede.", 11.0),
    ]
    found = _entries(styled_answer(rows))
    assert [(e["title"], e["employer"], e["start"], e["end"]) for e in found] == [
        ("Analista de Dados Jr", "Contoso Bank", "2022-11", "present"),
        ("Técnico em TI", "Northwind Comércio", "2019-04", "2019-07"),
    ]


def _two_styles(y: float, title: str, house: str) -> dict[str, Any]:
    """One header line: the post in one style (bold), "at House since ..." in another."""
    text = f"{title} {house}"
    runs = [[len(title) + 1, 1, 11.0], [len(text), 2, 11.0]]
    line = {"bbox": [40, y, 560, y + 12], "text": text, "size": 11.0, "runs": runs}
    return {"page": 1, "bbox": line["bbox"], "text": text, "lines": [line]}


def _plain(y: float, text: str, size: float = 11.0) -> dict[str, Any]:
    return styled_block((40, y, 560, y + 12), text, size)


def test_a_house_in_its_own_style_after_at_is_the_name_after_at() -> None:
    # arousseau (pandoc): "**Fullstack Developer** *at Optimiz.me since june 2020.*"
    answer = pdf_answer(
        [
            _plain(40, "Camille Durand", 18.0),
            _plain(100, "Experiences", 13.0),
            _two_styles(120, "Fullstack Developer", "at Northwind.io since june 2020."),
            _plain(136, "• Deployment of applications with Docker and Kubernetes"),
            _two_styles(156, "Developer", "at Contoso Conseil from january 2017 to june 2019."),
            _plain(172, "• Maintenance of the billing application"),
            _two_styles(192, "Développeur", "chez Fabrikam Lyon depuis mars 2015."),
        ],
        ocr=False,
    )
    assert roles(answer) == [
        ("Fullstack Developer", "Northwind.io", "2020-06"),
        ("Developer", "Contoso Conseil", "2017-01"),
        ("Développeur", "Fabrikam Lyon", "2015-03"),
    ]


def test_a_career_break_and_a_subjects_student_are_no_posts() -> None:
    # acastets (Google Docs): "(Career Break for Advanced Training) | Feb 2023 – Feb 2024";
    # ahamuyel: "Software Engineering Student" at a school
    rows: list[Row] = [
        ((40, 40, 300, 60), "Lucía Pérez", 18.0),
        ((40, 100, 300, 112), "PROFESSIONAL EXPERIENCE", 12.0),
        ((40, 120, 560, 132), "Freelance Full Stack Developer | Remote | Feb 2024 – Present", 11.0),
        ((40, 136, 560, 148), "● Designed and developed web solutions with Next.js.", 10.0),
        ((40, 156, 560, 168), "(Career Break for Advanced Training) | Feb 2023 – Feb 2024", 11.0),
        ((40, 172, 560, 184), "● Full-time studies in backend architecture.", 10.0),
        ((40, 192, 560, 204), "Software Engineering Student | 42 Contoso | 2022 – 2023", 11.0),
        ((40, 208, 560, 220), "● Peer-learning projects in C.", 10.0),
        ((40, 228, 560, 240), "Frontend Developer | Northwind IT | Jul 2022 – Feb 2023", 11.0),
        ((40, 244, 560, 256), "● Built React components.", 10.0),
    ]
    assert [(t, e) for t, e, _ in roles(styled_answer(rows))] == [
        ("Freelance Full Stack Developer", None),
        ("Frontend Developer", "Northwind IT"),
    ]


def test_a_doctoral_or_working_student_still_holds_a_post() -> None:
    # guards: a PhD post is a job (layout-42's note), a working student's too
    rows: list[Row] = [
        ((40, 40, 300, 60), "Jonas Weber", 18.0),
        ((40, 100, 300, 112), "EXPERIENCE", 12.0),
        ((40, 120, 400, 132), "PhD Student, Contoso Institute of Technology", 11.0),
        ((40, 136, 400, 148), "Oct 2021 - Present", 10.0),
        ((40, 156, 400, 168), "Working Student, Northwind GmbH", 11.0),
        ((40, 172, 400, 184), "Apr 2019 - Sep 2021", 10.0),
    ]
    assert [t for t, _, _ in roles(styled_answer(rows))] == ["PhD Student", "Working Student"]


def test_a_service_post_is_the_title_beside_its_house() -> None:
    # lfriedman (Google Docs): "House, Town, ST — Post" with no other title word
    rows: list[Row] = [
        ((40, 40, 300, 60), "Morgan Lee", 18.0),
        ((40, 100, 300, 112), "EXPERIENCE", 12.0),
        ((40, 120, 400, 132), "Contoso Coffee, Denver, CO — Barista", 11.0),
        ((40, 136, 400, 148), "May 2023 - present", 10.0),
        ((40, 156, 400, 168), "Northwind Event Staffing, Denver, CO — Security Guard", 11.0),
        ((40, 172, 400, 184), "September 2022 - January 2023", 10.0),
        ((40, 192, 400, 204), "Fabrikam County Sheriff’s Office, Columbia, MO — Deputy", 11.0),
        ((40, 208, 400, 220), "February 2017 - May 2022", 10.0),
    ]
    assert [(t, e) for t, e, _ in roles(styled_answer(rows))] == [
        ("Barista", "Contoso Coffee"),
        ("Security Guard", "Northwind Event Staffing"),
        ("Deputy", "Fabrikam County Sheriff’s Office"),
    ]


def test_an_academy_stays_the_house_whatever_its_words() -> None:
    # jhollist: "Postdoctoral Fellow" (a post now) at the "U.S. Coast Guard Academy" - "guard", a post's word
    # now too, does not make the academy the post
    rows: list[Row] = [
        ((40, 40, 300, 60), "Jeff Miller", 18.0),
        ((40, 100, 300, 112), "Professional Experience", 12.0),
        ((40, 120, 560, 132), "U.S. Coast Guard Academy", 11.0),
        ((40, 136, 560, 148), "Postdoctoral Fellow  2005 - 2006", 10.0),
    ]
    assert [(t, e) for t, e, _ in roles(styled_answer(rows))] == [("Postdoctoral Fellow", "U.S. Coast Guard Academy")]


def test_a_labelled_post_under_its_house_is_the_title() -> None:
    # mmorais (Word): "House – 06/2024 – 09/2024" over "Função: Post." - the stop made it a description
    rows: list[Row] = [
        ((40, 40, 300, 60), "Marcos Lima", 18.0),
        ((40, 100, 300, 112), "Experiência", 12.0),
        ((40, 120, 400, 132), "Contoso Tech – 06/2024 – 09/2024", 11.0),
        ((40, 136, 400, 148), "Função: Desenvolvedor Freelancer.", 11.0),
        ((40, 152, 540, 164), "Sites responsivos com HTML, CSS e JavaScript.", 11.0),
    ]
    assert [(t, e) for t, e, _ in roles(styled_answer(rows))] == [
        ("Desenvolvedor Freelancer", "Contoso Tech")
    ]  # its full stop dropped since layout-62


def _skills(rows: list[Row]) -> list[str]:
    return list(extract(styled_answer(rows), as_of=AS_OF).values("skills"))


def test_a_bracket_that_spells_out_or_abbreviates_its_item_stays_with_it() -> None:
    # acastets: "Google Cloud Platform (GCP)"; labels keep "NLP (Natural Language Processing)" whole
    rows: list[Row] = [
        ((40, 40, 300, 60), "Jane Roe", 18.0),
        ((40, 100, 300, 112), "SKILLS", 12.0),
        ((40, 120, 560, 132), "Cloud: Docker, Google Cloud Platform (GCP), Kubernetes", 10.0),
    ]
    assert sorted(_skills(rows)) == ["Docker", "Google Cloud Platform (GCP)", "Kubernetes"]
    rows[2] = (
        (40, 120, 560, 132),
        "Methods: Scrum, NLP (Natural Language Processing), Test-Driven Development (TDD)",
        9.0,
    )
    assert sorted(_skills(rows)) == ["NLP (Natural Language Processing)", "Scrum", "Test-Driven Development (TDD)"]


def test_a_bracket_listing_more_items_or_a_note_still_is_no_part_of_the_item() -> None:
    # guards: "AWS (Lambda, EKS)" gives one skill per name (h44), "R (Intermediate)" a level
    rows: list[Row] = [
        ((40, 40, 300, 60), "Jane Roe", 18.0),
        ((40, 100, 300, 112), "SKILLS", 12.0),
        ((40, 120, 560, 132), "Cloud: Docker, AWS (Lambda, EKS), R (Intermediate), Kubernetes (K8s)", 10.0),
    ]
    found = _skills(rows)
    assert {"AWS", "Lambda", "EKS", "R", "Kubernetes"} <= set(found)
    assert not any("(" in skill for skill in found)


def test_a_way_of_working_after_the_house_is_its_place() -> None:
    # bhoskins (Word): "Gainwell Technologies Remote" under the post and its dates
    rows: list[Row] = [
        ((40, 40, 300, 60), "Brandon Hill", 18.0),
        ((40, 100, 300, 112), "Work Experience", 12.0),
        ((40, 120, 560, 132), "JavaScript Front-End Developer May 2022 - Present", 11.0),
        ((40, 136, 560, 148), "Contoso Technologies Remote", 10.0),
        ((40, 152, 560, 164), "Developing a healthcare application with TypeScript and SCSS.", 10.0),
    ]
    (entry,) = _entries(styled_answer(rows))
    assert (entry["title"], entry["employer"], entry["location"]) == (
        "JavaScript Front-End Developer",
        "Contoso Technologies",
        "Remote",
    )


def test_an_education_line_leaves_no_separator_and_stop_behind_its_dates() -> None:
    # layout-49 (stop 61's newcomer check): "... Universidade Estadual de Londrina – 2015 – 2018."
    rows: list[Row] = [
        ((40, 40, 300, 60), "Jane Roe", 18.0),
        ((40, 100, 300, 112), "FORMAÇÃO ACADÊMICA:", 12.0),
        ((40, 120, 560, 132), "Bacharel em Ciência da Computação – Universidade de Londrina – 2015 – 2018.", 10.0),
        ((40, 140, 560, 152), "B.Sc. Informatik, Hochschule Hamburg, 03/2018 - 09/2023.", 10.0),
        ((40, 160, 560, 172), "Diploma, Contoso Inc.", 10.0),
        ((40, 180, 560, 192), "Licenciatura em Física · Universidade do Porto · 2012 · 2015.", 10.0),
    ]
    assert list(extract(styled_answer(rows), as_of=AS_OF).values("education")) == [
        "Bacharel em Ciência da Computação – Universidade de Londrina",
        "B.Sc. Informatik, Hochschule Hamburg",
        "Diploma, Contoso Inc.",
        "Licenciatura em Física · Universidade do Porto",  # layout-50: a middle dot between the parts
    ]
