"""The extractor per layout, on small parse answers written out by hand (no parser involved).

Each helper builds the schema 2 shape the sandbox validator lets through: PDF blocks with
lines (bbox, text, font size) or DOCX elements (part, index, style / table, row, col).
"""

# ruff: noqa: RUF001 (CV text has typographic dashes)
from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from ats.extraction.api import EXTRACTOR_VERSION, extract, extract_naive
from ats.extraction.data import Extraction

AS_OF = date(2026, 11, 1)


def pdf(*columns: list[tuple[str, float]], x_step: float = 200.0) -> dict[str, Any]:
    """A one-page PDF answer: each column a list of (text, font size), one block per line."""
    blocks = []
    for c, column in enumerate(columns):
        y = 60.0
        for text, size in column:
            x0 = 40.0 + c * x_step
            bbox = [x0, y, x0 + 6 * len(text), y + size * 1.2]
            blocks.append(
                {"page": 1, "bbox": bbox, "text": text, "lines": [{"bbox": bbox, "text": text, "size": size}]}
            )
            y += size * 1.6
    return {"schema": 2, "kind": "pdf", "text": "\n".join(b["text"] for b in blocks), "blocks": blocks, "elements": []}


def docx(*elements: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    """A DOCX answer from (part, text, extra) triples; indexes count per part."""
    counts: dict[str, int] = {}
    out = []
    for part, text, extra in elements:
        index = counts.get(part, 0)
        counts[part] = index + 1
        el = {"part": part, "index": index, "text": text, **extra}
        if "row" not in el:
            el.setdefault("style", None)
        out.append(el)
    return {"schema": 2, "kind": "docx", "text": "\n".join(e["text"] for e in out), "blocks": [], "elements": out}


def run(answer: dict[str, Any], **kw: Any) -> Extraction:
    return extract(answer, as_of=AS_OF, **kw)


BODY = [
    ("Experience", 13),
    ("Senior Engineer, Northwind Systems", 10.5),
    ("Jan 2019 – Present", 10.5),
    ("• Built services with Python and Postgres.", 10.5),
    ("Engineer, Initech Ltd", 10.5),
    ("Mar 2015 – Dec 2018", 10.5),
    ("Education", 13),
    ("BSc Computer Science, University of Leeds", 10.5),
    ("Skills", 13),
    ("Python, Postgres, k8s, ML, Go", 10.5),
    ("Languages", 13),
    ("English (native), German (B2)", 10.5),
]


def test_single_column_all_fields_with_provenance() -> None:
    answer = pdf(
        [
            ("Hannah Clarke", 20),
            ("Data Engineer", 11.5),
            ("hannah.clarke@example.co.uk", 10),
            ("020 7946 0123", 10),
            ("Leeds, United Kingdom", 10),
            ("linkedin.com/in/hannah-clarke", 10),
            *BODY,
        ]
    )
    ex = run(answer)
    assert ex.extractor_version == EXTRACTOR_VERSION
    assert ex.first("name") == "Hannah Clarke"
    assert ex.values("emails") == ["hannah.clarke@example.co.uk"]
    assert ex.contact_emails == ("hannah.clarke@example.co.uk",)
    assert ex.values("phones") == ["+442079460123"]
    assert ex.values("links") == [{"kind": "linkedin", "url": "https://linkedin.com/in/hannah-clarke"}]
    assert ex.first("location") == "Leeds, United Kingdom"
    assert ex.values("skills") == ["Python", "Postgres", "k8s", "ML", "Go"]  # as the CV wrote them
    labels = [fv.sources[0].taxonomy_label for fv in ex.fields["skills"]]
    assert labels == ["Python", "PostgreSQL", "Kubernetes", "Machine Learning", "Go"]
    # Mar 2015-Dec 2018 (46 months) + Jan 2019-Nov 2026 (95 months), both ends inclusive
    assert ex.first("years_experience") == pytest.approx(11.8, abs=0.05)
    assert ex.values("education") == ["BSc Computer Science, University of Leeds"]
    assert ex.values("languages") == ["English", "German"]
    for values in ex.fields.values():
        for fv in values:
            assert fv.sources and all(s.page == 1 and s.bbox and s.text and s.rule for s in fv.sources)
    phone = ex.fields["phones"][0].sources[0]
    assert phone.text == "020 7946 0123" and phone.rule == "phone.e164"


def test_title_line_above_the_name_is_not_the_name() -> None:
    for title in ("Curriculum Vitae", "LEBENSLAUF", "Résumé", "CV"):
        answer = pdf([(title, 22), ("JÜRGEN MÜLLER", 18), ("juergen@example.de", 10), *BODY])
        assert run(answer).first("name") == "Jürgen Müller", title
        assert extract_naive(answer).first("name") == title  # the baseline's failure


def test_two_column_sidebar_name_in_the_main_column() -> None:
    sidebar = [("Contact", 12), ("jo@example.nl", 8.5), ("06 12345678", 8.5), ("Utrecht", 8.5), ("Skills", 12),
               ("Docker, Kubernetes", 9)]  # fmt: skip
    main = [("Sanne de Vries", 22), ("Site Reliability Engineer", 12), ("Werkervaring", 13),
            ("03/2020 – heden  DevOps Engineer – Bol", 10.5)]  # fmt: skip
    for answer in (pdf(sidebar, main), pdf(main, sidebar)):  # either column first in reading order
        ex = run(answer)
        assert ex.first("name") == "Sanne de Vries"
        assert ex.values("phones") == ["+31612345678"]  # Utrecht -> NL for a national number
        assert ex.first("location") == "Utrecht"
        assert ex.values("skills") == ["Docker", "Kubernetes"]
        assert ex.first("years_experience") == pytest.approx(6.8, abs=0.05)


def test_one_line_contact_header() -> None:
    answer = pdf(
        [
            ("Amélie Dubois", 20),
            ("amelie.dubois@orange.fr | 06 12 34 56 78 | 75011 Paris | github.com/adubois", 9.5),
            ("Expérience professionnelle", 13),
            ("janv. 2018 – aujourd'hui  Data Scientist – Contoso SA", 10.5),
        ]
    )
    ex = run(answer)
    assert ex.first("name") == "Amélie Dubois"
    assert ex.values("phones") == ["+33612345678"]
    assert ex.first("location") == "75011 Paris"
    assert ex.values("links") == [{"kind": "github", "url": "https://github.com/adubois"}]
    assert ex.first("years_experience") == pytest.approx(8.9, abs=0.05)  # Jan 2018-Nov 2026


def test_docx_contact_table_and_styles() -> None:
    answer = docx(
        ("body", "Lebenslauf", {"style": "Subtitle"}),
        ("body", "Katharina Groß", {"style": "Title"}),
        ("body", "Senior Projektmanagerin", {}),
        ("table", "E-Mail", {"table": 0, "row": 0, "col": 0}),
        ("table", "k.gross@posteo.de", {"table": 0, "row": 0, "col": 1}),
        ("table", "Telefon", {"table": 0, "row": 1, "col": 0}),
        ("table", "030 12345678", {"table": 0, "row": 1, "col": 1}),
        ("table", "Adresse", {"table": 0, "row": 2, "col": 0}),
        ("table", "10115 Berlin", {"table": 0, "row": 2, "col": 1}),
        ("body", "Berufserfahrung", {"style": "Heading2"}),
        ("body", "seit 04/2021  Leiterin IT, Globex GmbH", {}),
        ("body", "Kenntnisse", {"style": "Heading2"}),
        ("body", "SAP", {"style": "List Bullet"}),
        ("body", "Projektmanagement", {"style": "List Bullet"}),
    )
    ex = run(answer)
    assert ex.first("name") == "Katharina Groß"
    assert ex.fields["name"][0].sources[0].part == "body"
    assert ex.values("emails") == ["k.gross@posteo.de"] and ex.contact_emails == ("k.gross@posteo.de",)
    email_source = ex.fields["emails"][0].sources[0]
    assert (email_source.part, email_source.index, email_source.page) == ("table", 1, None)
    assert ex.values("phones") == ["+493012345678"]
    assert ex.first("location") == "10115 Berlin"
    assert sorted(ex.values("skills")) == ["Projektmanagement", "SAP"]
    assert ex.first("years_experience") == pytest.approx(5.7, abs=0.05)  # seit 04/2021 -> heute


def test_docx_page_header_and_agency_footer() -> None:
    answer = docx(
        ("header", "Carlos Peña Álvarez · Ingeniero de Software", {"style": "Header"}),
        ("header", "carlos.pena@gmail.com · +34 655 123 456 · Madrid", {"style": "Header"}),
        ("body", "Experiencia", {"style": "Heading2"}),
        ("body", "2016 - actualidad  Ingeniero Backend, Cabify", {}),
        ("footer", "Submitted by TalentBridge Recruitment – cv@talentbridge.example – 020 7946 0000", {}),
    )
    ex = run(answer)
    assert ex.first("name") == "Carlos Peña Álvarez"
    assert ex.fields["name"][0].sources[0].part == "header"
    assert ex.values("emails") == ["carlos.pena@gmail.com"]  # not the agency's
    assert ex.values("phones") == ["+34655123456"]
    assert ex.first("location") == "Madrid"


def test_referees_are_not_the_candidate() -> None:
    answer = pdf(
        [
            ("Oliver Bennett", 20),
            ("oliver@example.com", 10),
            *BODY,
            ("References", 13),
            ("Dr Anna Schmidt, Head of Engineering", 10.5),
            ("anna.schmidt@globex.example · 020 7946 0999", 10.5),
        ]
    )
    ex = run(answer)
    assert ex.values("emails") == ["oliver@example.com"]
    assert ex.values("phones") == []
    assert "anna.schmidt@globex.example" not in ex.contact_emails


def test_skill_lists_bullets_and_commas_and_aliases() -> None:
    bullets = pdf([("Ana Ruiz", 20), ("Habilidades", 13), ("• Postgres", 10), ("• k8s", 10), ("- Node.js", 10)])
    assert sorted(run(bullets).values("skills")) == ["Node.js", "Postgres", "k8s"]
    commas = pdf([("Ana Ruiz", 20), ("Skills", 13), ("Amazon Web Services; scikit-learn, CI/CD, C++ and C#", 10)])
    assert sorted(run(commas).values("skills")) == ["Amazon Web Services", "C#", "C++", "CI/CD", "scikit-learn"]
    # Outside a skills section ambiguous words are not skills, nor is a job title.
    prose = pdf([("Ana Ruiz", 20), ("Experience", 13), ("Machine Learning Engineer at Go Ahead; used Python", 10)])
    assert run(prose).values("skills") == ["Python"]


@pytest.mark.parametrize(
    ("line", "years"),
    [
        ("Jan 2020 – Present", 6.9),  # Jan 2020-Nov 2026: 83 months
        ("01/2020 - heute", 6.9),
        ("janvier 2020 – aujourd'hui", 6.9),
        ("seit 01/2020", 6.9),
        ("since Jan 2020", 6.9),
        ("2020 – current", 6.4),  # a bare year reads as its middle: Jul 2020-Nov 2026
        ("01.2020 – obecnie", 6.9),
        ("ene. 2020 – actualidad", 6.9),
    ],
)
def test_present_words_in_several_languages(line: str, years: float) -> None:
    answer = pdf([("Ana Ruiz", 20), ("Experience", 13), (line, 10)])
    assert run(answer).first("years_experience") == pytest.approx(years, abs=0.05)


def test_overlapping_roles_are_merged() -> None:
    answer = pdf(
        [
            ("Ana Ruiz", 20),
            ("Experience", 13),
            ("Jan 2016 – Dec 2019  Engineer", 10),
            ("Jun 2018 – May 2019  Freelance consultant", 10),  # inside the first
            ("Jan 2020 – Dec 2020  Lead", 10),
        ]
    )
    assert run(answer).first("years_experience") == pytest.approx(5.0, abs=0.05)


def test_education_dates_do_not_count_as_experience() -> None:
    answer = pdf([("Ana Ruiz", 20), ("Education", 13), ("2010 – 2015  PhD, University of Leeds", 10)])
    assert run(answer).first("years_experience") is None


def test_region_hint_and_default_region() -> None:
    national = [("Ana Ruiz", 20), ("ana@example.com", 10), ("612 34 56 78", 10)]
    assert run(pdf(national)).values("phones") == []  # not a valid GB number
    assert run(pdf(national), default_region="ES").values("phones") == ["+34612345678"]
    assert run(pdf([*national, ("Sevilla", 10)])).values("phones") == ["+34612345678"]  # city -> ES
    plus = [("Ana Ruiz", 20), ("+34 912 345 678", 10), ("612 34 56 78", 10)]  # another number's +code
    assert sorted(run(pdf(plus)).values("phones")) == ["+34612345678", "+34912345678"]


def test_dates_are_not_phone_numbers() -> None:
    answer = pdf([("Ana Ruiz", 20), ("Esperienza", 13), ("01/09/2019 – 31/08/2021  Sviluppatrice, Roma", 10)])
    assert run(answer).values("phones") == []


def test_ocr_junk_next_to_the_at_sign() -> None:
    ex = run(pdf([("Rhys Llewellyn", 20), ("rhys.llewellyn®@outlook.com", 10)]))
    assert ex.values("emails") == ["rhys.llewellyn@outlook.com"]
    assert ex.fields["emails"][0].sources[0].text == "rhys.llewellyn@outlook.com"


def test_schema_1_answers_still_extract() -> None:
    old_pdf = {
        "schema": 1,
        "kind": "pdf",
        "text": "Jane Doe\njane@example.com",
        "blocks": [{"page": 1, "bbox": [72, 70, 200, 110], "text": "Jane Doe\njane@example.com"}],
    }
    ex = run(old_pdf)
    assert ex.first("name") == "Jane Doe" and ex.values("emails") == ["jane@example.com"]
    assert ex.fields["emails"][0].sources[0].bbox == (72.0, 70.0, 200.0, 110.0)
    old_docx = {"schema": 1, "kind": "docx", "text": "", "paragraphs": ["Jane Doe"], "tables": [[["Email", "j@x.org"]]]}
    ex = run(old_docx)
    assert ex.first("name") == "Jane Doe" and ex.values("emails") == ["j@x.org"]
    assert ex.fields["emails"][0].sources[0].part == "table"
    text_only = run({"text": "Jane Doe\njane@example.com"})
    assert text_only.first("name") == "Jane Doe" and text_only.fields["name"][0].sources[0].part == "text"


def test_round_trip_through_dict() -> None:
    ex = run(pdf([("Hannah Clarke", 20), ("hannah@example.com", 10), *BODY]))
    assert Extraction.from_dict(ex.to_dict()) == ex


def test_ocr_misreads_of_the_candidates_email_are_repaired_with_the_text_as_read() -> None:
    def answer(contact: str, *, ocr: bool) -> dict[str, Any]:
        a = pdf([("Paweł Wójcik", 20), (contact, 10), *BODY, ("References", 13), ("jan.nowak @ 02.pl", 10)])
        return {**a, "ocr_used": ocr, "ocr_pages": int(ocr)}

    cases = {
        "pawel.w16@02.pl": "pawel.w16@o2.pl",  # 0 for o in a known provider
        "pawel @ hotrnail.com": "pawel@hotmail.com",  # split at the "@", rn for m
        "pawel(at)gmx.de": "pawel@gmx.de",
        "pawel@wp,pl": "pawel@wp.pl",  # "," for "."
        "pawel@®wp.pl": "pawel@wp.pl",  # a stray mark after the "@" (dropped in any document)
        "pawel.wojcik@o02.pl": "pawel.wojcik@o2.pl",  # a glyph read twice
    }
    for read, meant in cases.items():
        ex = run(answer(f"E-mail: {read}", ocr=True))
        assert ex.values("emails") == [meant], read
        (source,) = ex.fields["emails"][0].sources
        assert source.rule == ("email.scan" if "®" in read else "email.ocr_repair"), read
        assert source.text == read.replace("®", "") and source.bbox is not None
        assert list(ex.contact_emails) == [meant]
    # A digital document says what its writer typed; a referee's address is never repaired.
    assert run(answer("E-mail: pawel.w16@02.pl", ocr=False)).values("emails") == ["pawel.w16@02.pl"]
    assert run(answer("E-mail: pawel @ gmx.de", ocr=False)).values("emails") == []
    # Known domains and unknown ones that fold to no provider stay as read.
    # Two characters too many, or another top-level domain: as read.
    for kept in ("joris.bo88@kpnmail.nl", "x@c0mpany.co.uk", "lucia@o0outlook.es", "x@o2.de", "x@o22.com"):
        assert run(answer(kept, ocr=True)).values("emails") == [kept]
