"""Change set layout-73 (stop 73): OCR's misreads in a scanned contact block's mailbox -
the "@" read as an "e" before a provider's domain, an accent on a digit's speck inside a
provider's local part (docs/extraction.md, "Change set layout-73")."""

from __future__ import annotations

from typing import Any

from tests.extraction.answers import Row, emails_of, rows_answer


def _contact(*rows: Row) -> dict[str, Any]:
    return rows_answer([((40, 30, 300, 50), "Wilson Balaile", 20.0), *rows], ocr=True)


def test_the_at_read_as_an_e_before_a_provider_s_domain() -> None:
    # v28's wbalaile scanned: an icon, then the address with its "@" read as "e"
    assert emails_of(_contact(((40, 70, 260, 82), "©) wbalaileelive.com", 11.0))) == ["wbalaile@live.com"]


def test_a_web_address_ending_in_a_provider_s_name_is_no_mailbox() -> None:
    assert emails_of(_contact(((40, 70, 260, 82), "www.onlinelive.com", 11.0))) == []
    assert emails_of(_contact(((40, 70, 260, 82), "https://shopelive.com", 11.0))) == []


def test_an_accent_on_a_digit_s_speck_is_no_letter_of_a_provider_s_mailbox() -> None:
    # v28's ssaloni scanned at 300 dpi: "69" read as "6ó9"
    assert emails_of(_contact(((40, 70, 260, 82), "I supriyasaloni6ó9@gmail.com", 11.0))) == [
        "supriyasaloni69@gmail.com"
    ]
    # a name's own accented letter stays, and so does a university's mailbox as read
    assert emails_of(_contact(((40, 70, 260, 82), "josé.garcía@gmail.com", 11.0))) == ["josé.garcía@gmail.com"]
    assert emails_of(_contact(((40, 70, 260, 82), "a6ó9@uni-example.es", 11.0))) == ["a6ó9@uni-example.es"]
