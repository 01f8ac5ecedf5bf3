"""A scan in Cyrillic, Chinese, Japanese or Korean is read with its own script's model.

The Latin model reads a Russian name as Latin letters ("Dannnn MonceesB") and a Chinese one
as capitals; the document's first OCR'd page decides the script
(ats.parsing._mupdf._script_language) and the page is read again with that model, Latin
words (e-mail addresses, tool names) kept as the Latin model reads them.
"""

# ruff: noqa: RUF001 - look-alike letters are what these tests are about

from __future__ import annotations

import dataclasses

import pymupdf
import pytest

from ats.parsing import _mupdf
from ats.parsing.api import ParseLimits, parse_document
from ats.parsing.data import DEFAULT_OCR_SCRIPTS, OCR_SCRIPTS
from tests import corpus

needs_models = pytest.mark.skipif(
    set(DEFAULT_OCR_SCRIPTS) != set(OCR_SCRIPTS),
    reason="Tesseract's script models are not all installed (scripts/bootstrap.sh installs them)",
)


@needs_models
@pytest.mark.parametrize("language", sorted(corpus.SCRIPT_CVS))
def test_a_scan_in_another_script_is_read_in_its_script(language: str, limits: ParseLimits) -> None:
    result = parse_document(corpus.scanned_script_pdf(language), kind="pdf", limits=limits)
    text = result["text"]
    name, email, _, _, heading, *_ = corpus.SCRIPT_CVS[language]
    assert text.startswith(name), text
    assert email in text and heading in text, text
    # Tool names stay as the Latin model reads them, never in look-alike letters.
    assert "Python, Django, Kubernetes, SQL" in text, text


@needs_models
def test_without_script_models_the_page_is_read_as_latin_as_before(limits: ParseLimits) -> None:
    latin_only = dataclasses.replace(limits, ocr_scripts=())
    result = parse_document(corpus.scanned_script_pdf("ru"), kind="pdf", limits=latin_only)
    assert corpus.SCRIPT_CVS["ru"][0] not in result["text"]
    assert not any("\u0400" <= ch <= "\u052f" for ch in result["text"])


@needs_models
def test_a_latin_scan_keeps_the_latin_model(limits: ParseLimits) -> None:
    doc = pymupdf.open(stream=corpus.scanned_pdf(), filetype="pdf")
    page = doc[0]
    lines = _mupdf._block_lines(_mupdf._ocr(page, 200, limits))
    assert _mupdf._script_language(page, limits, lines) is None
    # ...and its reading is the one the Latin model alone gives.
    latin_only = dataclasses.replace(limits, ocr_scripts=())
    assert (
        parse_document(corpus.scanned_pdf(), kind="pdf", limits=limits)["text"]
        == parse_document(corpus.scanned_pdf(), kind="pdf", limits=latin_only)["text"]
    )


def test_script_shares_weigh_a_cjk_character_as_two_letters() -> None:
    shares = _mupdf._script_shares("王小明 wang xiaoming example com")  # 3 Han, 22 Latin letters
    assert shares["HanS"] == pytest.approx(6 / 28)
    assert shares["Cyrillic"] == 0
    assert _mupdf._script_shares("ab 王") == {}  # too few letters to tell


def test_script_thresholds_sit_between_latin_look_alikes_and_real_text() -> None:
    # Words such as "and" or "on" come back Cyrillic letter for letter on Latin pages: a
    # few of them do not make a page Cyrillic...
    latin_page = "Experience and skills on the " + "апа " * 3 + "Developed payment systems in Python"
    assert _mupdf._script_shares(latin_page)["Cyrillic"] < _mupdf._SCRIPT_LETTERS["Cyrillic"][2]
    # ...a Russian sentence with Latin tool names does.
    russian = "Разрабатывал платёжные системы на Python и PostgreSQL"
    assert _mupdf._script_shares(russian)["Cyrillic"] >= _mupdf._SCRIPT_LETTERS["Cyrillic"][2]
    # Kana decides Japanese before its kanji can make the page Chinese.
    assert OCR_SCRIPTS.index("Japanese") < OCR_SCRIPTS.index("HanS")


@pytest.mark.parametrize(
    ("word", "latin_shaped"),
    [
        ("іуап.реігоу@ехатрі]е.сот", True),  # an e-mail in look-alikes
        ("Кирегпеѓеѕ", True),  # "Kubernetes" with Macedonian letters
        ("Pythonа", True),  # the two alphabets mixed
        ("Москва", False),
        ("Київ", False),  # Ukrainian letters are Cyrillic words' own
        ("Python", False),  # Latin already
    ],
)
def test_which_words_of_a_cyrillic_reading_go_back_to_the_latin_one(word: str, latin_shaped: bool) -> None:
    assert _mupdf._latin_shaped(word) is latin_shaped


def test_a_cjk_reading_gives_back_its_latin_words_only() -> None:
    assert _mupdf._latin_letters("wang.xilaoming@example.com")
    assert not _mupdf._latin_letters("王小明")
    assert not _mupdf._latin_letters("2019-2024")  # digits: the script's own reading stands


def test_an_unknown_script_is_refused() -> None:
    with pytest.raises(ValueError, match="ocr_scripts"):
        ParseLimits(ocr_scripts=("Klingon",))
