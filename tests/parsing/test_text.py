"""Properties of the text normaliser every extractor shares."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ats.parsing.api import normalize_text

# Characters the normaliser treats specially, mixed into arbitrary Unicode so
# hypothesis hits them often.
INTERESTING = (
    "\n",
    "\r",
    "\r\n",
    "\t",
    " ",
    "\x00",
    "\x0b",
    "\x0c",
    "\x1f",
    "\x7f",
    "\x85",
    "\u00a0",
    "\u00ad",
    "\u0301",
    "\u0308",
    "\u1680",
    "\u2003",
    "\u200b",
    "\u200d",
    "\u202e",
    "\u2028",
    "\u2029",
    "\u3000",
    "\ue000",
    "\ufeff",
    "\ufffd",
    "\ud800",
    "\udfff",
    "\U000e0041",
    "e",
    "A",
    "\u0958",
)
TEXT = st.lists(st.one_of(st.characters(), st.sampled_from(INTERESTING)), max_size=200).map("".join)
SETTINGS = settings(
    max_examples=400, deadline=None, database=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
DROPPED = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ue000-\uf8ff\u00ad\u200b\u200e\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f\U000f0000-\U0010ffff]"
)


def _check_contract(out: str) -> None:
    assert unicodedata.is_normalized("NFC", out)
    assert not DROPPED.search(out), ascii(out)
    assert "\t" not in out and "\r" not in out
    assert not re.search(r"[^\S\n]{2,}", out) and not re.search(r"[^\S\n ]", out)
    assert " \n" not in out and "\n " not in out
    assert "\n\n\n" not in out
    assert out == out.strip()
    out.encode("utf-8")


@SETTINGS
@given(TEXT)
@example("a\u2029\u2029b")
@example(" \u0301")
def test_contract(text: str) -> None:
    out, truncated = normalize_text(text)
    assert not truncated
    _check_contract(out)
    assert normalize_text(out) == (out, False)


@SETTINGS
@given(TEXT, st.integers(min_value=0, max_value=120))
def test_cap(text: str, cap: int) -> None:
    full, _ = normalize_text(text)
    out, truncated = normalize_text(text, cap)
    assert len(out) <= cap
    assert truncated == (len(full) > cap)
    if not truncated:
        assert out == full
    _check_contract(out)
    assert normalize_text(out, cap) == (out, False)


@SETTINGS
@given(st.lists(st.text(alphabet="abc ", min_size=1, max_size=10), max_size=20))
def test_visible_words_survive(words: list[str]) -> None:
    out, _ = normalize_text("\u00a0\t".join(words))
    assert out.split() == " ".join(words).split()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("a\r\nb\rc", "a\nb\nc"),
        ("a\n\n\n\n b", "a\n\nb"),
        ("x\u2029y", "x\n\ny"),
        ("  Jane\u00a0\u2003Doe \t ", "Jane Doe"),
        ("Cafe\u0301", "Café"),
        ("Cafe\u00ad\u0301", "Café"),  # NFC after the soft hyphen is gone
        ("co\u00adop\u200beration", "cooperation"),
        ("\ue001 +44 20\U000e0041", "+44 20"),  # icon glyph, tag character
        ("\u202eevil\u202c", "evil"),
        ("ZWJ\u200dkept", "ZWJ\u200dkept"),
        ("e\x00\x1bmail", "email"),
        ("line\x0cnext", "line\nnext"),
    ],
)
def test_examples(raw: str, expected: str) -> None:
    assert normalize_text(raw) == (expected, False)
