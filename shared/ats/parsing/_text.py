"""Text normalisation shared by every extractor.

Output contract (property-tested): NFC; only "\\n" as a control character; no run
of horizontal whitespace longer than one space; no line starting or ending with a
space; at most one blank line in a row ("\\n\\n" is a paragraph break); no leading
or trailing whitespace; at most ``max_chars`` characters; idempotent.
"""

from __future__ import annotations

import re
import unicodedata

# Converted before anything is dropped, so line structure survives: NEL and the
# Unicode line separators are real line breaks in some producers' output.
_PARAGRAPH_SEP_RE = re.compile("\u2029")
_NEWLINE_RE = re.compile("\r\n|[\r\x0b\x0c\x85\u2028]")

_DROP_RE = re.compile(
    "["
    # C0/C1 controls except \t and \n (everything else was converted above).
    "\x00-\x08\x0e-\x1f\x7f-\x9f"
    # Lone surrogates: not encodable as UTF-8, so they would break JSON consumers.
    "\ud800-\udfff"
    # Private use: icon-font glyphs (phone, envelope) in CV templates; pure noise.
    "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"
    # Invisible format characters that only hide or reorder what a reader sees:
    # soft hyphen, zero-width space, word joiner, BOM, Mongolian vowel separator,
    # bidi marks/embeddings/isolates ("Trojan Source"), and Unicode tag characters
    # (used to smuggle hidden instructions past humans to LLM screeners).
    # ZWJ/ZWNJ stay: they change meaning in Indic/Persian text and emoji.
    "\u00ad\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
    "\U000e0000-\U000e007f"
    "]+"
)
_HSPACE_RE = re.compile(r"[^\S\n]+")
_EDGE_SPACE_RE = re.compile(r" *\n *")
_BLANK_LINES_RE = re.compile(r"\n{3,}")


def _normalize_uncapped(text: str) -> str:
    text = _PARAGRAPH_SEP_RE.sub("\n\n", text)
    text = _NEWLINE_RE.sub("\n", text)
    text = _DROP_RE.sub("", text)
    # NFC after dropping: a dropped character between a base and its combining mark
    # would otherwise have blocked the composition.
    text = unicodedata.normalize("NFC", text)
    text = _HSPACE_RE.sub(" ", text)
    text = _EDGE_SPACE_RE.sub("\n", text)
    text = _BLANK_LINES_RE.sub("\n\n", text)
    return text.strip()


def normalize_text(text: str, max_chars: int | None = None) -> tuple[str, bool]:
    """Return ``(normalised text, truncated)``; truncation only when ``max_chars`` is set."""
    text = _normalize_uncapped(text)
    if max_chars is None or len(text) <= max_chars:
        return text, False
    # Re-normalising the prefix keeps the contract if the cut split a combining
    # sequence; it can only shrink, so the loop ends.
    while len(text) > max_chars:
        text = _normalize_uncapped(text[:max_chars])
    return text, True
