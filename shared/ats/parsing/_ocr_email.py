"""Choosing an e-mail address among several OCR readings of it (pure; no MuPDF).

Why: on CV scans Tesseract misreads e-mail addresses where glyphs touch or a letter
sits next to digits - "joris.b88" read as "joris.bo88", "sanne.v8" as "sanne.v8g",
"thijs.b49" as "thijs.o49", "zofia.k58" as "zofia.k5ï58" - and no single render fixes
them all: the same words OCR'd again as a strip, stretched horizontally (which pulls
touching glyphs apart), read some right and others wrong (development scans and
development-only stress sets, bench/ocr_tune.py). An address is not prose: no
dictionary helps, a wrong character makes it someone else's. What does help is the
page itself - addresses are mostly built from the holder's name ("jane.oneil",
"j.oneil", "janeo85"), and the name is the page's largest text. So:

- an address the page's words already explain is left as read (only a space OCR put
  inside it is taken out: "celine. rousseau@" -> "celine.rousseau@"); the others are
  read again, and every reading (the page's, then the strips') proposes one address;
- a proposal must be address-shaped (ASCII local part, a dotted domain) and within
  ``MAX_EDITS`` of the page's own reading - the strips choose between close readings,
  they never bring in different text;
- among those, the one whose letters are best explained by the words and initials of
  the page's largest lines wins, then the one most readings agree on, then the page's;
  but an address-shaped page reading gives way only to one the name explains better.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

MAX_EDITS = 2
_MAX_ADDRESS = 254
_LOCAL = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._%+-'")
_DOMAIN = frozenset("abcdefghijklmnopqrstuvwxyz0123456789.-")
_OCR_JUNK = frozenset("®©°")


@dataclass(frozen=True)
class Span:
    """Where the address-like text is in a reading, and the address it proposes."""

    start: int
    end: int
    address: str


def _word_bounds(text: str, at: int) -> tuple[int, int]:
    start = at
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    end = at + 1
    while end < len(text) and not text[end].isspace():
        end += 1
    return start, end


def address_span(text: str) -> Span | None:
    """The address around the reading's only "@", joining what OCR split with a space
    ("celine. rousseau@", "jane@ gmail.com"); None without exactly one "@"."""
    if text.count("@") != 1 or len(text) > 4 * _MAX_ADDRESS:
        return None
    at = text.index("@")
    start, end = _word_bounds(text, at)
    # "jane @ gmail.com" / "jane@ gmail.com": the "@" alone or at a word's edge.
    if start == at and start >= 2 and text[start - 1] == " " and not text[start - 2].isspace():
        start = _word_bounds(text, start - 2)[0]
    if end == at + 1 and end + 1 < len(text) and text[end] == " " and not text[end + 1].isspace():
        end = _word_bounds(text, end + 1)[1]
    # "celine. rousseau@": a lower-case word ending in "." right before the local part
    # (a sentence's "London. jane@" is capitalised and stays apart).
    if start >= 2 and text[start - 1] == " " and text[start - 2] == ".":
        prev = _word_bounds(text, start - 2)[0]
        if text[prev : start - 1].islower():
            start = prev
    raw = text[start:end]
    # Labels and punctuation glued to the address ("E-mail:jane@...", "(jane@x.com),").
    if ":" in raw[: raw.index("@")]:
        cut = raw.rindex(":", 0, raw.index("@")) + 1
        start, raw = start + cut, raw[cut:]
    lead = len(raw) - len(raw.lstrip("(<[\"'"))
    trail = len(raw) - len(raw.rstrip(")>]\"',;.:"))
    start, end = start + lead, end - trail
    # Symbols OCR puts next to an "@" ("rhys.llewellyn®@outlook.com"); no address has them.
    compact = "".join(ch for ch in text[start:end] if ch not in _OCR_JUNK and not ch.isspace()).lower()
    return Span(start, end, compact) if compact else None


def well_formed(address: str) -> bool:
    local, _, domain = address.partition("@")
    return (
        0 < len(local) <= 64
        and len(address) <= _MAX_ADDRESS
        and set(local) <= _LOCAL
        and local[0] not in ".'"
        and local[-1] != "."
        and ".." not in local
        and set(domain) <= _DOMAIN
        and "." in domain.strip(".")
        and not domain.startswith((".", "-"))
        and not domain.endswith((".", "-"))
    )


def _edits(a: str, b: str, bound: int) -> int:
    """Levenshtein distance, or ``bound + 1`` once it is certainly over ``bound``."""
    if abs(len(a) - len(b)) > bound:
        return bound + 1
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        if min(cur) > bound:
            return bound + 1
        prev = cur
    return prev[-1]


# Letters that carry no combining mark to drop, as addresses spell them ("Łukasz" -> "lukasz").
_SPELLED = str.maketrans({"ł": "l", "ø": "o", "đ": "d", "ð": "d", "\u0131": "i", "æ": "ae", "œ": "oe", "þ": "th"})


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).translate(_SPELLED)


def lexicon(lines: Iterable[str]) -> frozenset[str]:
    """Words (accent-folded, lower case, two letters or more) of the page's largest lines."""
    words: set[str] = set()
    for line in lines:
        word = []
        # "O'Neil" is "oneil" in an address ("jane.oneil@"); the pieces count as well.
        folded = _fold(line)
        for ch in folded + " " + folded.replace("'", "").replace("\u2019", "") + " ":
            if "a" <= ch <= "z":
                word.append(ch)
            else:
                if len(word) >= 2:
                    words.add("".join(word))
                word = []
    return frozenset(words)


def _explained(run: str, words: frozenset[str], initials: frozenset[str]) -> bool:
    """Whether a run of letters is words and initials of the lexicon, end to end."""
    if len(run) > 64:
        return False
    ok = [True] + [False] * len(run)
    for end in range(1, len(run) + 1):
        ok[end] = (run[end - 1] in initials and ok[end - 1]) or any(
            ok[end - len(w)] and run.endswith(w, 0, end) for w in words if len(w) <= end
        )
    return ok[-1]


def unexplained_runs(address: str, words: frozenset[str]) -> int:
    """Runs of letters in the local part that the lexicon does not explain."""
    initials = frozenset(w[0] for w in words)
    local = address.partition("@")[0]
    runs, run = [], []
    for ch in local + ".":
        if "a" <= ch <= "z":
            run.append(ch)
        elif run:
            runs.append("".join(run))
            run = []
    return sum(not _explained(r, words, initials) for r in runs)


def explained(address: str, words: frozenset[str]) -> bool:
    """A well-formed address whose letters the page's words all explain: no second look.

    The gate keeps strips from re-deciding addresses that already fit the name (a strip
    that drops a letter of "llewellyn" must not get a vote) and keeps the cost to the
    addresses that need it.
    """
    return bool(words) and well_formed(address) and unexplained_runs(address, words) == 0


def choose(page: str, readings: Sequence[str], words: frozenset[str]) -> str | None:
    """The address a page's reading should carry, or None to leave it as read.

    ``page`` and ``readings`` are the same words read several ways; ``words`` the
    page's lexicon (`lexicon`).
    """
    own = address_span(page)
    if own is None:
        return None
    proposals = [own.address] + [s.address for r in readings if (s := address_span(r)) is not None]
    votes: dict[str, int] = {}
    for address in proposals:
        if well_formed(address) and _edits(address, own.address, MAX_EDITS) <= MAX_EDITS:
            votes[address] = votes.get(address, 0) + 1
    if not votes:
        return None
    best = min(
        votes,
        key=lambda a: (unexplained_runs(a, words), -votes[a], a != own.address),
    )
    # An address-shaped page reading gives way only to one the name explains better:
    # between readings the name does not tell apart, strips out-voting the page were
    # wrong as often as right on development stress sets ("katharina.grob" -> "grobo").
    if well_formed(own.address) and unexplained_runs(best, words) >= unexplained_runs(own.address, words):
        return None
    return None if best == own.address else best
