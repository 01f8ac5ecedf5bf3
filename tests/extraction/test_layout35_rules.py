"""Layout-35 (stop 50): rules written on held-out v12's documents once they were development
(v12 was spent and moved before any rule; held-out v14 not read). Built answers here, with
the geometry of the documents that showed each case and invented text; docs/extraction.md,
"Change set layout-35", says what each rule is for and what it moved on development."""

# ruff: noqa: RUF001, RUF003 (CV text has typographic dashes and apostrophes)
from __future__ import annotations

from ats.extraction._history import date_ranges
from ats.extraction._layout import _unspaced, heading_kind, is_place
from ats.extraction.api import extract
from tests.extraction.answers import name_of, roles, rows_answer, styled_block
from tests.extraction.corpus import AS_OF


def _education(answer: dict) -> list[tuple[str | None, str | None]]:
    found = extract(answer, as_of=AS_OF).fields.get("education_entries", ())
    return [(v.value["institution"], v.value["degree"]) for v in found]


def test_a_generation_after_the_names_is_part_of_the_name() -> None:
    # dosorio: "Dari Osorio Junior" - "junior" is a job's level elsewhere
    answer = rows_answer(
        (
            ((156, 53, 439, 102), "Caio Ferreira Junior", 33.9),
            ((230, 93, 365, 109), "Foz do Iguaçu, Paraná, Brazil", 10.9),
            ((279, 102, 429, 122), "caio@example.com", 10.9),
            ((59, 166, 535, 181), "Senior Full Stack Developer with 7 years of experience.", 9.9),
        ),
        ocr=False,
    )
    assert name_of(answer) == "Caio Ferreira Junior"


def test_a_skills_list_a_word_a_line_is_no_name_and_a_name_in_two_sizes_is() -> None:
    # wwelbert: "WILLIAN" at 20 pt over "WELBERT" at 25 pt; a sidebar's "HTML" / "CSS" /
    # "Javascript" / "Photoshop" at 8 pt, stacked a word a line, was read as the name
    answer = rows_answer(
        (
            ((128, 512, 179, 524), "EDUCATION", 10.0),
            ((415, 193, 537, 202), "I’m a front-end developer with a design background.", 7.0),
            ((329, 109, 387, 119), "WEB DEVELOPER", 8.0),
            ((314, 59, 391, 83), "MARCOS", 20.0),
            ((287, 77, 387, 107), "PEREIRA", 25.0),
            ((415, 445, 435, 455), "HTML", 8.0),
            ((415, 456, 428, 466), "CSS", 8.0),
            ((415, 467, 448, 477), "Javascript", 8.0),
            ((415, 478, 452, 488), "Photoshop", 8.0),
            ((415, 650, 440, 660), "English", 8.0),
        ),
        ocr=False,
    )
    assert name_of(answer) == "Marcos Pereira"


def test_a_shorter_family_name_under_the_given_names_in_a_tight_header() -> None:
    # destivano: "Mohamed Amine" / "AROUS" at 29.7 pt, the boxes overlapping by 9 pt and the
    # second line inside the first's span but not centred on it as measured
    answer = rows_answer(
        (
            ((49, 31, 145, 43), "(+33) 6 12 34 56 78", 12.0),
            ((29, 58, 210, 72), "karim.exemple@example.fr", 12.0),
            ((208, 18, 422, 48), "Karim Youssef", 29.7),
            ((258, 39, 348, 69), "BENALI", 29.7),
            ((46, 106, 583, 118), "Final-year engineering student specialising in generative AI.", 12.0),
        ),
        ocr=False,
    )
    assert name_of(answer) == "Karim Youssef Benali"


def test_a_russian_full_name_label() -> None:
    # korepanov-ru: "ФИО: <family> <given> <patronymic>"
    answer = rows_answer(
        (
            ((85, 56, 130, 70), "Резюме", 13.5),
            ((85, 81, 258, 91), "ФИО: Иванов Пётр Сергеевич", 9.4),
            ((85, 93, 174, 103), "E-mail: petr@example.ru", 9.4),
        ),
        ocr=False,
    )
    assert name_of(answer) == "Иванов Пётр Сергеевич"


def test_icon_glyph_names_and_a_latest_experience_heading() -> None:
    # hmoradi (AltaCV): "December 2023 – Present Calendar", "Vancouver, BC, Canada
    # Map-marker" - Font Awesome's glyph names in the text layer - under "LATEST
    # PROFESSIONAL EXPERIENCE"
    answer = rows_answer(
        (
            ((35, 41, 250, 65), "ALEX EXAMPLE", 24.8),
            ((35, 582, 283, 596), "LATEST PROFESSIONAL EXPERIENCE", 14.3),
            ((35, 606, 177, 618), "Senior Software Engineer", 12.0),
            ((264, 607, 376, 617), "December 2023 – Present Calendar", 9.0),
            ((35, 624, 78, 636), "Northwind", 12.0),
            ((274, 626, 375, 635), "Vancouver, BC, Canada Map-marker", 9.0),
            ((35, 644, 358, 653), "I am part of the checkout team, focused on payments.", 9.0),
            ((35, 680, 177, 692), "Frontend Team Leader", 12.0),
            ((264, 681, 376, 691), "November 2017 – March 2019 Calendar", 9.0),
            ((35, 698, 78, 710), "Globex", 12.0),
            ((274, 700, 375, 709), "Tehran, Iran Map-marker", 9.0),
            ((35, 718, 358, 727), "I led the migration of a large shop to a modern frontend.", 9.0),
        ),
        ocr=False,
    )
    assert heading_kind("LATEST PROFESSIONAL EXPERIENCE") == "experience"
    assert heading_kind("TOP SKILLS") == "skills"
    assert roles(answer) == [
        ("Senior Software Engineer", "Northwind", "2023-12"),
        ("Frontend Team Leader", "Globex", "2017-11"),
    ]


def test_month_and_year_parted_by_a_spaced_slash() -> None:
    # acappiello (wkhtmltopdf): "11 / 2014 - Present", "02 / 2013 - 10 / 2014"
    assert [(r.start, r.end) for r in date_ranges("11 / 2014 - Present")] == [((2014, 11), None)]
    assert [(r.start, r.end) for r in date_ranges("02 / 2013 - 10 / 2014")] == [((2013, 2), (2014, 10))]
    assert date_ranges("page 3 / 2014 - x") == []


def test_a_larger_heading_beside_the_first_roles_dates_opens_its_section() -> None:
    # acappiello: a left column's "EXPERIENCE" at 11.5 pt on the row of the first role's
    # "Coolblue  11 / 2014 - Present" at 8.9 pt (a title beside its dates is set like them)
    answer = rows_answer(
        (
            ((167, 63, 370, 93), "Anna Example", 25.5),
            ((117, 593, 153, 607), "SKILLS", 11.5),
            ((176, 597, 250, 606), "Android Development", 7.7),
            ((86, 59, 152, 72), "EXPERIENCE", 11.5),
            ((167, 61, 203, 71), "Northwind  11 / 2014 - Present", 8.9),
            ((167, 75, 240, 85), "Android Developer", 8.9),
            ((167, 95, 528, 106), "I was the first Android developer and built the team.", 8.9),
        ),
        ocr=False,
    )
    assert [start for *_, start in roles(answer)] == ["2014-11"]


def test_a_post_label_and_a_legal_name_alone() -> None:
    # nvalentini: "Ruolo: Front-end React developer" under "01/2024 – Presente, presso Top
    # Network S.p.A.,"; a role whose line names only the house, with its legal form
    answer = rows_answer(
        (
            ((36, 500, 200, 512), "Maria Esempio", 14.0),
            ((36, 525, 300, 538), "ESPERIENZE PROFESSIONALI", 12.0),
            ((36, 540, 300, 552), "01/2024 – Presente, presso Alfa Rete S.p.A.,", 11.0),
            ((36, 553, 300, 565), "Ruolo: Front-end React developer", 11.0),
            ((36, 567, 560, 579), "Mansioni: sviluppo e mantenimento di applicativi web.", 11.0),
            ((36, 602, 300, 614), "03/2023 – 12/2023, presso Beta Sistemi S.r.l.,", 11.0),
        ),
        ocr=False,
    )
    assert roles(answer) == [
        ("Front-end React developer", "Alfa Rete S.p.A.", "2024-01"),
        (None, "Beta Sistemi S.r.l.", "2023-03"),
    ]


def test_a_bullets_wrapped_last_word_and_a_place_with_a_note() -> None:
    # dosorio: a bullet's last word "experience" wrapped onto a line of its own; "Remote
    # (contract, concurrent)" flush right of the employer's line
    answer = rows_answer(
        (
            ((156, 53, 439, 102), "Caio Ferreira", 33.9),
            ((60, 340, 214, 361), "Professional Experience", 14.3),
            ((59, 366, 208, 384), "Northwind", 11.7),
            ((479, 366, 547, 380), "Remote, Brazil", 10.0),
            ((70, 377, 157, 392), "Full Stack Developer  Jul 2025-Present", 10.0),
            ((72, 437, 547, 454), "- Optimized workflows in restaurants, improving the customer", 12.0),
            ((81, 451, 125, 465), "experience", 10.0),
            ((59, 482, 200, 500), "Initech Tickets (Initech IT)", 11.7),
            ((406, 482, 547, 496), "Remote (contract, concurrent)", 10.0),
            ((70, 493, 300, 508), "Full Stack Developer (freelance)  Jun 2024-Jun 2026", 10.0),
            ((72, 505, 547, 520), "- Built most of the customer-facing frontend in Angular", 12.0),
        ),
        ocr=False,
    )
    assert [employer for _, employer, _ in roles(answer)] == ["Northwind", "Initech Tickets (Initech IT)"]


def test_roles_flush_with_their_company_line_take_its_name() -> None:
    # a5ingh: "Infosys Limited | Feb 2011 to Present" then each role's own dated line set
    # flush with it, the last one on the next page
    answer = {
        **rows_answer((), ocr=False),
        "blocks": [
            styled_block((36, 234, 100, 246), "EXPERIENCE", 11.0),
            styled_block((36, 247, 190, 257), "Initech Limited | Feb 2011 to Present", 10.0),
            styled_block((36, 260, 438, 270), "Senior Technologist | Mississauga, Canada | Apr 2022 to Present", 10.0),
            styled_block(
                (41, 270, 560, 280), "• Reduced deployment cycles by 20% by architecting CI/CD pipelines.", 10.0
            ),
            styled_block((36, 371, 419, 381), "Specialist Programmer | Chandigarh, India | Oct 2019 to Apr 2022", 10.0),
            styled_block((41, 381, 560, 391), "• Architected the in-house platform for rapid deployments.", 10.0),
            {
                **styled_block(
                    (36, 40, 388, 50), "QA/Automation Lead/SDET | Chandigarh, India | Feb 2011 to Sep 2019", 10.0
                ),
                "page": 2,
            },
            {
                **styled_block((41, 52, 560, 62), "• Automated the regression suite of the student system.", 10.0),
                "page": 2,
            },
        ],
        "pages": 2,
    }
    assert roles(answer) == [
        ("Senior Technologist", "Initech Limited", "2022-04"),
        ("Specialist Programmer", "Initech Limited", "2019-10"),
        ("QA/Automation Lead/SDET", "Initech Limited", "2011-02"),
    ]


def test_a_companys_tagline_under_its_name_is_no_header() -> None:
    # jgalego: "Title  dates" / "Employer" / "Moving faster from idea to production."
    answer = rows_answer(
        (
            ((36, 194, 174, 208), "PROFESSIONAL EXPERIENCE", 12.0),
            ((47, 337, 228, 349), "Platform Engineer / Lead ML Engineer", 10.9),
            ((510, 337, 571, 349), "2019 – 2022", 10.9),
            ((47, 349, 87, 364), "Umbrella", 10.9),
            ((47, 369, 297, 382), "Managing industrial-grade applications in the cloud.", 10.9),
            ((47, 396, 130, 408), "DevOps Engineer", 10.9),
            ((512, 396, 571, 408), "2017 – 2019", 10.9),
            ((47, 408, 93, 423), "Initrode", 10.9),
            ((47, 429, 233, 441), "Moving faster from idea to production.", 10.9),
            ((47, 455, 174, 467), "Test Automation Engineer", 10.9),
            ((512, 455, 571, 467), "2014 – 2017", 10.9),
            ((47, 467, 87, 482), "Hooli", 10.9),
            ((47, 488, 265, 500), "Scaling software testing through automation.", 10.9),
        ),
        ocr=False,
    )
    assert roles(answer) == [
        ("Platform Engineer / Lead ML Engineer", "Umbrella", "2019"),
        ("DevOps Engineer", "Initrode", "2017"),
        ("Test Automation Engineer", "Hooli", "2014"),
    ]


def test_worldwide_is_where_and_an_apostrophe_accent_names_a_school() -> None:
    assert is_place("Worldwide") and is_place("Anywhere")
    # dcastrovilli: "Universita’ degli studi di Verona" over the degree and its dates
    answer = rows_answer(
        (
            ((41, 145, 200, 165), "Formazione", 20.6),
            ((40, 168, 300, 178), "Universita’ degli studi di Verona", 9.7),
            ((516, 168, 560, 178), "Verona (VR)", 8.5),
            ((40, 183, 450, 193), "LAUREA TRIENNALE IN BIOINFORMATICA", 8.9),
            ((503, 183, 560, 193), "10/2010 - 03/2013", 6.8),
        ),
        ocr=False,
    )
    assert _education(answer) == [("Universita’ degli studi di Verona", "LAUREA TRIENNALE IN BIOINFORMATICA")]


def test_portuguese_language_names_are_no_skills_and_a_kerned_spaced_heading() -> None:
    # mpestana: "LíNGUAS" / "• Português, Inglês, Francês, Espanhol"; aslansn: "E D U CAT I O N"
    answer = rows_answer(
        (
            ((40, 100, 200, 114), "Ana Exemplo", 16.0),
            ((40, 340, 200, 352), "HABILIDADES", 12.0),
            ((58, 370, 500, 381), "• Python, R, MySQL, Tableau", 10.9),
            ((40, 401, 120, 413), "LíNGUAS", 12.0),
            ((58, 422, 400, 433), "• Português, Inglês, Francês, Espanhol", 10.9),
        ),
        ocr=False,
    )
    skills = [str(v.value) for v in extract(answer, as_of=AS_OF).fields.get("skills", ())]
    assert skills == ["Python", "R", "MySQL", "Tableau"]
    assert heading_kind(_unspaced("E D U CAT I O N")) == "education"
    assert _unspaced("I AM A CAT") == "I AM A CAT"


def test_a_neighbours_edge_inside_the_names_span_is_not_the_line_below_it() -> None:
    # destivano-scan150: the OCR reads "|| Linkedin || Github" (ending 6 pt inside the given
    # names' span) between "Mohamed Amine" and "AROUS"
    answer = rows_answer(
        (
            ((28, 56, 139, 77), "(+33) 6 12 34 56 78", 22.1),
            ((204, 56, 409, 77), "Karim Youssef", 26.9),
            ((28, 80, 104, 92), "Portfolio", 13.2),
            ((87, 77, 210, 103), "|| Linkedin || Github", 17.3),
            ((251, 77, 337, 103), "BENALI", 30.0),
            ((28, 77, 203, 105), "karim.exemple@example.fr", 24.5),
            ((46, 140, 567, 151), "Final-year engineering student specialising in generative AI systems.", 11.7),
        ),
        ocr=True,
    )
    assert name_of(answer) == "Karim Youssef Benali"


def test_a_slash_inside_brackets_or_after_a_stacks_name_stays_in_the_title() -> None:
    # meyssamh: "Fullstack-Entwickler (React / Next.js / Node.js)"; cmoreno: "Django /
    # Angular Developer"
    answer = rows_answer(
        (
            ((40, 100, 200, 114), "Erika Muster", 16.0),
            ((40, 200, 200, 214), "BERUFSERFAHRUNG", 12.0),
            ((40, 220, 400, 231), "Fullstack-Entwickler (React / Next.js / Node.js)", 10.0),
            ((450, 220, 560, 231), "05/2025 – heute", 10.0),
            ((40, 233, 300, 244), "Northwind GmbH", 10.0),
            ((40, 246, 500, 257), "Entwicklung einer Plattform für Kundenportale.", 10.0),
            ((40, 270, 400, 281), "Django / Angular Developer", 10.0),
            ((450, 270, 560, 281), "12/2017 – 11/2018", 10.0),
            ((40, 283, 300, 294), "Globex AG", 10.0),
        ),
        ocr=False,
    )
    assert roles(answer) == [
        ("Fullstack-Entwickler (React / Next.js / Node.js)", "Northwind GmbH", "2025-05"),
        ("Django / Angular Developer", "Globex AG", "2017-12"),
    ]


def test_a_scans_name_in_two_display_lines_with_a_bar_left_on_one() -> None:
    # oliverwebdev-de-scan150: "Oliver" at 28 pt, "Spörl |" at 32.5 pt 19 pt below it (the
    # OCR's boxes hug the letters; the bar is the row's separator)
    answer = rows_answer(
        (
            ((62, 50, 153, 76), "Oskar", 28.0),
            ((61, 95, 143, 127), "Brühl |", 32.5),
            ((65, 188, 147, 200), "Lebenslauf", 14.0),
            ((61, 250, 132, 265), "Über mich", 16.1),
            ((61, 285, 220, 295), "Engagierter und dynamischer Entwickler", 11.0),
            ((61, 298, 220, 308), "mit Erfahrung in Web-Anwendungen.", 11.0),
            ((61, 311, 220, 321), "oskar@example.de", 11.0),
        ),
        ocr=True,
    )
    assert name_of(answer) == "Oskar Brühl"


def test_a_labels_words_set_larger_than_the_name_on_a_scan_are_no_name() -> None:
    # jlvilchis-en-scan150: "€ Employment Situation" read 2.6 pt taller than the name
    answer = rows_answer(
        (
            ((227, 57, 380, 72), "Curriculum Vitae", 15.1),
            ((212, 88, 400, 100), "Lucía Martín-Pérez", 12.3),
            ((72, 119, 300, 132), "ENSTA - Institut Polytechnique de Paris", 13.0),
            ((191, 238, 500, 251), "Researcher of Computer Science working on", 13.5),
            ((185, 256, 500, 266), "multi-agent coordination and behavioural simulation.", 9.6),
            ((203, 284, 400, 299), "€ Employment Situation", 14.9),
            ((241, 312, 400, 323), "French Naval Academy", 10.9),
        ),
        ocr=True,
    )
    assert name_of(answer) == "Lucía Martín-Pérez"


def test_a_scanned_pandoc_resumes_list_item_headers() -> None:
    # jhonrocha-en-scan150: the OCR reads the list bullets as "e" (a line of its own left of
    # "Method") and as "e " or "«+ " before the dates
    answer = rows_answer(
        (
            ((55, 217, 150, 231), "Experience", 11.5),
            ((55, 261, 200, 273), "Senior Software Engineer", 9.7),
            ((69, 279, 74, 285), "e", 6.2),
            ((80, 279, 120, 288), "Northwind", 8.3),
            ((69, 291, 170, 301), "e Mar 2024 - Present", 10.1),
            ((55, 308, 560, 318), "As a senior engineer, I was responsible for new features of the APIs.", 9.6),
            ((55, 357, 200, 369), "Senior Full Stack Engineer", 9.7),
            ((69, 374, 74, 380), "e", 7.0),
            ((81, 374, 120, 383), "Globex", 8.5),
            ((69, 386, 170, 396), "«+ Oct 2023 - Mar 2024", 10.2),
            ((55, 404, 560, 414), "Working in client projects, responsible for developing APIs.", 9.4),
            # ... and a bullet left of the dates as a mark of its own
            ((55, 441, 200, 453), "Software Engineer", 9.7),
            ((69, 458, 74, 464), "e", 7.0),
            ((80, 458, 120, 467), "Initech", 9.1),
            ((69, 470, 74, 476), "•", 6.4),
            ((79, 470, 170, 479), "Jan 2022 - Oct 2023", 8.4),
            ((55, 487, 560, 497), "As a software engineer, I build and maintain scalable projects.", 9.6),
        ),
        ocr=True,
    )
    assert roles(answer) == [
        ("Senior Software Engineer", "Northwind", "2024-03"),
        ("Senior Full Stack Engineer", "Globex", "2023-10"),
        ("Software Engineer", "Initech", "2022-01"),
    ]
    # another list's item over its dates is left as read: "e" / "Técnico - NAVE Rio" / "2012 até 2014"
    education = rows_answer(
        (
            ((73, 653, 140, 665), "Formação", 12.0),
            ((91, 686, 96, 692), "e", 10.6),
            ((108, 686, 400, 699), "Técnico em Programação de Jogos Digitais - Escola Exemplo", 13.5),
            ((108, 704, 200, 713), "2012 até 2014", 8.8),
        ),
        ocr=True,
    )
    assert _education(education) == [("Escola Exemplo", "Técnico em Programação de Jogos Digitais")]


def test_a_trimmed_text_layer_line_keeps_its_style_runs() -> None:
    # hejna-cs: a row's piece "Lektor matematiky |" keeps its style for the house-style
    # rules once its bar is taken off (its runs were dropped with any changed text)
    from ats.extraction._layout import lines_of

    answer = {
        **rows_answer((), ocr=False),
        "blocks": [styled_block((231, 377, 330, 389), "Lektor matematiky |", 12.0, style=1)],
    }
    (line,) = lines_of(answer)
    assert line.text == "Lektor matematiky"
    assert line.runs == ((len("Lektor matematiky"), 1, 12.0),)


def test_a_word_before_a_year_and_month_and_a_chinese_unit_before_the_post() -> None:
    # layout-36. shaonhuang-zh: "Absotlute IT, 澳大利亚  2024/01 – 至今" - a word that is no month
    # before "2024/01" took the date's match ("Acme 2024/01" read the year alone);
    # "(ACG 建站与云市场部) 前端研发实习": the unit in brackets before the post
    assert [(r.start, r.end) for r in date_ranges("Acme, 2024/01 – 2025/02")] == [((2024, 1), (2025, 2))]
    assert [(r.start, r.end) for r in date_ranges("Northwind, 澳大利亚  2024/01 – 至今")] == [((2024, 1), None)]
    assert [(r.start, r.end) for r in date_ranges("Mar 2019 – Present")] == [((2019, 3), None)]
    answer = rows_answer(
        (
            ((260, 42, 320, 66), "王小明", 24.8),
            ((43, 174, 120, 190), "工作经历", 14.3),
            ((43, 196, 560, 208), "北方科技（Northwind）  2021/01 – 2021/08", 12.0),
            ((43, 214, 300, 225), "(云市场部) 前端研发实习", 10.0),
            ((45, 228, 560, 239), "• 负责云监控产品的前端开发与维护。", 10.0),
        ),
        ocr=False,
    )
    assert roles(answer) == [("前端研发实习", "北方科技（Northwind）", "2021-01")]
