"""Issue 25 items 1-2: phones with region evidence, names under title lines, non-ASCII and
CJK names, internationalised and split e-mails, template placeholders.

Small parse answers written out by hand (the layouts' helpers), with the exact strings the
issue reports as missed plus more of each kind.
"""

# ruff: noqa: RUF001 (CV text has typographic dashes and full-width colons)
from __future__ import annotations

from typing import Any

import pytest

from ats.extraction import _rules
from ats.extraction.data import Extraction, Source
from tests.extraction.test_layouts import pdf, run

GERMAN_BODY = [
    ("Berufserfahrung", 13),
    ("Softwareentwicklerin bei der Nordwind GmbH, seit 03/2019 bis heute", 10.5),
    ("Entwicklung von Diensten mit Python und Postgres für die Logistik", 10.5),
    ("Ausbildung", 13),
    ("Studium der Informatik an der Technischen Universität, 2012 - 2017", 10.5),
    ("Kenntnisse und Sprachen: Deutsch, Englisch, Python, SQL", 10.5),
]
ENGLISH_BODY = [
    ("Experience", 13),
    ("Senior Engineer at Northwind Systems, Jan 2019 – Present", 10.5),
    ("Built services for the logistics team with Python and Postgres", 10.5),
    ("Education", 13),
    ("BSc Computer Science from the university, 2012 – 2015", 10.5),
]


def cv(*top: str, body: list[tuple[str, float]] | None = None, **kw: Any) -> Extraction:
    """A one-column PDF answer: the first line large (the name), then the rest."""
    lines = [(text, 20.0 if i == 0 else 10.0) for i, text in enumerate(top)]
    return run(pdf([*lines, *(body if body is not None else ENGLISH_BODY)]), **kw)


def sources(ex: Extraction, field: str) -> list[Source]:
    return [s for fv in ex.fields.get(field, ()) for s in fv.sources]


# -- phones ----------------------------------------------------------------------------------


def test_us_national_number_under_a_us_address() -> None:
    ex = cv(
        "Jane Smith", "12 Beacon St, Boston, MA 02115", "(617) 895-6148 | jane.smith@gmail.com", default_region="GB"
    )
    assert ex.values("phones") == ["+16178956148"]
    (src,) = sources(ex, "phones")
    assert (src.text, src.region, src.region_from) == ("(617) 895-6148", "US", "cv.place:boston")


def test_german_mobile_in_a_german_cv_takes_the_language_region() -> None:
    # No German place, no .de address: the document's language is the only German signal.
    ex = cv("Hannah Becker", "Mobil: 0151 59505484", "hannah.becker@gmail.com", body=GERMAN_BODY, default_region="GB")
    assert ex.values("phones") == ["+4915159505484"]
    (src,) = sources(ex, "phones")
    assert (src.region, src.region_from, src.rule) == ("DE", "cv.language:de", "phone.label")


def test_english_cv_is_no_language_signal() -> None:
    assert _rules.document_language(_lines(ENGLISH_BODY)) is None
    assert _rules.document_language(_lines(GERMAN_BODY)) == "de"


def _lines(body: list[tuple[str, float]]) -> list[Any]:
    from ats.extraction._layout import lines_of

    return lines_of(pdf(body))


@pytest.mark.parametrize(
    "line",
    ["Tel.: +31 6 99979425", "Tel.: 0031 6 99979425"],
)
def test_international_form_always_parses(line: str) -> None:
    # +31 6 9997... is a range phonenumbers' metadata does not list as valid yet: the writer
    # named the country, so a possible number is enough.
    ex = cv("Daan Visser", line, "daan@gmail.com", default_region="GB")
    assert ex.values("phones") == ["+31699979425"]
    (src,) = sources(ex, "phones")
    assert (src.region, src.region_from) == ("NL", "+31")


@pytest.mark.parametrize("written", ["+33 6 57 26 61 74", "(+33) 6 57 26 61 74", "+33 (0)6 57 26 61 74"])
def test_french_number_stays_french_on_a_cv_that_names_berlin(written: str) -> None:
    ex = cv("Camille Laurent", f"Tél. : {written}", "Berlin, Deutschland", "camille@gmail.com", default_region="DE")
    assert ex.values("phones") == ["+33657266174"]
    assert sources(ex, "phones")[0].text == written


def test_channel_region_decides_when_the_cv_has_no_signal() -> None:
    ex = cv("Lucia Romero", "Phone 612 345 678", "lucia@gmail.com", channel_region="es", default_region="GB")
    assert ex.values("phones") == ["+34612345678"]
    assert sources(ex, "phones")[0].region_from == "channel"
    # Without the channel's region the deployment default (GB) reads it: not valid there.
    ex = cv("Lucia Romero", "Phone 612 345 678", "lucia@gmail.com", default_region="GB")
    assert ex.values("phones") == []
    assert ex.values("phones_as_written") == ["612 345 678"]


def test_the_cv_signal_outranks_the_channel_and_default() -> None:
    ex = cv("Lucia Romero", "Madrid", "Phone 612 345 678", "lucia@gmail.com", channel_region="FR", default_region="GB")
    assert ex.values("phones") == ["+34612345678"]
    assert sources(ex, "phones")[0].region_from == "cv.place:madrid"


def test_deployment_default_is_the_last_resort() -> None:
    ex = cv("Tom Baker", "Phone 020 7946 0123", "tom@gmail.com", default_region="GB")
    assert ex.values("phones") == ["+442079460123"]
    assert sources(ex, "phones")[0].region_from == "default"


def test_no_region_at_all_keeps_the_number_as_written() -> None:
    ex = cv("Tom Baker", "Phone 020 7946 0123", "tom@gmail.com", default_region=None)
    assert ex.values("phones") == []
    assert ex.values("phones_as_written") == ["020 7946 0123"]
    (src,) = sources(ex, "phones_as_written")
    assert (src.rule, src.region, src.region_from) == ("phone.as_written", None, "no region")


def test_ambiguous_signals_keep_the_number_as_written() -> None:
    # Not valid in the strongest signal's region (US), valid in both other signals'.
    evidence = _rules.RegionEvidence(cv=(("US", "cv.place:boston"), ("DE", "cv.email:.de"), ("AT", "cv.place:wien")))
    reading = _rules.read_phone("0664 1234567", evidence)
    assert reading == _rules.PhoneReading(None, None, "ambiguous")
    # Valid in exactly one other signal's region: that one.
    one = _rules.RegionEvidence(cv=(("US", "cv.place:boston"), ("AT", "cv.place:wien")))
    assert _rules.read_phone("0664 1234567", one) == _rules.PhoneReading("+436641234567", "AT", "cv.place:wien")


@pytest.mark.parametrize(
    "label", ["Tel.", "Tél.", "Telefon", "Móvil", "Cell", "Mob.", "Mobile", "Handy", "Telefoon", "GSM", "電話"]
)
def test_phone_labels_in_many_languages(label: str) -> None:
    colon = "：" if label == "電話" else ":"
    ex = cv("Alex Morgan", f"{label}{colon} +44 20 7946 0123", "alex@gmail.com")
    assert ex.values("phones") == ["+442079460123"]
    assert sources(ex, "phones")[0].rule == "phone.label"


# -- names -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "Curriculum Vitae – Anna Schmidt",
        "Lebenslauf: Anna Schmidt",
        "Lebenslauf von Anna Schmidt",
        "RÉSUMÉ | Anna Schmidt",
        "Anna Schmidt – Resume",
        "ANNA SCHMIDT CURRICULUM VITAE",
        "CV Anna Schmidt",
    ],
)
def test_title_words_on_the_name_line_are_stripped(line: str) -> None:
    assert cv(line, "anna.schmidt@gmail.com").values("name") == ["Anna Schmidt"]


def test_title_line_above_the_name() -> None:
    ex = run(pdf([("Resume", 22), ("Jane Smith", 18), ("jane@gmail.com", 10), *ENGLISH_BODY]))
    assert ex.values("name") == ["Jane Smith"]


@pytest.mark.parametrize(
    ("written", "cased"),
    [
        ("ÇAĞLA ÇELİK", "Çağla Çelik"),
        ("ÉLODIE ŒUVRARD", "Élodie Œuvrard"),
        ("JÜRGEN GROß", "Jürgen Groß"),
        ("SEÁN O'BRIEN", "Seán O'Brien"),
        ("JEAN-PIERRE DE LA FONTAINE", "Jean-Pierre de la Fontaine"),
        ("Anna SCHMIDT", "Anna Schmidt"),
        ("ŁUKASZ ŻÓŁKIEWSKI", "Łukasz Żółkiewski"),
        ("J.R.R. TOLKIEN", "J.R.R. Tolkien"),
        ("JOHN SMITH III", "John Smith III"),
    ],
)
def test_all_caps_names_are_cased_with_their_non_ascii_capitals(written: str, cased: str) -> None:
    assert cv(written, "someone@gmail.com").values("name") == [cased]


@pytest.mark.parametrize(
    "phrase",
    ["ENSEIGNANT EN MATHÉMATIQUES", "HEAD OF DATA", "DIRECTOR FOR SALES AND MARKETING", "JEFE DE PROYECTO CON IA"],
)
def test_an_all_caps_phrase_above_the_name_is_no_name(phrase: str) -> None:
    # Re-cased word by word such a line is name-shaped ("Enseignant En Mathématiques", a
    # scan's reading of a title set in capitals); its "en", "of", "for" say it is a phrase.
    ex = run(pdf([(phrase, 22), ("Jean Dupont", 14), ("jean.dupont@gmail.com", 10), *ENGLISH_BODY]))
    assert ex.values("name") == ["Jean Dupont"]


@pytest.mark.parametrize("written", ["Hugo (Chun-Ho) Lin", 'Robert "Bob" Smith', "Anna „Ania“ Nowak"])
def test_a_name_with_its_other_form_between_its_words_is_kept_as_written(written: str) -> None:
    assert cv(written, "someone@gmail.com").values("name") == [written]


@pytest.mark.parametrize("junk", ["(Draft) Resume Text", "Smith (2024)", "Jane (Doe"])
def test_brackets_elsewhere_make_no_name(junk: str) -> None:
    assert cv(junk, "someone@gmail.com").values("name") == []


@pytest.mark.parametrize(
    ("line", "address", "expected"),
    [
        ("ACH RAF NAJM l", "najmi.achraf@gmail.com", "Achraf Najmi"),  # OCR's spacing, "l" for "I"
        ("JaneSmith", "jane.smith@gmail.com", "Jane Smith"),
    ],
)
def test_a_line_that_spells_the_address_words_is_spaced_as_them(line: str, address: str, expected: str) -> None:
    ex = run(pdf([("ELECTRO INFO PHYSICIST", 14), (line, 26), (address, 10), *ENGLISH_BODY]))
    assert ex.values("name") == [expected]


def test_an_address_never_adds_or_changes_a_letter_of_the_name() -> None:
    # "Jonn Doe" does not spell john.doe: it stays as read (no name is made up from an address).
    assert _rules._respaced_by_email("Jonn Doe", _rules._email_name_parts(["john.doe@gmail.com"])) is None
    assert _rules._respaced_by_email("ACH RAF NAJM", _rules._email_name_parts(["najmi.achraf@gmail.com"])) is None


@pytest.mark.parametrize(
    ("written", "address"), [("Mary Ann Smith", "maryann.smith@gmail.com"), ("Ana De Souza", "ana.desouza@gmail.com")]
)
def test_a_name_as_read_is_not_respaced_by_its_address(written: str, address: str) -> None:
    assert cv(written, address).values("name") == [written]


@pytest.mark.parametrize("junk", ["E Engagement", "Langues M", "T Haar"])
def test_a_bare_letter_first_or_last_is_no_name(junk: str) -> None:
    # An icon or a cut-off glyph read as a letter on a scan; a middle initial still is one.
    # ("E Experience", this test's first junk until layout-40, is a heading now: an icon OCR
    # read as a capital before a heading's words - test_layout40_rules.)
    ex = run(pdf([(junk, 24), ("John F Kennedy", 16), ("jfk@gmail.com", 10), *ENGLISH_BODY]))
    assert ex.values("name") == ["John F Kennedy"]


@pytest.mark.parametrize("written", ["王 小明", "王小明", "山田 太郎", "김민준", "姓名：李娜"])
def test_cjk_names_are_kept_in_the_order_written(written: str) -> None:
    expected = written.rsplit("：", maxsplit=1)[-1]
    assert cv(written, "someone@gmail.com").values("name") == [expected]


def test_cjk_titles_are_not_names() -> None:
    ex = run(pdf([("个人简历", 24), ("王小明", 18), ("wang@163.com", 10)]))
    assert ex.values("name") == ["王小明"]


# -- e-mails ---------------------------------------------------------------------------------


@pytest.mark.parametrize("address", ["jürgen@müller.de", "δοκιμή@παράδειγμα.ελ", "用户@例子.广告"])
def test_internationalised_emails_are_kept_in_unicode(address: str) -> None:
    assert address in cv("Jürgen Groß", f"E-Mail: {address}").values("emails")


def test_cjk_label_glued_to_an_address_is_not_part_of_it() -> None:
    assert cv("王小明", "邮箱wang.xm@163.com").values("emails") == ["wang.xm@163.com"]


@pytest.mark.parametrize(
    ("first", "second", "address"),
    [
        ("jane.doe@exam", "ple-mail.co.uk", "jane.doe@example-mail.co.uk"),
        ("Email: jane.doe@", "gmail.com", "jane.doe@gmail.com"),
        ("jane.averylongsurname", "@gmail.com", "jane.averylongsurname@gmail.com"),
        ("jane.doe@gmail.", "com | London", "jane.doe@gmail.com"),
    ],
)
def test_emails_split_across_lines(first: str, second: str, address: str) -> None:
    ex = cv("Jane Doe", first, second)
    assert ex.values("emails") == [address]
    (src,) = sources(ex, "emails")
    assert src.rule == "email.joined"
    assert src.text == f"{first.rsplit(maxsplit=1)[-1]}⏎{second.split(maxsplit=1)[0]}"


def test_a_whole_address_is_not_joined_with_the_next_line() -> None:
    ex = cv("Jane Doe", "jane.doe@gmail.com", "london.uk")
    assert ex.values("emails") == ["jane.doe@gmail.com"]


@pytest.mark.parametrize("icon", ["\uf0e0", "✉", "✉\ufe0f", "📧", "\uf003 "])
def test_emails_behind_icon_glyphs(icon: str) -> None:
    assert cv("Jane Doe", f"{icon}jane.doe@gmail.com").values("emails") == ["jane.doe@gmail.com"]


# -- placeholders ----------------------------------------------------------------------------


def test_template_placeholders_are_kept_and_flagged() -> None:
    ex = cv("Your Name Here", "123-456-7890", "john.doe@example.com", default_region="US")
    assert ex.values("name") == ["Your Name Here"]
    assert ex.values("emails") == ["john.doe@example.com"]
    # Not a valid US number (no area code starts with 1): kept as written, flagged too.
    assert ex.values("phones_as_written") == ["123-456-7890"]
    for field in ("name", "emails", "phones_as_written"):
        assert all(s.placeholder for s in sources(ex, field)), field
    assert all(s.to_dict()["placeholder"] is True for s in sources(ex, "emails"))


def test_john_doe_is_a_placeholder_only_beside_a_sample_contact() -> None:
    sample = cv("John Doe", "john.doe@example.com", "Phone +44 20 7946 0123")
    assert all(s.placeholder for s in sources(sample, "name"))
    assert not any(s.placeholder for s in sources(sample, "phones"))
    real = cv("John Doe", "john@doe-family.net", "Phone +44 20 7946 0123")
    assert real.values("name") == ["John Doe"]
    assert not any(s.placeholder for f in ("name", "emails", "phones") for s in sources(real, f))
    assert "placeholder" not in sources(real, "name")[0].to_dict()  # old shape when unset


@pytest.mark.parametrize(
    "number", ["123-456-7890", "(123) 456-7890", "+1 123 456 7890", "555-555-5555", "0123456789", "000 000 0000"]
)
def test_sample_phone_numbers(number: str) -> None:
    assert _rules.placeholder_phone(number)


@pytest.mark.parametrize("number", ["(617) 895-6148", "0151 59505484", "+44 20 7946 0123"])
def test_real_phone_numbers_are_not_samples(number: str) -> None:
    assert not _rules.placeholder_phone(number)


@pytest.mark.parametrize(
    ("address", "sample"),
    [
        ("john.doe@example.com", True),
        ("jane@example.org", True),
        ("someone@site.example", True),
        ("yourname@gmail.com", True),
        ("max.mustermann@beispiel.de", True),
        ("info@yourdomain.com", True),
        ("john@doe-family.net", False),
        ("jane.smith@gmail.com", False),
    ],
)
def test_sample_emails(address: str, sample: bool) -> None:
    assert _rules.placeholder_email(address) is sample


def test_source_round_trips_the_new_keys() -> None:
    src = Source(text="x", rule="phone.e164", placeholder=True, region="DE", region_from="cv.language:de")
    assert Source.from_dict(src.to_dict()) == src
    plain = Source(text="x", rule="name.top")
    assert set(plain.to_dict()) == {"text", "rule", "page", "bbox", "part", "index"}
