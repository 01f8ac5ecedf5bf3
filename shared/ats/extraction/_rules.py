"""The field rules. Each takes the document's lines and returns values with their sources.

No regex here has nested or unbounded overlapping quantifiers, every line is capped
(ats.extraction._layout.MAX_LINE_CHARS) and every candidate list is bounded, so the cost
is linear in the input (tests/extraction/test_hostile.py).
"""

# ruff: noqa: RUF001, RUF002 (CV text has typographic dashes, quotes and colons: the rules must read them)

from __future__ import annotations

import dataclasses
import functools
import itertools
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import date

import phonenumbers
from email_validator import EmailNotValidError, validate_email

from ats.extraction import _lexicon as lex
from ats.extraction._layout import PAGE_FOOTER, Line, heading_kind, is_place, label_of, style_of
from ats.extraction.data import Source

MAX_EMAIL_CANDIDATES = 500
MAX_PHONE_CANDIDATES = 300
MAX_DATE_LINE = 300  # date ranges are read from lines up to this long


@dataclass
class Found:
    """A value and every place it was seen."""

    value: object
    sources: list[Source] = field(default_factory=list)


class Values:
    """Distinct values in first-seen order, each with its sources (at most 5)."""

    def __init__(self) -> None:
        self.items: dict[str, Found] = {}

    def add(self, key: str, value: object, source: Source) -> None:
        found = self.items.setdefault(key, Found(value))
        if source in found.sources:
            return
        if len(found.sources) < 5:
            found.sources.append(source)
        elif all(s.rule != source.rule for s in found.sources):
            # A rule not yet among the five is kept in the last one's place: a skill five
            # prose lines mention before the skills list names it ("Python" in every role's
            # bullets) is a listed skill, which only a list's source says (layout-66).
            found.sources[-1] = source

    def __iter__(self) -> Iterator[Found]:
        return iter(self.items.values())

    def __len__(self) -> int:
        return len(self.items)


def _has_cue(text: str, cues: Iterable[str]) -> bool:
    low = text.casefold()
    return any(cue in low for cue in cues)


def about_someone_else(line: Line) -> bool:
    """A referee's or a recruitment agency's line: its contact details are not the candidate's."""
    return line.section == "references" or _has_cue(line.text, lex.AGENCY_CUES) or _has_cue(line.text, lex.REFEREE_CUES)


# -- e-mail ---------------------------------------------------------------------------------

# "Prof. Dr. Eckhard Hein, Berlin School of Economics" over "eckhard.hein@hwr-berlin.de":
# a referee listed under no references heading the rules know (h49).
_HONORIFIC = re.compile(r"^(?:prof|dr|mr|mrs|ms|herr|frau|mme|mlle|sr|sra)\.?\s", re.IGNORECASE)


def _beside_a_referee(lines: list[Line], k: int) -> bool:
    """An address outside the contact block on or right beside a line naming someone by
    title (the two are one line when the layout joined a wrapped entry)."""
    line = lines[k]
    if line.in_contact:
        return False
    near = (lines[j] for j in (k - 1, k, k + 1) if 0 <= j < len(lines) and lines[j].page == line.page)
    return any(_HONORIFIC.match(other.text) for other in near)


_LOCAL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._%+-'")
_DOMAIN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")


def _intl(ch: str) -> bool:
    """A non-ASCII letter or digit: internationalised addresses ("jürgen@müller.de") use
    them; icon glyphs (private-use U+F0E0, "✉", "📧") are symbols and stop the scan."""
    return ch > "\x7f" and ch.isalnum()


def _local_ok(ch: str) -> bool:
    return ch in _LOCAL_CHARS or _intl(ch)


def _domain_ok(ch: str) -> bool:
    return ch in _DOMAIN_CHARS or _intl(ch)


def _wide(ch: str) -> bool:
    return ch >= "\u2e80"  # CJK, Hangul and beyond: scripts written without spaces


def _trim_wide_prefix(text: str, i: int, at: int) -> int:
    """ "邮箱wang@163.com": CJK text glued before an ASCII local part is a label, not the address."""
    j = i
    while j < at and _wide(text[j]):
        j += 1
    return j if i < j < at and not any(_wide(ch) for ch in text[j:at]) else i


# OCR puts stray symbols next to "@" ("rhys®@outlook.com", "maria@®outlook.es"); no
# address contains them.
_OCR_JUNK = frozenset("®©°")


# "aaron@zielstorff .com": a space set before the top-level domain's dot (an icon font's
# spacing in AltaCV's contact line); the span's domain has no dot of its own.
_SPACED_TLD = re.compile(r"\s{1,2}\.([A-Za-z]{2,12})(?![\w.@-])")


def email_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of e-mail-shaped substrings: a linear scan outward from each "@".

    A span may include one OCR junk symbol right before or right after the "@"
    ("maria@®outlook.es"); `emails` drops it.
    """
    at = text.find("@")
    while at != -1:
        i = at - 1 if at > 0 and text[at - 1] in _OCR_JUNK else at
        while i > 0 and at - i < 65 and _local_ok(text[i - 1]):
            i -= 1
        i = _trim_wide_prefix(text, i, at)
        j = at + 2 if at + 1 < len(text) and text[at + 1] in _OCR_JUNK else at + 1
        while j < len(text) and j - at <= 253 and _domain_ok(text[j]):
            j += 1
        while j > at + 1 and text[j - 1] in ".-":
            j -= 1
        while i < at and text[i] in ".'":
            i += 1
        dotted = "." in text[at + 1 : j] or (j > at + 1 and _SPACED_TLD.match(text, j) is not None)
        if i < at and dotted and not _number_group(text, i, at):
            yield i, j
        at = text.find("@", max(j, at + 1))


def _number_group(text: str, i: int, at: int) -> bool:
    """Digits before the "@" that are a phone number's last group: "(+1) 987 6543210@site.com"
    is a number and a web address whose "@"-like icon OCR glued to it (h54). A mailbox named
    by digits ("123456@qq.com") follows a label or a space, not another digit group."""
    if not (text[i:at].isdigit() and i >= 2 and text[i - 1] == " " and (text[i - 2].isdigit() or text[i - 2] == ")")):
        return False
    # "pooya.nasiri7 5@gmail.com": the word before holds letters - an address OCR set a space
    # in, not a number's groups (layout-71)
    before = text[max(0, i - 1 - 64) : i - 1].rsplit(" ", 1)[-1]
    return not any(ch.isalpha() for ch in before)


# OCR repairs, for OCR'd documents' contact lines only (where the candidate's own address
# is; a referee's is left as read). Tesseract splits "jane @ gmail.com" at the "@" and
# reads "." as ","; some CVs write "(at)". Domains: characters it confuses are folded
# ("rn"/"m", "vv"/"w", "cl"/"d", "0"/"o", "1"/"l"/"i", "5"/"s") and an unknown domain
# that folds to exactly one known provider, or does so with one character before its
# top-level domain left out ("o02.pl"), becomes that provider.
_AT_FORM = re.compile(r" {0,2}(?:@|\(at\)|\[at\]) {0,2}", re.IGNORECASE)
_CONFUSABLE = (("rn", "m"), ("vv", "w"), ("cl", "d"), ("0", "o"), ("1", "l"), ("i", "l"), ("5", "s"))


def _ocr_fold(domain: str) -> str:
    for confused, meant in _CONFUSABLE:
        domain = domain.replace(confused, meant)
    return domain


def _providers_by_fold() -> dict[str, str]:
    by_fold: dict[str, str | None] = {}
    for domain in lex.MAIL_PROVIDERS:
        key = _ocr_fold(domain)
        by_fold[key] = domain if key not in by_fold else None  # ambiguous: never repaired to
    return {k: v for k, v in by_fold.items() if v is not None}


_PROVIDER_BY_FOLD = _providers_by_fold()


def _one_extra(domain: str) -> str | None:
    """The one known provider this domain is with one character too many ("o02.pl" for
    "o2.pl": OCR read a glyph twice), in the same top-level domain; None if none or several."""
    found = {
        provider
        for i in range(domain.rfind(".") if "." in domain else 0)
        if (provider := _PROVIDER_BY_FOLD.get(_ocr_fold(domain[:i] + domain[i + 1 :]))) is not None
    }
    return found.pop() if len(found) == 1 else None


def _repair_domain(address: str) -> str:
    local, _, domain = address.rpartition("@")
    if domain in lex.MAIL_PROVIDERS or len(domain) > 64:
        return address
    provider = _PROVIDER_BY_FOLD.get(_ocr_fold(domain)) or _one_extra(domain)
    return f"{local}@{provider}" if provider else address


def _local_start(text: str, end: int) -> int:
    """Where the local part that ends at `end` starts: at most 64 address characters back,
    less the dots and quotes no local part starts with."""
    i = end
    while i > 0 and end - i < 64 and text[i - 1] in _LOCAL_CHARS:
        i -= 1
    while i < end and text[i] in ".'":
        i += 1
    return i


def _ocr_email_candidates(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, address as meant) for addresses OCR (or the writer) split at the "@"
    or wrote "(at)", or whose domain has "," for "." or a space after a dot ("buaa. edu. cn",
    v16); linear like `email_spans`."""
    for m in _AT_FORM.finditer(text):
        i = _local_start(text, m.start())
        j = m.end()
        while (
            j < len(text)
            and j - m.end() < 253
            and (
                text[j] in _DOMAIN_CHARS
                or (text[j] == "," and j + 1 < len(text) and text[j + 1].isalpha())
                or (text[j] == " " and text[j - 1] == "." and j + 1 < len(text) and text[j + 1].islower())
            )
        ):
            j += 1
        while j > m.end() and text[j - 1] in ".-,":
            j -= 1
        read = text[m.end() : j]
        domain = read.replace(",", ".").replace(" ", "")
        if i < m.start() and "." in domain and (m.group(0) != "@" or "," in read or " " in read):
            yield i, j, f"{text[i : m.start()]}@{domain}"


# OCR reads the "@" of an address in a small font as a letter or a symbol it resembles
# ("samhiattQgmail.com", "spiffyeight770gmail.com", "vigneres©gmail.com"; h54). Only before a
# known provider's whole domain: that the rest names a mailbox is then certain, and what is
# left before the look-alike is the local part.
_AT_LOOKALIKES = "Q0O©®ae"  # "a": "yunghunghuang984agmail.com" (layout-71); "e": "wbalaileelive.com" (layout-73)
_PROVIDER_AFTER_AT = re.compile(
    rf"(?<=[A-Za-z0-9._%+-])[{_AT_LOOKALIKES}]"
    rf"((?i:{'|'.join(re.escape(p) for p in sorted(lex.MAIL_PROVIDERS, key=len, reverse=True))}))"
    # the provider's whole domain ("gmail.com.br" is none): the next character ends it, or
    # a dot or hyphen the next one does not continue - looked at two characters ahead, not to
    # the end of the line (a run of "aQgmail.com" read to the end at every match: quadratic)
    r"(?![A-Za-z0-9]|[.-][A-Za-z0-9])"
)


def _at_misread(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, address as meant) for each "<local><look-alike><provider>" token with no
    "@" of its own; linear (the local part is walked back at most 64 characters)."""
    for m in _PROVIDER_AFTER_AT.finditer(text):
        i = _local_start(text, m.start())
        # a letter read for the "@" never inside a web address ("www.onlinelive.com")
        if text[m.start()].isalpha() and (text[i : i + 4].casefold() == "www." or (i > 0 and text[i - 1] in "/.")):
            continue
        if i < m.start() and "@" not in text[i : m.end()]:
            yield i, m.end(), f"{text[i : m.start()]}@{m.group(1)}"


def emails(lines: list[Line], *, ocr: bool = False) -> tuple[Values, list[str]]:
    """The candidate's e-mails (not referees' or agencies'), and those in the contact block.

    ``ocr``: the lines came from OCR, so the contact block's addresses are also read
    through the OCR repairs above (rule ``email.ocr_repair``; the source text is the span
    exactly as read).
    """
    out, contact = Values(), []
    checked: dict[str, str | None] = {}
    zone = _NameZone(lines)

    def check(raw: str) -> str | None:
        if raw not in checked:
            if len(checked) >= MAX_EMAIL_CANDIDATES:
                return None
            try:
                checked[raw] = validate_email(raw, check_deliverability=False).normalized.lower()
            except EmailNotValidError:
                checked[raw] = None
            # RFC 5322 allows "|@www.posquit0.com" and "®@..." (OCR'd icons before a web
            # address or a department's domain); nobody's mailbox is named by symbols only.
            if checked[raw] and not any(ch.isalnum() for ch in raw.split("@", 1)[0]):
                checked[raw] = None
            # "5@gmail.com": the end of an address OCR cut - a Gmail local part is 6 or more
            # long; a shorter word is a template's ("john@gmail.com"), digits alone are not
            local, _, domain = (checked[raw] or "").rpartition("@")
            if domain in _GMAIL and len(local) < GMAIL_MIN_LOCAL and local.isdigit():
                checked[raw] = None
        return checked[raw]

    def keep(line: Line, address: str, rule: str, raw: str) -> None:
        out.add(address, address, dataclasses.replace(line.source(rule, raw), placeholder=placeholder_email(address)))
        if line.in_contact and address not in contact:
            contact.append(address)

    for k, line in enumerate(lines):
        at_sign = "@" in line.text or (ocr and ("(at)" in line.text.casefold() or "[at]" in line.text.casefold()))
        if not at_sign or about_someone_else(line) or _beside_a_referee(lines, k):
            continue
        repair = ocr and line.in_contact
        found: list[tuple[int, int]] = []
        for start, end in email_spans(line.text):
            raw = "".join(ch for ch in line.text[start:end] if ch not in _OCR_JUNK)
            cut = _cut_address(lines, k, start, end, raw, ocr=ocr, repair=repair, zone=zone)
            whole = check(cut[0]) if cut is not None else None
            if cut is not None and whole is not None:
                found.append((start, end))
                keep(line, str(whole), cut[1], cut[2])
                continue
            address = check(raw)
            if address is None:
                continue
            found.append((start, end))
            repaired = _repair_local(_repair_domain(address)) if repair else address
            if repaired != address:
                keep(line, repaired, "email.ocr_repair", line.text[start:end])
            else:
                keep(line, address, "email.scan", raw)
        for start, end, meant in _ocr_email_candidates(line.text) if repair else ():
            if any(start < f_end and f_start < end for f_start, f_end in found):
                continue
            address = check(meant)
            if address is not None:
                keep(line, _repair_domain(address), "email.ocr_repair", line.text[start:end])
    misread = _misread_at_emails(lines) if ocr else ()
    for line, raw, as_read, rule in (*_joined_emails(lines), *_spaced_emails(lines), *misread):
        address = check(raw)
        if address is not None:
            keep(line, address, rule, as_read)
    return _without_glyph_twins(out, contact) if ocr else (out, contact)


# "supriyasaloni6ó9@gmail.com": OCR set an accent on a digit's speck - a mailbox provider's
# local parts are ASCII, so a non-ASCII letter between two digits there is no letter of the
# address (layout-73, v28's ssaloni scanned)
_SPECK_BETWEEN_DIGITS = re.compile(r"(?<=\d)[^\x00-\x7f](?=\d)")


def _repair_local(address: str) -> str:
    local, _, domain = address.rpartition("@")
    if domain not in lex.MAIL_PROVIDERS or local.isascii():
        return address
    return f"{_SPECK_BETWEEN_DIGITS.sub('', local)}@{domain}"


def _without_glyph_twins(out: Values, contact: list[str]) -> tuple[Values, list[str]]:
    """ "me@ivanogasawara.com" and, on the next page's footer, "meQ@ivanogasawara.com": the
    same address with the "@"'s look-alike read before it as well (h54). The longer one goes
    when the shorter one was read too."""
    for address in list(out.items):
        local, _, domain = address.rpartition("@")
        if len(local) >= 2 and local[-1] in "q0o" and f"{local[:-1]}@{domain}" in out.items:
            del out.items[address]
            if address in contact:
                contact.remove(address)
    return out, contact


MAX_SPACED_LINES = 120


def _misread_at_emails(lines: list[Line]) -> Iterator[tuple[Line, str, str, str]]:
    """(line, address, text as read, rule) for each address of an OCR'd contact line whose
    "@" was read as a look-alike (`_at_misread`)."""
    for line in lines:
        if line.in_contact and "@" not in line.text and not about_someone_else(line):
            for start, end, meant in _at_misread(line.text):
                yield line, meant, line.text[start:end], "email.ocr_at"


def _cut_address(
    lines: list[Line], k: int, start: int, end: int, raw: str, *, ocr: bool, repair: bool, zone: _NameZone
) -> tuple[str, str, str] | None:
    """(address, rule, text as read) when the span at start:end is the end of an address
    whose beginning the text layer or the OCR cut off (below); None otherwise."""
    text = lines[k].text
    tail = _tld_below(lines, k, raw) if end >= len(text.rstrip()) else ""
    if tail:
        return raw + tail, "email.joined", f"{raw}⏎{tail}"
    tld = _SPACED_TLD.match(text, end) if "." not in raw.rpartition("@")[2] else None
    if tld:
        return f"{raw}.{tld.group(1)}", "email.joined", text[start : tld.end()]
    # (not on OCR'd pages: there a space is as likely a dot OCR lost - "jane doe@" for "jane.doe@")
    head = "" if ocr else _underscore_head(lines[k].text, start, raw, zone)
    if head:
        return f"{head}_{raw}", "email.underscore_rule", text[start - len(head) - 1 : end]
    if start == 0 and not ocr:
        head = _abutting_head(lines, k)
        return (head + raw, "email.joined", f"{head}⏎{raw}") if head else None
    head = _spaced_dot_head(text, start) if repair else ""
    if head:
        # an OCR repair's source is the span as read, its space and all
        return head + raw, "email.ocr_repair", text[start - len(head) - 1 : end]
    return _gmail_head(lines, k, start, end, raw) if repair else None


# Gmail's local parts are 6 to 30 characters long: a shorter one OCR read is the end of one.
GMAIL_MIN_LOCAL = 6
_GMAIL = frozenset({"gmail.com", "googlemail.com"})


def _gmail_head(lines: list[Line], k: int, start: int, end: int, raw: str) -> tuple[str, str, str] | None:
    """A Gmail address whose local part OCR cut short, made whole (layout-71): a space set
    inside it ("pooya.nasiri7 5@gmail.com"), or a row read as two pieces that overlap
    ("... | sunnymendapara09" then "09@gmail.com" on the same row)."""
    local, _, domain = raw.partition("@")
    if domain.casefold() not in _GMAIL or len(local) >= GMAIL_MIN_LOCAL:
        return None
    text = lines[k].text
    if start >= 2 and text[start - 1] == " ":
        i = _local_start(text, start - 1)
        word = text[i : start - 1]
        if word[:1].isalnum() and len(word) + len(local) >= GMAIL_MIN_LOCAL and word.casefold() not in _CONTACT_WORDS:
            return word + raw, "email.ocr_repair", text[i:end]
        return None
    token = _overlapping_piece(lines, k) if start == 0 else ""
    if len(token) >= GMAIL_MIN_LOCAL and token.endswith(local) and token[:1].isalnum():
        return token + "@" + domain, "email.joined", f"{token}⏎{raw}"
    return None


def _overlapping_piece(lines: list[Line], k: int) -> str:
    """The address characters the line before ends with, when it is the piece of this
    line's row left of it; "" when it is not."""
    prev, box = (lines[k - 1] if k > 0 else None), lines[k].bbox
    if prev is None or prev.page != lines[k].page or prev.bbox is None or box is None:
        return ""
    height = max(box[3] - box[1], 1.0)
    if abs((prev.bbox[1] + prev.bbox[3]) - (box[1] + box[3])) > height or prev.bbox[0] >= box[0]:
        return ""
    text = prev.text.rstrip()
    return text[_local_start(text, len(text)) :]


_TLD_REST = re.compile(r"[a-z]{1,3}")
# The top-level domains a cut one is completed to: "co" + "m" (gmail.co is no mailbox's)
_COMMON_TLDS = frozenset({"com", "net", "org", "edu", "gov", "info"})


def _tld_below(lines: list[Line], k: int, address: str) -> str:
    """ "danielfelipemarins@gmail.co" over "m" alone, flush under it (a LinkedIn export's
    narrow contact column): the line below is the rest of the address's last label, when
    the two make a common top-level domain (layout-42); "" when it is not."""
    if k + 1 >= len(lines):
        return ""
    below, line = lines[k + 1], lines[k]
    label = address.rpartition(".")[2].casefold()
    if not _TLD_REST.fullmatch(rest := below.text.strip()) or label + rest not in _COMMON_TLDS:
        return ""
    if below.bbox is None or line.bbox is None:
        return ""
    flush = below.page == line.page and abs(below.bbox[0] - line.bbox[0]) <= 3
    close = 0 <= below.bbox[1] - line.bbox[1] <= 2.5 * max(line.bbox[3] - line.bbox[1], 1.0)
    return rest if flush and close else ""


_NAME_ZONE_LINES = 60


class _NameZone:
    """The first page's short top lines, casefolded, spaces out, read once per document:
    where the words of the CV's name are written ("Keoni Garner", "SilvioSchwarz")."""

    def __init__(self, lines: list[Line]) -> None:
        self._lines = lines
        self._text: str | None = None

    def holds(self, word: str) -> bool:
        if self._text is None:
            self._text = "\n".join(
                ln.text.casefold().replace(" ", "")
                for ln in self._lines[:_NAME_ZONE_LINES]
                if ln.section == "top" and ln.page in (None, 1) and _short_words(ln.text)
            )
        return word in self._text


def _short_words(text: str) -> bool:
    """A line a name can be: a few words, no digits or "@" (a heading, a name, a title)."""
    return len(text) <= 80 and 0 < len(text.split()) <= 5 and not any(ch.isdigit() or ch == "@" for ch in text)


# Words before an address that are no part of it: a label, or a sentence's "reach me at
# kanai@..." (a LinkedIn export's summary read "at_kanai...@gmail.com": layout-67).
_NOT_ADDRESS_HEADS = frozenset(
    {"email", "e-mail", "mail", "courriel", "at", "to", "me", "on", "or", "and", "via", "by", "an", "em", "en", "per"}
)


def _underscore_head(text: str, start: int, raw: str, zone: _NameZone) -> str:
    """ "keoni garner@yahoo.com": LaTeX's "\\_" in its classic fonts is a rule drawn under
    the baseline, not a glyph, so the text layer has a space where the address has "_".
    The word before the space is the address's head when it and the local part's first
    word are both written in the CV's short top lines (`_NameZone`; the address's own line
    has an "@" and is not one): then "_" is the one separator a text layer loses this way
    ("." and "-" are glyphs). "" otherwise."""
    if start < 3 or text[start - 1] != " " or text[start - 2] == " ":
        return ""
    i = start - 1
    while i > 0 and start - 1 - i < 40 and text[i - 1].isalnum() and not text[i - 1].isupper():
        i -= 1
    word = text[i : start - 1]
    if len(word) < 2 or (i > 0 and text[i - 1] not in " :|\ufffd\t") or word.casefold() in _NOT_ADDRESS_HEADS:
        return ""
    local = raw.partition("@")[0].casefold()
    first = re.match(r"[^\W\d_]{2,}", local)
    if first is None or len(first.group()) < len(local) - 4:
        return ""
    return word if zone.holds(word.casefold()) and zone.holds(first.group()) else ""


def _spaced_dot_head(text: str, start: int) -> str:
    """ "pablo .miangolarra@gmail.com": OCR set a space before a dot of the local part (no
    local part starts with a dot); the word before the space, and the dot (h54)."""
    if start < 3 or text[start - 2 : start] != " .":
        return ""
    i = start - 2
    while i > 0 and start - i < 64 and text[i - 1] in _LOCAL_CHARS:
        i -= 1
    word = text[i : start - 2]
    return f"{word}." if word[:1].isalnum() and word.casefold().rstrip(":") not in _CONTACT_WORDS else ""


def _abutting_head(lines: list[Line], k: int) -> str:
    """The local part's first characters when the text layer ended the line before this one
    inside the address: "email: m" | "mayer@yahoo-inc.com", the second line starting on the
    same row exactly where the first ends (a change of font mid-word, h54; a space between
    them would leave a gap)."""
    line, prev = lines[k], lines[k - 1] if k > 0 else None
    if prev is None or prev.page != line.page or prev.bbox is None or line.bbox is None or not line.size:
        return ""
    same_row = abs((prev.bbox[1] + prev.bbox[3]) - (line.bbox[1] + line.bbox[3])) <= 0.5 * line.size
    if not same_row or abs(line.bbox[0] - prev.bbox[2]) > 0.1 * line.size:
        return ""
    head = prev.text[_local_start(prev.text, len(prev.text)) :]
    # "Email" | "jane@example.com" set in two fonts without a colon: a label, not the address's
    return "" if head.casefold() in _CONTACT_WORDS else head


def _spaced_emails(lines: list[Line]) -> Iterator[tuple[Line, str, str, str]]:
    """(line, address, text as read, rule) for each address of a letter-spaced contact line
    ("h a c ke r @ l i n u x . c o m", h47)."""
    for line in lines[:MAX_SPACED_LINES]:
        unspaced = letter_spaced(line.text) if "@" in line.text and line.in_contact else None
        if unspaced and not about_someone_else(line):
            for start, end in email_spans(unspaced):
                yield line, unspaced[start:end], line.text, "email.letter_spaced"


def letter_spaced(text: str) -> str | None:
    """The text without its spaces when it is set letter-spaced - most of its tokens single
    characters ("+ 1 ( 3 3 7 ) 9 3 5 0 0 1 6"); None for ordinary text, and for a number
    written in pairs ("Tél. : +33 6 57 26 61 74")."""
    tokens = text.split()
    if len(tokens) < 8 or len(text) > 200:
        return None
    single = sum(1 for tok in tokens if len(tok) == 1)
    return "".join(tokens) if single >= 0.75 * len(tokens) else None


# An address the PDF's text layer broke over two lines: "jane.doe@exam" + "ple.com",
# "jane.doe@" + "gmail.com", "jane.averylongname" + "@gmail.com".
def _edge_token(text: str, *, last: bool) -> str:
    """The first or last whitespace-separated token within 320 characters of that end."""
    part = text[-320:] if last else text[:320]
    tokens = part.split()
    if not tokens:
        return ""
    return tokens[-1] if last else tokens[0]


def _split_email(text: str, following: str) -> tuple[str, str] | None:
    """(address, text as read with "⏎" at the break) when this line ends with the first
    part of an address and the next line starts with the rest; else None."""
    first = _edge_token(text, last=True)
    if first.endswith("@"):
        # "alvaro.sanchez@" / "| gmail.com": OCR reads the rule drawn beside the break as a
        # separator glyph before the domain (h47)
        following = following.lstrip(" |¦│•·")
    rest = _edge_token(following, last=False).rstrip(".,;")
    if not first or not rest or len(first) > 300 or len(rest) > 260:
        return None
    if first.count("@") == 1 and "@" not in rest:
        domain = first.rpartition("@")[2]
        # Only an evidently unfinished address: no dot in its domain yet, or ending on one.
        if ("." in domain and not domain.endswith((".", "-"))) or "." not in domain + rest:
            return None
        # "... hosted on ResearchSpace@Auckland." / "Freeman, P. ...": a sentence's full stop
        # and the next one's capital, no domain broken at its dot (h54)
        if domain.endswith(".") and rest[:1].isupper():
            return None
    elif not (rest.startswith("@") and rest.count("@") == 1 and "@" not in first):
        return None
    return first + rest, f"{first}⏎{rest}"


def _joined_emails(lines: list[Line]) -> Iterator[tuple[Line, str, str, str]]:
    """(first line, address, text as read, rule) for each address split over two lines."""
    for line, following in itertools.pairwise(lines):
        if "@" in line.text[-320:] + following.text[:1] and not about_someone_else(line):
            joined = _split_email(line.text, following.text)
            if joined is not None:
                yield line, joined[0], joined[1], "email.joined"


def placeholder_email(address: str) -> bool:
    """A template's sample address: a documentation domain or a "yourname@" local part."""
    local, _, domain = address.casefold().rpartition("@")
    return (
        domain in lex.PLACEHOLDER_EMAIL_DOMAINS
        or domain.rsplit(".", 1)[-1] in lex.PLACEHOLDER_EMAIL_TLDS
        or local in lex.PLACEHOLDER_EMAIL_LOCALS
    )


# -- links -----------------------------------------------------------------------------------

_URL = re.compile(
    r"(?<![@\w.])(?:https?://)?(?:www\.)?[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,4}(?:/[^\s|,;·•()<>\"']{0,200})?"
)
_SITE_TLDS = frozenset(
    [
        "dev",
        "io",
        "me",
        "com",
        "net",
        "org",
        "de",
        "fr",
        "es",
        "it",
        "nl",
        "pl",
        "uk",
        "eu",
        "app",
        "tech",
        "site",
        "xyz",
        "page",
        "online",
        "info",
        "ch",
        "at",
        "be",
        "ie",
        "se",
        "dk",
    ]
)


def _mask(text: str, spans: Iterable[tuple[int, int]]) -> str:
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def _masked_emails(text: str) -> str:
    # Split addresses ("jane @ gmail.com") too: their domain is not a website.
    spans = [*email_spans(text), *((s, e) for s, e, _ in _ocr_email_candidates(text))] if "@" in text else []
    return _mask(text, spans) if spans else text


def links(lines: list[Line]) -> Values:
    out = Values()
    for line in lines:
        if "." not in line.text or about_someone_else(line):
            continue
        text = _masked_emails(line.text)
        for m in _URL.finditer(text):
            raw = m.group(0).rstrip(".")
            url = re.sub(r"^https?://", "", raw, flags=re.IGNORECASE)
            host, _, path = url.partition("/")
            host = host.lower().removeprefix("www.")
            path = path.rstrip("/")
            explicit = raw.lower().startswith(("http://", "https://", "www."))
            if host.endswith("linkedin.com") and path:
                kind = "linkedin"
                host = "linkedin.com"
            elif host == "github.com" and path:
                kind = "github"
            elif (explicit or line.in_contact) and host.rsplit(".", 1)[-1] in _SITE_TLDS and not host[0].isdigit():
                kind = "website"
            else:
                continue
            canonical = f"https://{host}/{path}" if path else f"https://{host}"
            out.add(canonical.lower(), {"kind": kind, "url": canonical}, line.source(f"link.{kind}", raw))
    return out


# -- phones ----------------------------------------------------------------------------------

# "(+33) 6 ..." writes the country code inside the brackets: the "+" may follow a "(".
# An en dash between digit groups too (U+2013, as "775-232-8142" is printed by some
# templates, h49); a range of years or months is told apart below.
# Up to 28 characters: two Brazilian numbers joined by a slash ("91 98273-7028/51 99975-4418",
# h50) are one run, split below when they do not read as one number.
_PHONE = re.compile(r"(?:\+|\b00)?\(?\+?\d[\d \t().\-–/]{5,26}\d")
# Dates are not phone numbers: "01/09/2019", "03.2020", "2015 - 2018" (a dotted French number
# "06.04.57.84.81" is, so the date forms must match the whole candidate).
_DATE_FULL = re.compile(r"\d{1,2}[./]\d{1,2}[./](?:19|20)?\d\d|\d{1,2}[./](?:19|20)\d\d")
_YEAR_RANGE = re.compile(r"(?:19|20)\d\d\s{0,3}[-–/]\s{0,3}(?:19|20)\d\d")
# "03/2019 - 08/2019": a role's months, never a phone - even in the contact block, which on
# an OCR'd page of a date-column CV can run on into the roles (layout-22)
_MONTH_YEAR_RANGE = re.compile(r"\d{1,2}[./](?:19|20)\d\d\s{0,3}[-–—]\s{0,3}\d{1,2}[./](?:19|20)\d\d")
# "2013/8 - 2016/7", "2019.03 - 2021.11" (or an en dash): the same, year first (Chinese and Japanese CVs;
# dingpeng-zh's nine roles and projects read as Beijing numbers, layout-38)
_YEAR_MONTH_RANGE = re.compile(r"(?:19|20)\d\d[./]\d{1,2}\s{0,3}[-–—]\s{0,3}(?:19|20)\d\d[./]\d{1,2}")
# "(WS 2017-18)": a term or season written with its second year short, never a phone (h49)
_SHORT_YEAR_RANGE = re.compile(r"\(?(?:19|20)(\d\d)\s{0,2}[-–/]\s{0,2}(\d\d)\)?")
_PHONE_LABEL = re.compile(r"([^\W\d_][^\W\d_.]{0,12}\.?)\s{0,3}[:：.]?\s{0,3}$")
MAX_LANGUAGE_WORDS = 20_000


@dataclass(frozen=True, slots=True)
class RegionEvidence:
    """Where a national phone number's region may come from, strongest first.

    ``cv``: (region, why) read from the document itself - its international numbers'
    country codes, a country or city in the contact block, its e-mail's national domain,
    a place further down, its language. ``channel``: the region configured on the mailbox
    or upload channel it arrived through. ``default``: the deployment's
    (ATS_DEFAULT_PHONE_REGION).
    """

    cv: tuple[tuple[str, str], ...] = ()
    channel: str | None = None
    default: str | None = None


def document_language(lines: list[Line]) -> str | None:
    """The document's language when its frequent words clearly say so (None for English or unclear)."""
    counts: dict[str, int] = {}
    english = seen = 0
    for line in lines:
        for word in _WORDS.findall(line.text[:MAX_DATE_LINE]):
            seen += 1
            low = word.casefold()
            if low in lex.ENGLISH_WORDS:
                english += 1
            for language in lex.LANGUAGE_OF_WORD.get(low, ()):
                counts[language] = counts.get(language, 0) + 1
        if seen >= MAX_LANGUAGE_WORDS:
            break
    script = _cjk_language(lines)
    if script is not None:
        return script
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])
    if not ranked:
        return None
    best, n = ranked[0]
    second = ranked[1][1] if len(ranked) > 1 else 0
    # Clear: enough words, well ahead of the next language and of English.
    if n >= 6 and n >= 2 * second and n > english:
        return best
    return None


MIN_CJK_CHARS = 20
_CJK_CHAR = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3]")


def _cjk_language(lines: list[Line]) -> str | None:
    """Chinese, Japanese or Korean by script: Hangul is Korean, kana Japanese, Han alone
    Chinese - when the document has more of it than of Latin text (h49: "132-6262-0332" on
    a Chinese CV is a Chinese mobile number)."""
    if not any(_CJK_CHAR.search(line.text[:MAX_DATE_LINE]) for line in lines):
        return None  # most CVs: no per-character count (issue 26: extraction runs per document)
    hangul = kana = han = latin = 0
    for line in lines:
        for ch in line.text[:MAX_DATE_LINE]:
            if "\uac00" <= ch <= "\ud7a3":
                hangul += 1
            elif "\u3040" <= ch <= "\u30ff":
                kana += 1
            elif "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf":
                han += 1
            elif ch.isascii() and ch.isalpha():
                latin += 1
        if hangul + kana + han + latin >= 4 * MAX_LANGUAGE_WORDS:
            break
    # A CJK character carries about as much as a Latin word's three letters: a Chinese CV
    # full of English tool names is still Chinese.
    if hangul + kana + han < MIN_CJK_CHARS or 3 * (hangul + kana + han) < latin:
        return None
    if hangul >= max(kana, MIN_CJK_CHARS // 2):
        return "ko"
    return "ja" if kana >= MIN_CJK_CHARS // 2 else "zh"


def _language_regions(language: str | None) -> tuple[str, ...]:
    """The countries a document's language points to, its own first (pt: Portugal, Brazil)."""
    if not language or language not in lex.LANGUAGE_REGION:
        return ()
    return (lex.LANGUAGE_REGION[language], *lex.LANGUAGE_OTHER_REGIONS.get(language, ()))


def region_evidence(
    lines: list[Line], own_emails: Iterable[str], *, channel: str | None = None, default: str | None = None
) -> RegionEvidence:
    """The document's own region signals, strongest first, with the channel's and the deployment's."""
    found: list[tuple[str, str]] = []

    def add(region: str, why: str) -> None:
        if region and all(region != r for r, _ in found):
            found.append((region, why))

    contact = [ln for ln in lines if ln.in_contact and not about_someone_else(ln)]
    for line in contact:
        if "+" in line.text or "00" in line.text:
            for m in _PHONE.finditer(_masked_emails(line.text)):
                e164 = _international(m.group(0))
                if e164 is not None:
                    number = phonenumbers.parse(e164, None)
                    region = phonenumbers.region_code_for_number(number)
                    if region:
                        add(region, f"cv.code:+{number.country_code}")
    for line in contact:
        place = _place_of(line)
        if place:
            add(place[0], f"cv.place:{place[1]}")
    for address in own_emails:
        tld = address.rsplit(".", 1)[-1]
        if tld in lex.EMAIL_TLD_REGION:
            add(lex.EMAIL_TLD_REGION[tld], f"cv.email:.{tld}")
    language = document_language(lines)
    body = [(place[0], f"cv.place:{place[1]}") for line in lines[:200] if (place := _place_of(line))]
    spoken = [(region, f"cv.language:{language}") for region in _language_regions(language)]
    # A CV written in Chinese, Japanese or Korean script says more about its national
    # numbers than a place its body names: "西北大学(美国)" is a school abroad, and
    # "15267452924" a Chinese mobile, not a US number (layout-41).
    for region, why in spoken + body if language in ("zh", "ja", "ko") else body + spoken:
        add(region, why)
    return RegionEvidence(tuple(found), (channel or "").upper() or None, (default or "").upper() or None)


def _place_of(line: Line) -> tuple[str, str] | None:
    """A line's place, unless the line is a person's name: "Chiara Colombo" and "André
    Santos" name no city (h49)."""
    place = place_region(line.text)
    if place is not None and looks_like_name(line.text) and not is_place(line.text):
        return None  # (checked only when a place was found: a name check per line costs)
    return place


def region_hint(lines: list[Line], own_emails: Iterable[str], default_region: str) -> tuple[str, str]:
    """(region, why): the strongest of the document's own signals, else the default."""
    evidence = region_evidence(lines, own_emails, default=default_region)
    return evidence.cv[0] if evidence.cv else (default_region, "default")


_WORDS = re.compile(r"[^\W\d_][\w'.-]{0,30}")
_US_STATE = re.compile(r",\s{0,2}([A-Z]{2})\b")


def place_region(text: str) -> tuple[str, str] | None:
    """The region of a country, city or US state named in this text."""
    words = [w.rstrip(".").casefold() for w in _WORDS.findall(text[:300])]
    # The last country named: "Granada, España" is Spain's Granada, not Grenada ("granada"
    # is also that country's Spanish name: v16), as "City, Country" writes it.
    countries = [
        (i + n, n, " ".join(words[i : i + n]))
        for n in (3, 2, 1)
        for i in range(len(words) - n + 1)
        if " ".join(words[i : i + n]) in lex.COUNTRIES
    ]
    if countries:
        key = max(countries)[2]
        return lex.COUNTRIES[key], key
    for n in (3, 2, 1):
        for i in range(len(words) - n + 1):
            key = " ".join(words[i : i + n])
            if key in lex.CITIES:
                return lex.CITIES[key], key
    m = _US_STATE.search(text[:300])
    if m and m.group(1) in lex.US_STATES:
        return "US", m.group(1)
    for zip_code in _ZIP.finditer(text[:300]):
        words = text[: zip_code.start()].split()[-3:]
        code = words[-1] if words else ""
        # "FL 33463", "Lake Worth, Fl 33463"; not "in 20000" nor "In 20000" in a sentence
        if code.upper() in lex.US_STATES and (code.isupper() or (len(words) > 1 and words[-2].endswith(","))):
            return "US", code
        for n in (3, 2, 1):
            name = " ".join(words[-n:])
            if len(words) >= n and name.casefold() in lex.US_STATE_NAMES:
                return "US", name
    return None


# A state before a ZIP code, "Castle Rock Colorado, 80109", "Lake Worth, Fl 33463": an address
# in the US. A state's name alone is no sign ("Georgia", "Virginia Woolf", "Washington" -
# h44), the ZIP makes it one (layout-67: development's agerdes took GB from "Reading"
# further down).
_ZIP = re.compile(r"(?<=[^\W\d_]),?\s{1,2}\d{5}(?:-\d{4})?(?![\d-])")


def _valid_in(candidate: str, region: str) -> str | None:
    try:
        number = phonenumbers.parse(candidate, region)
    except phonenumbers.NumberParseException:
        return None
    if not phonenumbers.is_valid_number(number):
        return None
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def _parse_phone(candidate: str, region: str) -> str | None:
    """Kept for callers of the single-region rule: the E.164 form if valid in that region."""
    return _valid_in(candidate, region)


def _international(candidate: str) -> str | None:
    """E.164 of a number written in international form (+code or 00code), else None.

    The writer named the country, so a number that is merely *possible* there (right
    length; a range phonenumbers' metadata does not list yet, like "+31 6 99979425") is
    read too: only the national form needs a region guessed.
    """
    bare = candidate.lstrip("( ")
    if bare.startswith("00"):
        bare = "+" + bare[2:]
    if not bare.startswith("+"):
        return None
    try:
        number = phonenumbers.parse(bare, None)
    except phonenumbers.NumberParseException:
        return None
    if not (phonenumbers.is_valid_number(number) or phonenumbers.is_possible_number(number)):
        return None
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


@dataclass(frozen=True, slots=True)
class PhoneReading:
    e164: str | None  # None: kept as written (region unknown, ambiguous, or valid nowhere it could be)
    region: str | None
    region_from: str


def read_phone(candidate: str, evidence: RegionEvidence) -> PhoneReading | None:
    """One phone-shaped candidate read with the region evidence; None if it is no number.

    International form: its own code. National form: the document's strongest signal; if
    the number is not valid there but is valid in exactly one of the document's other
    signals, that one (a US address on a German-language CV); valid in several or none ->
    as written. Only a document with no signal of its own falls back to the channel's
    region, and only one without a channel region to the deployment default.
    """
    e164 = _international(candidate)
    if e164 is not None:
        number = phonenumbers.parse(e164, None)
        return PhoneReading(e164, phonenumbers.region_code_for_number(number), f"+{number.country_code}")
    if candidate.lstrip("( ").startswith(("+", "00")):
        return None
    written = _plan_written(candidate)
    if evidence.cv:
        reading = _read_with_cv_signals(candidate, evidence.cv)
        # "(617) 895-6148" under a London line and a Boston one: written as the North
        # American plan writes, the plan's country among the CV's signals is the one
        plan = _plan_regions(written) if written is not None and reading.e164 != written.e164 else ()
        return written if written is not None and any(r in plan for r, _ in evidence.cv) else reading
    if written is not None:
        return written  # the number's own writing is the document's signal: before any setting
    for region, why in ((evidence.channel, "channel"), (evidence.default, "default")):
        if region:
            found = _valid_in(candidate, region)
            return PhoneReading(found, region if found else None, why if found else "invalid")
    return PhoneReading(None, None, "no region")


# A national number written the one way a single numbering plan writes it - the writing is
# the document's own sign of its country, when nothing else on the CV names one (layout-67):
# - the North American plan's "(678) 670-6830", "678-670-6830", "(720)-815-5494",
#   "678.670.6830", "1-800-555-0199" (+1, whichever of its countries: "(868) 389-2499" is
#   Trinidad's). Not "678 670 6830": an Italian mobile is written "347 123 4567", and the
#   area and exchange codes must be valid (an area code opens with 2-9: "021-117-9764" is
#   New Zealand's);
# - Brazil's mobile, "(82) 98194-9926" (a two-digit area, then nine digits opening with 9,
#   five and four): Mexico's "(55) 1234-5678" has eight.
# Only where the CV names no country, or names the plan's among others; with the deployment
# default, GB, a US CV's "561-506-4384" read as +44 5615064384 (development's willzovo).
_NANP_WRITTEN = re.compile(
    r"(?:1[\s.-])?(?:\([2-9]\d\d\)[\s.-]?|[2-9]\d\d[.-])[2-9]\d\d[.-]\d{4}|\([2-9]\d\d\)\s?[2-9]\d\d\s\d{4}"
)
_BRAZIL_MOBILE_WRITTEN = re.compile(r"\(?[1-9][1-9]\)?\s?9\d{4}-\d{4}")


def _plan_regions(reading: PhoneReading) -> tuple[str, ...]:
    """The regions sharing the reading's country code (+1: US, CA, TT...)."""
    code = phonenumbers.parse(reading.e164, None).country_code if reading.e164 else None
    return tuple(phonenumbers.region_codes_for_country_code(code)) if code else ()


def _plan_written(candidate: str) -> PhoneReading | None:
    """The reading of a number written as only one numbering plan writes its numbers."""
    for pattern, region, plan in ((_NANP_WRITTEN, "US", "nanp"), (_BRAZIL_MOBILE_WRITTEN, "BR", "br")):
        if pattern.fullmatch(candidate):
            e164 = _valid_in(candidate, region)
            if e164 is None:
                return None
            number = phonenumbers.parse(e164, None)
            code = phonenumbers.region_code_for_number(number) or region
            return PhoneReading(e164, code, f"cv.written:{plan}")
    return None


def _read_with_cv_signals(candidate: str, signals: tuple[tuple[str, str], ...]) -> PhoneReading:
    first_region, first_why = signals[0]
    e164 = _valid_in(candidate, first_region)
    if e164:
        return PhoneReading(e164, first_region, first_why)
    others: dict[str, tuple[str, str]] = {}
    for region, why in signals[1:]:
        found = _valid_in(candidate, region)
        if found:
            others.setdefault(found, (region, why))
    if len(others) == 1:
        e164, (region, why) = next(iter(others.items()))
        return PhoneReading(e164, region, why)
    return PhoneReading(None, None, "ambiguous" if others else "invalid")


def _phone_label(before: str) -> str | None:
    m = _PHONE_LABEL.search(before[-20:])
    if m and m.group(1).casefold() in lex.PHONE_LABELS:
        return m.group(1)
    return None


def _no_phone_label(before: str) -> bool:
    m = _PHONE_LABEL.search(before[-20:])
    return bool(m and m.group(1).casefold() in lex.FAX_LABELS) or bool(_ID_LABEL.search(before[-24:]))


# A national identity or tax number's label: "C.C 1.111.761.852" (a Colombian cédula, read as
# an Argentine phone: development's jballen-es), "DNI: 12345678", "CPF 123.456.789-09",
# "RG:", "NIE", "PESEL", "Passport No." - a number that is no phone (layout-67).
_ID_LABEL = re.compile(
    r"(?<![^\W\d_])(?i:c\.\s?c\.?|cc|dni|cpf|rg|nie|nif|rut|run|curp|rfc|pesel|c[ée]dula(?:\s+de\s+ciudadan[ií]a)?"
    r"|ssn|passport|pasaporte|passaporte|reisepass|cnh|nit|tc\s+kimlik(?:\s+no)?|iban)"
    r"\.?\s{0,2}(?:(?i:n[º°o]|no\.?|nr\.?|number|#)\s{0,2})?[:：#.]?\s{0,3}$"
)


_PLACEHOLDER_DIGITS = frozenset(
    {"1234567890", "0123456789", "123456789", "12345678", "01234567890", "9876543210", "5555555555",
     "5551234567", "0000000000", "1111111111", "12345678910"}
)  # fmt: skip


def placeholder_phone(text: str) -> bool:
    """A template's sample number ("123-456-7890", "(555) 555-5555", "+1 234 567 890")."""
    digits = "".join(ch for ch in text if ch.isdigit())
    national = digits[1:] if len(digits) == 11 and digits[0] == "1" else digits
    return (
        digits in _PLACEHOLDER_DIGITS
        or national in _PLACEHOLDER_DIGITS
        or (len(set(national)) == 1 and len(national) >= 7)
        or national.startswith("555555")
    )


_GLUED = re.compile(r"[^\W\d_]-?$")


def _phone_candidates(line: Line) -> Iterator[tuple[str, str | None]]:
    """(candidate, its label or None) for each digit run of a line that may be a phone."""
    text = (letter_spaced(line.text) if line.in_contact else None) or line.text
    text = _mask(text, [m.span() for m in _URL.finditer(text) if "/" in m.group(0)] + list(email_spans(text)))
    for m in _PHONE.finditer(text):
        candidate = m.group(0).strip(" -./")
        if candidate.startswith("(") and ")" not in candidate:
            candidate = candidate[1:].strip()  # a bracket that opens the digits' text, not an area code
        if (
            _DATE_FULL.fullmatch(candidate)
            or _YEAR_RANGE.search(candidate)
            or _MONTH_YEAR_RANGE.search(candidate)
            or _YEAR_MONTH_RANGE.search(candidate)
        ):
            continue
        short = _SHORT_YEAR_RANGE.fullmatch(candidate)
        if short and (int(short.group(2)) - int(short.group(1))) % 100 in (1, 2):
            continue
        before = text[: m.start()]
        if before.endswith(("+ ", "+\u00a0")) and candidate[0].isdigit():
            candidate = "+" + candidate  # "+ 420 608 255 197": a space typed after the plus (layout-67)
            before = before[:-2]
        if _GLUED.search(before) and not _phone_label(before.rstrip("-")):
            continue  # "/in/arthur-bernard-789955152": digits glued to a word are a slug's (h47)
        if _no_phone_label(before):
            yield "", None  # counted as tried, never read: a fax or an identity number is no number to call
            continue
        label = _phone_label(before)
        if not (label or line.in_contact or candidate.startswith(("+", "00"))):
            # A national-form digit run with no label, away from the contact block, is a
            # patent, ISBN, grant or DOI number far more often than the candidate's phone
            # (held-out v2's phone precision fell to 0.883 on such numbers).
            yield "", None
            continue
        yield candidate, label


def phones(lines: list[Line], evidence: RegionEvidence | str) -> tuple[Values, Values]:
    """(E.164 numbers, numbers kept as written). ``evidence``: a RegionEvidence, or one region."""
    if isinstance(evidence, str):
        evidence = RegionEvidence(default=evidence)
    out, as_written = Values(), Values()
    tried = 0
    for line in lines:
        if tried >= MAX_PHONE_CANDIDATES:
            break
        if about_someone_else(line) or sum(ch.isdigit() for ch in line.text[:200]) < 7:
            continue
        for candidate, label in _phone_candidates(line):
            tried += 1
            if not candidate:
                continue
            rule = "phone.label" if label else "phone.e164"
            parts = [candidate]
            reading = read_phone(candidate, evidence)
            if (reading is None or reading.e164 is None) and _TWO_NUMBERS.search(candidate):
                parts = [p.strip() for p in _TWO_NUMBERS.split(candidate) if p.strip()]
            for part in parts:
                if len(parts) > 1 and _DATE_FULL.fullmatch(part):
                    continue  # "01/09/2023 - 15/09/2025": a range of days split in two is no two numbers
                got = reading if len(parts) == 1 else read_phone(part, evidence)
                if got is None:
                    continue
                placeholder = placeholder_phone(part)
                if got.e164:
                    src = line.source(rule, part)
                    out.add(got.e164, got.e164, _with(src, got, placeholder))
                elif (label or line.in_contact) and 7 <= sum(ch.isdigit() for ch in part) <= 15:
                    # No E.164 without a known country: kept exactly as written instead (a
                    # labelled or contact-block number only - elsewhere a digit run is no phone).
                    src = line.source("phone.as_written", part)
                    as_written.add(part, part, _with(src, got, placeholder))
    return out, as_written


# Two numbers on one run: "a / b", "a, b", and "91 98273-7028/51 99975-4418" (a slash between
# two whole numbers; tried only when the run does not read as one number: "030/1234567" does),
# and "508 840 886 - 12 814 48 18" (a contact row's dash between them, OCR's pieces of one
# row joined: layout-38).
_TWO_NUMBERS = re.compile(r"\s/\s|,\s|(?<=\d{4})/(?=\d{2}\s\d)|\s[-–]\s")


def _with(src: Source, reading: PhoneReading, placeholder: bool) -> Source:
    return dataclasses.replace(src, placeholder=placeholder, region=reading.region, region_from=reading.region_from)


# -- name ------------------------------------------------------------------------------------

# Separators of a one-line contact header ("a | b | c"); OCR reads a bullet as "°" or "◦".
_SEGMENTS = re.compile(r"\s{0,4}[|·•°◦▪●■♦⋅»«]\s{0,4}|\s{2,}[-–]\s{1,4}|\t")
_NAME_DASH = re.compile(r"\s[–—]\s")
# An age after a name's comma: "20 anos", "25 years old", "31 ans", "28 Jahre", "24 años"
_AGE = re.compile(
    r"\d{1,2}\s?(?:anos|años|years?(?:\s+old)?|yrs|ans|jahre|anni|lat|let|лет|yaşında)\.?\s*$", re.IGNORECASE
)
_NAME_TOKEN = re.compile(r"^(?:[^\W\d_][^\W\d_'’.-]*(?:['’.-][^\W\d_]*){0,3}\.?|'t)$")


def _strip_prefixes(text: str) -> str:
    changed = True
    while changed:
        changed = False
        low = text.casefold()
        for prefix in lex.NAME_PREFIXES:
            if low.startswith(prefix + " "):
                text = text[len(prefix) + 1 :].lstrip()
                changed = True
                break
    return text.strip(" ,;")


def looks_like_name(text: str) -> bool:
    return cjk_name(text) or _latin_name(text)


def _latin_name(text: str) -> bool:
    tokens = text.split()
    # "Artur Campos Batista de Senna Freitas": a particle's word more (layout-67)
    particles = sum(1 for tok in tokens if tok.casefold() in lex.NAME_PARTICLES)
    if not 2 <= len(tokens) <= 5 + min(particles, 2) or len(text) > 60:
        return False
    # A bare letter first or last is an icon or a cut-off glyph on a scan ("E Experience",
    # "Langues M"), not a name: an initial stands in the middle or carries its dot.
    bare_end = any(len(tok) == 1 and tok.isalpha() for tok in (tokens[0], tokens[-1]))
    # "Ping CAP数据库开发工程师": a post; a CJK name is cjk_name's (layout-41)
    if bare_end or text.casefold() in lex.DOCUMENT_TITLES or heading_kind(text) or _CJK_CHAR.search(text):
        return False
    capitals = 0
    for k, tok in enumerate(tokens):
        if 0 < k < len(tokens) - 1 and _other_form(tok):
            continue  # "Hugo (Chun-Ho) Lin", 'Robert "Bob" Smith': kept as written
        if not _NAME_TOKEN.match(tok):
            return False
        low = tok.casefold()
        if k == len(tokens) - 1 and k >= 2 and low.rstrip(".") in _GENERATIONS:
            continue  # "Dari Osorio Junior": a generation after two names, not a job's level (stop 50)
        if low in lex.JOB_WORDS or low in lex.NAME_STOPWORDS:
            return False
        if low in lex.NAME_PARTICLES:
            continue
        if tok[0].isupper():
            capitals += 1
        else:
            return False
    return capitals >= 2 or (
        capitals >= 1 and len(tokens) >= 2 and any(t.casefold() in lex.NAME_PARTICLES for t in tokens)
    )


# A generation after a name's words ("Dari Osorio Junior", common in Brazil); elsewhere
# "junior" is a job's level.
_GENERATIONS = frozenset({"junior", "júnior", "jr"})

_BRACKETS = {"(": ")", '"': '"', "“": "”", "„": "“", "«": "»", "'": "'"}


def _other_form(token: str) -> bool:
    """A name's other form in brackets or quotes between its words: "(Chun-Ho)", '"Bob"'."""
    close = _BRACKETS.get(token[:1])
    return close is not None and len(token) >= 3 and token.endswith(close) and bool(_NAME_TOKEN.match(token[1:-1]))


_ROMAN = frozenset({"II", "III", "IV", "VI", "VII", "VIII"})


def _is_caps(token: str) -> bool:
    """An all-caps word to re-case: not initials ("J.R.R.") nor a generation ("III")."""
    if "." in token or token in _ROMAN:
        return False
    # "ß" has no capital in most fonts' text: "GROß" is an all-caps word.
    letters = [ch for ch in token if ch.isalpha() and ch != "ß"]
    return len(letters) >= 2 and all(ch.isupper() for ch in letters)


def _recase(token: str) -> str:
    """ "ŒUVRARD" -> "Œuvrard", "O'BRIEN" -> "O'Brien", "ÇELİK" -> "Çelik"."""
    # "İ".lower() is "i" plus a combining dot above: Turkish capital I with dot is plain "i".
    low = token.replace("İ", "i").lower()
    if len(low) != len(token):
        return token  # a letter whose lower case is longer: leave the token as written
    chars = list(low)
    for m in re.finditer(r"(^|[-'’])([^\W\d_])", low):
        at = m.start(2)
        chars[at] = token[at] if token[at].isupper() else chars[at].upper()
    return "".join(chars)


def _smart_case(name: str) -> str:
    """All-caps names and all-caps surnames ("Anna SCHMIDT", a French CV's habit) re-cased."""
    tokens = name.split()
    if not any(_is_caps(tok) for tok in tokens):
        return name
    out = []
    for tok in tokens:
        if not _is_caps(tok):
            out.append(tok)
        elif tok.casefold() in lex.NAME_PARTICLES and out:
            out.append(tok.lower())
        else:
            out.append(_recase(tok))
    return " ".join(out)


# A CJK name is written without case and often without a space: 2-4 Han characters
# ("王小明", "山田 太郎"), 2-4 Hangul syllables ("김민준"), or katakana with a middle dot.
_CJK_NAME = re.compile(
    r"[\u3400-\u4dbf\u4e00-\u9fff]{1,3} ?[\u3400-\u4dbf\u4e00-\u9fff]{1,3}"
    r"|[\uac00-\ud7a3]{1,2} ?[\uac00-\ud7a3]{1,3}"
    r"|[\u30a0-\u30ff]{1,12}[・＝ ][\u30a0-\u30ff]{1,12}"
)


def cjk_name(text: str) -> bool:
    """A CJK name, kept in the order written (family name first, as the writer put it)."""
    compact = text.replace(" ", "")
    if not _CJK_NAME.fullmatch(text) or compact in lex.CJK_NOT_NAMES or text in lex.DOCUMENT_TITLES:
        return False
    return "・" in text or "＝" in text or 2 <= len(compact) <= 4


# "Rakan Al Masri (US Citizen)", "Jane Doe (she/her)", "Ana Lima (PhD)": what follows the name
# in brackets on its line is about the person, not their name (layout-30). A bracket inside
# the name ("Robert (Bob) Smith") is not at the line's end and stays.
_NAME_BRACKET_TAIL = re.compile(r"(?<=[^\W\d_])\s{1,3}\([^()]{1,40}\)$")
# A Chinese or Korean CV's name line with the person's particulars: "黄梦龙 / 男 / 1988" (name,
# sex, year of birth), "김준호(1993.01.12)" (the birth date, bracketed without a space) (layout-41)
_CJK_NAME_PARTICULARS = re.compile(
    r"^(?:[A-Za-z]\s{1,2})?([\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3]{2,4})\s{0,2}"  # (an icon OCR read as a letter)
    r"(?:[/|｜]\s{0,2}[男女](?:\s{0,2}[/|｜].{0,40})?|[(（][\d.\-/ 年月日]{4,20}[)）])$"
)


def _strip_titles(text: str) -> str:
    """Title words sharing the name's line: "Curriculum Vitae – Anna Schmidt", "ANNA
    SCHMIDT RESUME", "Lebenslauf von Anna Schmidt" -> the name."""
    for _ in range(3):
        before = text
        for title in lex.TITLE_WORDS:
            n = len(title)
            if text[:n].casefold() == title and (len(text) == n or not text[n].isalnum()):
                rest = text[n:].lstrip(" :-–—|,·")
                head, _, tail = rest.partition(" ")
                if head.casefold() in lex.TITLE_CONNECTORS and len(tail.split()) >= 2:
                    rest = tail  # "CV of Jane Smith", "Lebenslauf von Anna Schmidt"
                text = rest
                break
            if text[-n:].casefold() == title and (len(text) == n or not text[-n - 1].isalnum()):
                text = text[:-n].rstrip(" :-–—|,·(")
                break
        if text == before:
            break
    return text.strip()


def placeholder_name(text: str, *, sample_contact: bool) -> bool:
    """A template's sample name: "Your Name Here" always, "John Doe" beside a sample contact."""
    key = " ".join(text.casefold().split())
    return key in lex.PLACEHOLDER_NAMES or (sample_contact and key in lex.PLACEHOLDER_NAMES_WITH_EVIDENCE)


_NOT_SPLIT = frozenset({"mc", "mac", "de", "di", "da", "du", "le", "la", "van", "von", "o", "fitz", "st"})


def _name_repairs(text: str, lines: list[Line], k: int) -> Iterator[str]:
    """What a TeX class's text layer does to a name line, undone: a section label before
    it ("PERSONAL INFORMATION Katie Smith"), a hyphenated break ("Minna von Barn-" /
    "helm"), a lost space ("JaneEyre"), given and family name stacked on two lines."""
    words = text.split()
    yield from _spacing_repairs(text, words)
    yield from _tail_repairs(words, lines, k)
    following = lines[k + 1] if k + 1 < len(lines) else None
    if following is not None and len(words) <= 3 and not heading_kind(text) and _same_row(lines[k], following):
        # OCR cut a letter-spaced name at a wide gap: "Sean" | "Bailey", "Zach Van" | "Handel" (h49)
        yield f"{text} {following.text}"
    if len(words) >= 3 and len(words[0]) == 1 and words[0].isalpha() and lines[k].runs is None:
        # "D ABDULLAH OZER": an icon beside the name, OCR'd as a letter (h54); a text layer
        # draws icons as symbols
        yield " ".join(words[1:])
    yield from _ocr_repairs(words, lines[k])
    degree = _POSTNOMINAL.search(text)
    if degree:  # "Rodrigo Luger, PhD" (h44)
        yield text[: degree.start()]
    if text.islower() and 2 <= len(words) <= 3 and all(w.isalpha() for w in words) and _largest(lines, k):
        yield " ".join(w[:1].upper() + w[1:] for w in words)  # "lukas elsner", set in lower case as a style (h44)
    for j in range(1, min(3, len(words) - 2) + 1):
        if heading_kind(" ".join(words[:j])):
            yield " ".join(words[j:])
    if k < 10 and ("@" in text or _contact_labelled(words)):
        # A one-line letterhead, name first: "Jean DUPONT 3, rue de la liberté - 33000 ... Email : ..."
        # (on a scan the address may sit on the next line: a phone or e-mail label tells it too).
        lead = list(itertools.takewhile(lambda w: not w[0].isdigit(), words))
        if 2 <= len(lead) <= 4 < len(words):
            yield " ".join(lead)
    if text.endswith("-") and following is not None and following.text[:1].islower():
        yield text[:-1] + following.text.split()[0]
    if len(words) != 1 or not text.isalpha():
        return
    humps = [i for i in range(1, len(text)) if text[i].isupper() and text[i - 1].islower()]
    # "GitHub", "JavaScript": a product's name in camel case, no name that lost its space (h54)
    cut = humps[0] if len(humps) == 1 and text.casefold() not in lex.skills() else 0
    if cut >= 2 and len(text) - cut >= 2 and text[:cut].casefold() not in _NOT_SPLIT:
        yield f"{text[:cut]} {text[cut:]}"
    if following is not None and _stacked(lines[k], following, _display_size(lines, lines[k].page)):
        yield f"{text} {following.text}"


def _ocr_repairs(words: list[str], line: Line) -> Iterator[str]:
    """What OCR does to a name's letters, undone (an OCR'd line only: a text layer's letters
    are the document's own)."""
    if line.runs is None and (capital_i := _capital_i_read_as_l(words)) is not None:
        yield capital_i


def _capital_i_read_as_l(words: list[str]) -> str | None:
    """ "lvan Ogassavara": OCR read a sans-serif capital I as a lower-case l before a
    consonant, where no word of a Latin-script language has one ("Ivan", "Igor", "Isabel",
    "Ines"; not "ll", "lj" or "ly": "Lluís", "Ljubica", "Lydia"); the word put back with
    its capital when another word of the line is capitalised (layout-70, development's
    xmnlab scan). A vowel after the l is a word's own ("Driving license")."""
    out = [
        "I" + word[1:]
        if word[:1] == "l"
        and len(word) >= 3
        and word[1:].isalpha()
        and (word[1:].islower() or word[1:].isupper())
        and word[1].casefold() in _CONSONANTS_AFTER_CAPITAL_I
        else word
        for word in words
    ]
    changed = out != words
    return " ".join(out) if changed and any(w[:1].isupper() for w in out if w[:1] != "I") else None


_CONSONANTS_AFTER_CAPITAL_I = frozenset("bcdfghkmnpqrstvwxz")


def _display_size(lines: list[Line], page: int | None) -> float:
    """The smallest display size of the top of a page: 1.8 times its median type."""
    sizes = sorted(ln.size for ln in lines[:120] if ln.page == page and ln.size)
    return 1.8 * sizes[len(sizes) // 2] if sizes else 0.0


_POSTNOMINAL = re.compile(
    # "B.Eng." / "B.Ing." (brunopc's English and French CVs; layout-42); a certificate,
    # one or several: "Thiago Milanez, Itil®" (a LinkedIn export's name, development's
    # tmilanez), "Jane Smith, MBA, PMP" (layout-67)
    r"(?:,\s{0,2}(?:ph\.?\s?d\.?|m\.?d\.?|mba|m\.?\s?sc\.?|b\.?\s?sc\.?|m\.?a\.?|dr\.?|cpa|pmp|p\.?eng\.?"
    r"|[bm]\.?\s?(?:eng|ing|tech|a\.?sc|comm?)\.?"
    r"|cfa|cissp|cism|cisa|ccna|ccnp|csm|cspo|psm|itil|shrm-s?cp|leed(?:\s?ap)?|acca|cima|rn"
    r"|[^\W\d_][\w-]{0,12}[®™])){1,4}\s*$",  # (bounded: each comma's try reads at most four, linear)
    re.IGNORECASE,
)


def _largest(lines: list[Line], k: int) -> bool:
    """The line is set in the largest type of the top of its page."""
    top = [ln.size for ln in lines[:30] if ln.page == lines[k].page]
    return bool(top) and lines[k].size >= max(top) and lines[k].size > 0


_CONTACT_WORDS = frozenset({"email", "e-mail", "mail", "courriel"})
# Words of a contact line's labels that no name holds: a link's label, an icon font's glyph
# name ("Envelope", "Globe") the text layer writes before it.
_NOT_NAME_WORDS = _CONTACT_WORDS | frozenset(
    {"portfolio", "website", "homepage", "blog", "linkedin", "github", "globe", "envelope", "phone", "telephone"}
)


def _contact_labelled(words: list[str]) -> bool:
    """A phone or e-mail label among the words ("Tél.", "Email :")."""
    for word in words:
        key = word.strip(".:;,").casefold()
        if key in _CONTACT_WORDS or key in lex.PHONE_LABELS:
            return True
    return False


# A year of this century or the last as a word (_history's entries read it too).
YEAR = re.compile(r"\b(?:19|20)\d\d\b")


def _tagline_tail(words: list[str]) -> str | None:
    """ "Onur Ravli Full-Stack Developer": a name of two or three words, then the post in
    capitalised words ending with a job word, on one line with no gap or bar between
    them (a TeX header sets them in two weights; a scan keeps no weight). The name must
    be name-shaped without the tail (v16)."""
    last = words[-1].casefold() if words else ""
    if not 3 <= len(words) <= 7 or last not in lex.JOB_WORDS or last in _GENERATIONS:
        return None  # "Caio Ferreira Junior": a generation, no post
    for j in (2, 3):
        head, tail = words[:j], words[j:]
        # the post starts with a job word ("Senior", "Full-Stack"), not a third name
        first = tail[0].casefold() if tail else ""
        job_like = any(part in lex.JOB_WORDS for part in first.split("-"))  # the word, or a part of it
        if job_like and all(w[:1].isupper() for w in tail) and _latin_name(" ".join(head)):
            return " ".join(head)
    return None


def _tail_repairs(words: list[str], lines: list[Line], k: int) -> Iterator[str]:
    """The name without what follows it on its line: a post, or a scan's icon. An icon is
    cut only when no line of its page above it (or just below) is a name as read: "Pierce
    Jorgensen" beside a logo's "LOCKHEED MARTIN A" keeps the logo no name (pjorgensen's
    scans; OCR may read the header band twice)."""
    tagline = _tagline_tail(words)
    if tagline is not None:
        yield tagline
    junk = _junk_end(words) if lines[k].runs is None else None
    if junk is None:
        return
    near = (ln for ln in lines[: k + 4] if ln is not lines[k] and ln.page == lines[k].page)
    if not any(_name_as_read(ln.text) for ln in near):
        yield junk


@functools.lru_cache(maxsize=4096)
def _name_as_read(text: str) -> bool:
    """A line that is a name as read, a leading speck aside (asked of every line above a
    scan's name candidate with an icon after it: kept, as heading_kind's answers are)."""
    return len(text) <= 80 and looks_like_name(_strip_lead_glyphs(text))


def _junk_end(words: list[str]) -> str | None:
    """ "JEFFERSON SILVA Q", "Rand Asswad ee]": OCR's reading of an icon or a photo's edge
    after a name on a scan - a bare letter, or a short piece with a bracket or symbol in
    it - cut off (v16). A text layer's lone capital is an initial (_initial_last)."""
    last = words[-1] if words else ""
    bare = len(last) == 1 and last.isalpha()
    symbol = len(last) <= 3 and any(not (ch.isalpha() or ch in ".-'’") for ch in last)
    return " ".join(words[:-1]) if len(words) >= 3 and (bare or symbol) else None


def _spacing_repairs(text: str, words: list[str]) -> Iterator[str]:
    """What letter-spacing and small caps do to a name in a PDF's text layer, undone:
    "J A N E   D O E" (a space between letters, a wider one between words), "J ANE D OE"
    (small caps: the capital and the smaller capitals are separate runs), and a headline
    that sets the job title beside the name after a wide gap ("Jane Doe   Data Engineer")."""
    if len(words) > 40:
        return
    # "김 준 호 (1993.01.12)": a Korean name's syllables letter-spaced (an HTML export; v15's
    # taki0112) - one word, as Korean writes a name
    syllables = _NAME_BRACKET_TAIL.sub("", text.strip()).split()
    if 2 <= len(syllables) <= 4 and all(len(w) == 1 and "\uac00" <= w <= "\ud7a3" for w in syllables):
        yield "".join(syllables)
    wide = [seg.split() for seg in re.split(r"\s{2,}", text.strip())]
    if len(wide) >= 2 and all(len(w) == 1 for seg in wide for w in seg):
        yield " ".join("".join(seg) for seg in wide)
    pairs = words[0::2], words[1::2]
    if (
        len(words) >= 4
        and len(words) % 2 == 0
        and all(len(w) == 1 and w.isupper() for w in pairs[0])
        and all(len(w) >= 2 and w.isalpha() for w in pairs[1])
    ):
        yield " ".join(a + b for a, b in zip(*pairs, strict=True))
    if len(wide) >= 2 and any(w.casefold() in lex.JOB_WORDS for seg in wide[1:] for w in seg):
        yield " ".join(wide[0])
    if len(wide) >= 2 and YEAR.search(" ".join(" ".join(seg) for seg in wide[1:])):
        # "JAMES MITOFSKY  Oct 2018 - Présent": a column's dates on the name's row, after a
        # wide gap (Canva; v16)
        yield " ".join(wide[0])


def _same_row(line: Line, right: Line) -> bool:
    """A line's right-hand neighbour on the same row in the same type: OCR's cut of one
    line at a wide gap. One or two words, no place, at most three line heights away."""
    if line.bbox is None or right.bbox is None or line.page != right.page:
        return False
    height = line.bbox[3] - line.bbox[1]
    other = right.bbox[3] - right.bbox[1]
    words = right.text.split()
    return (
        height > 0
        and abs(other - height) <= 0.25 * height
        and abs(right.bbox[1] - line.bbox[1]) <= 0.3 * height
        and 0 <= right.bbox[0] - line.bbox[2] <= 3 * height
        and 1 <= len(words) <= 2
        and all(w[:1].isupper() for w in words)
        and not is_place(right.text)
    )


def _stacked(line: Line, below: Line, display: float = 0.0) -> bool:
    """Two one-word lines in the same type, one right under the other ("Jules" / "Verne").
    Both in display type (``display``: the page's, 0 for none), the sizes may differ by up to
    a third: "WILLIAN" at 20 pt over "WELBERT" at 25 pt (stop 50)."""
    if line.bbox is None or below.bbox is None or line.page != below.page:
        return False
    display_pair = 0 < display <= min(line.size, below.size) and max(line.size, below.size) <= 1.35 * min(
        line.size, below.size
    )
    if abs(line.size - below.size) > 0.5 and not display_pair:
        return False
    word = below.text
    height = max(line.bbox[3] - line.bbox[1], 1.0)
    # Large type's boxes overlap (Canva's "MIKEL" / "ECHEVERRIA" at 39.5 pt: the box below
    # starts 8 pt above the one above ends) - the line below still starts below (layout-33)
    gap = below.bbox[1] - line.bbox[3]
    # display type's lines are set further apart, and a scan's boxes hug the letters: "Oliver"
    # / "Spörl" 19 pt apart at 28 and 32.5 pt (stop 50)
    # InDesign's boxes of 33 pt capitals are 55 pt tall and overlap by 23 ("NICCOLÒ" /
    # "MAFFIOLI", v24's nmaffioli): set solid, one line's top is a type size below the other's
    # (layout-63)
    pitch = below.bbox[1] - line.bbox[1]
    solid = display_pair and 0.8 * line.size <= pitch <= 1.2 * line.size
    return (
        word.isalpha()
        and word[0].isupper()
        and below.bbox[1] > line.bbox[1]
        and (-0.3 * height <= gap <= height * (0.9 if display_pair else 0.6) or solid)
    )


def _name_shaped(text: str, lines: list[Line], k: int, parts: tuple[tuple[str, ...], ...] = ()) -> str | None:
    # A repair first: "PERSONAL INFORMATION Katie Smith" and "Minna von Barn-" are
    # name-shaped as they stand, and wrong.
    repaired = next((r for r in _name_repairs(text, lines, k) if looks_like_name(r)), None)
    if repaired is None and k < 15 and not looks_like_name(text):
        # Only a line that is no name as read: "Mary Ann Smith" stays beside maryann.smith@.
        respaced = _respaced_by_email(text, parts)
        repaired = respaced if respaced is not None and looks_like_name(respaced) else None
    if repaired is None and k < 15 and not looks_like_name(text):
        repaired = _split_by_email(text, parts, lines, k) or _initial_last(text, lines, k)
    return repaired or (text if looks_like_name(text) else _comma_name(text, lines, k))


def _comma_name(text: str, lines: list[Line], k: int) -> str | None:
    """ "TZU CHUN, HSU": given names, a comma, the family name - as written, in the top's
    largest type only (elsewhere "Smith, Berlin" is a name and a place). No side is a
    place or holds a job word (v16)."""
    before, comma, after = text.partition(", ")
    if not comma or "," in after or not _largest(lines, k) or not before or not after:
        return None
    if is_place(after) or is_place(before) or not _latin_name(f"{before} {after}"):
        return None
    return text


def _all_skills(text: str) -> bool:
    """Every word of the text is a skill's name: "Html Css"."""
    words = text.split()
    known = lex.skills()
    return len(words) >= 2 and all(w.casefold() in known for w in words)


def _initial_last(text: str, lines: list[Line], k: int) -> str | None:
    """ "Karan Kumar Aneja R": an initial set after the names (a South Indian convention: the
    father's or the village's name), on the name's own line - the largest type at the top of
    a text layer's page (on a scan a lone capital at a line's end is as often an icon). The
    names before it must make a name of at least two words (h54)."""
    words = text.split()
    last = words[-1] if words else ""
    if len(words) < 3 or len(last) != 1 or not last.isupper() or lines[k].runs is None or not _largest(lines, k):
        return None
    return text if _latin_name(" ".join(words[:-1])) else None


MIN_GLUED = 6


def _split_by_email(text: str, parts: tuple[tuple[str, ...], ...], lines: list[Line], k: int) -> str | None:
    """ "andreasoffenhaeuser" beside offenhaeuser@gmail.com: a name whose text layer lost
    the space between its words (a TeX class sets given and family name in two weights),
    cut where an address's local word begins or ends it, in the largest type at the top.
    Set in lower case as a style, it is capitalised (h54)."""
    if not (MIN_GLUED <= len(text) <= 40 and text.isalpha() and _largest(lines, k)):
        return None
    low = text.casefold()
    for word in {w for words in parts for w in words if len(w) >= 3}:
        if len(low) - len(word) < 2:
            continue
        cut = len(low) - len(word) if low.endswith(word) else len(word) if low.startswith(word) else 0
        if cut:
            pieces = [text[:cut], text[cut:]]
            candidate = " ".join(p[:1].upper() + p[1:] if text.islower() else p for p in pieces)
            if looks_like_name(candidate):
                return candidate
    return None


# A document's title as one long word ("Europass", "Lebenslauf"): found inside a line's
# letters, the line is the title or its logo, OCR'd ("XeuropasSs": Europass's logo, read
# as a name glued into one word - layout-32).
_TITLE_WORDS = tuple(sorted(t for t in lex.DOCUMENT_TITLES if t.isalpha() and len(t) >= 7))


def _titled(text: str) -> bool:
    letters = "".join(ch for ch in text if ch.isalpha()).casefold()
    return any(title in letters for title in _TITLE_WORDS)


# Europass's label column: "Name / Surname", "Nome / Cognome", "Nom(s) / Prénom(s)",
# "Nachname(n) / Vorname(n)", "Apellido(s) / Nombre(s)", "Nome(i) / Cognome(i)" - the name
# in the cell to its right.
_NAME_LABEL_PARTS = frozenset(
    {*lex.NAME_LABELS, "surname", "surnames", "first name", "first names", "last name", "given name", "family name",
     "cognome", "prénom", "prénoms", "noms", "nachname", "vorname", "vornamen", "nachnamen", "apellido", "apellidos",
     "nombres", "sobrenome", "imię", "nazwisko", "achternaam", "voornaam", "voornamen"}
)  # fmt: skip
_PLURAL_MARK = re.compile(r"\((?:s|n|en|es|i)\)", re.IGNORECASE)


def _one_name(text: str) -> bool:
    """One capitalised word of letters, no heading, job or stop word: a mononym."""
    return (
        len(text) >= 3
        and text.isalpha()
        and text[0].isupper()
        and not heading_kind(text)
        and text.casefold() not in lex.JOB_WORDS
        and text.casefold() not in lex.NAME_STOPWORDS
    )


def _name_label_beside(label: Line, line: Line) -> bool:
    """A name label cell ("Name / Surname") on the row of the line, left of it: a text
    layer gives Europass's two columns as lines of their own (layout-32: the label column's
    "Personal Email" was read as the name)."""
    if label.bbox is None or line.bbox is None or label.page != line.page or label.bbox[2] > line.bbox[0]:
        return False
    height = max(line.bbox[3] - line.bbox[1], 1.0)
    if abs((label.bbox[1] + label.bbox[3]) - (line.bbox[1] + line.bbox[3])) / 2 > 0.5 * height:
        return False
    text = _PLURAL_MARK.sub("", label.text).strip(" :").casefold()
    parts = [p.strip(" :") for p in re.split(r"\s*[/,]\s*|\s+(?:and|und|et|e|y)\s+", text)]
    return 0 < len(parts) <= 3 and all(p in _NAME_LABEL_PARTS for p in parts)


# OCR's look-alike glyphs, folded the same way on both sides of a comparison.
_LOOKALIKE = str.maketrans({"l": "i", "1": "i", "|": "i", "!": "i", "0": "o"})


def _lookalike_fold(text: str) -> str:
    return text.casefold().translate(_LOOKALIKE)


def _email_name_parts(emails: Iterable[str]) -> tuple[tuple[str, ...], ...]:
    """Each address's local part as its words ("najmi.achraf" -> ("najmi", "achraf")), when
    it has one to three of at least two letters each."""
    out = []
    for address in emails:
        words = tuple(w for w in re.split(r"[._\-+]", address.partition("@")[0]) if w)
        if 1 <= len(words) <= 3 and all(len(w) >= 2 and w.isalpha() for w in words):
            out.append(words)
    return tuple(out)


def _respaced_by_email(text: str, parts: tuple[tuple[str, ...], ...]) -> str | None:
    """A line whose letters spell an address's local words in some order, spaced wrong or
    with look-alike glyphs on a scan ("ACH RAF NAJM l" beside najmi.achraf@...), spaced as
    those words with the address's letters in the line's case ("ACHRAF NAJMI"). No letter is
    added or dropped: the line has to spell the words exactly, look-alikes aside."""
    letters = "".join(ch for ch in text if not ch.isspace())
    if not parts or not 4 <= len(letters) <= 40:
        return None
    folded = _lookalike_fold(letters)
    for words in parts:
        for order in itertools.permutations(words):
            if _lookalike_fold("".join(order)) != folded:
                continue
            out, at = [], 0
            for word in order:
                piece = letters[at : at + len(word)]
                at += len(word)
                upper = piece[:1].isupper() and sum(ch.isupper() for ch in piece) > len(piece) // 2
                out.append(word.upper() if upper else word[:1].upper() + word[1:])
            return " ".join(out)
    return None


# Kept: an opening quote or bracket, and a dash - moderncv draws a rule before each section
# heading ("— Persönliche Informationen"), which OCR reads as a dash: a heading's mark.
_KEPT_LEAD = frozenset("(\"'“„«‘-–—‒―")


def _strip_lead_glyphs(text: str) -> str:
    """The text without the symbols and spaces before its first letter or digit: a name
    never starts with punctuation or a symbol."""
    i = 0
    while i < len(text) and not text[i].isalnum() and text[i] not in _KEPT_LEAD:
        i += 1
    return text[i:]


def name(lines: list[Line], emails: Iterable[str] = ()) -> Found | None:  # noqa: PLR0912, PLR0915 - one scoring rule per branch, kept together so the weights read as one table
    """The candidate's name: the most prominent name-shaped line near the top. ``emails``
    (the CV's own addresses) only re-segment a line whose letters spell their local part."""
    exported = _linkedin_name(lines)
    if exported is not None:
        return exported
    parts = _email_name_parts(emails)
    first_page = [ln for ln in lines if ln.page in (None, 1)]
    max_size = max((ln.size for ln in first_page[:80]), default=0.0) or 1.0
    best: tuple[float, str, Line, str, int] | None = None
    position = 0
    # A DOCX that styles its section headings "Title" ("Professional Experience", "Open
    # Source") uses the style for headings, not for the name: it says nothing then (h54).
    title_style = sum(1 for ln in lines[:120] if ln.style == "Title") == 1
    absorbed = -1  # a line the name before it took in (OCR's cut of one row)
    # The first page's largest type, set well above its body text: a name wherever the text
    # layer puts it - a sidebar drawn last, under the sidebar's own headings (v13).
    page_one = sorted(ln.size for ln in lines[:120] if ln.page in (None, 1) and ln.size)
    largest = page_one[-1] if page_one and page_one[-1] >= 1.8 * page_one[len(page_one) // 2] else None
    for k, line in enumerate(lines[:120]):
        if (
            line.section not in ("top", "contact", "header")
            and not (title_style and line.style == "Title")
            and not (largest is not None and line.size >= largest and line.page in (None, 1) and not line.heading)
        ):
            continue
        if k == absorbed:
            continue  # "JAKUB" | "T. JANKIEWICZ": the row's second half is no name of its own (h54)
        if about_someone_else(line):
            continue
        text, bonus, rule = line.text, 0.0, "name.top"
        labelled = label_of(text)
        label_cell = bool(line.label and line.label.casefold() in lex.NAME_LABELS)
        if label_cell or (not labelled and k > 0 and _name_label_beside(lines[k - 1], line)):
            bonus, rule = 4.0, "name.label"
        elif labelled and labelled[0] in lex.NAME_LABELS:
            text, bonus, rule = labelled[1], 4.0, "name.label"
        elif labelled and labelled[0] in lex.DOCUMENT_TITLES:
            text = labelled[1]  # "Lebenslauf: Anna Schmidt"
        elif labelled or line.label:
            continue
        # "Curriculum Vitae | Anna Schmidt": a title segment gives way to the next one.
        # "ARTHUR L. - Software Engineer | Web3 Specialist" (an en dash): a dash spaced on both sides
        # parts the name from its tagline as a bar does (h54; a hyphen joins double names)
        segments = [seg.strip() for seg in _SEGMENTS.split(_NAME_DASH.sub(" | ", text), maxsplit=3)]
        while len(segments) > 1 and (not segments[0] or segments[0].casefold() in lex.DOCUMENT_TITLES):
            segments.pop(0)
        # "Sylvain Boulade, développeur web": a comma parts the name from the occupation
        # after it (v13; "Smith, John" has no job word after its comma)
        before, comma, after = segments[0].partition(", ")
        if comma and before and any(w.strip(".,;:").casefold() in lex.JOB_WORDS for w in after.split()):
            segments[0] = before
        elif comma and before and _AGE.match(after):
            segments[0] = before  # "Luiz Felipe Alves Costa, 20 anos": the age after the name (v16)
        # ".Pierce Jorgensen", "=Pierce Jorgensen", ". AndréSantos": a scan's speck or an
        # icon's glyph before the name, and the space after it (h54)
        head = _strip_lead_glyphs(_strip_prefixes(_strip_titles(_NAME_BRACKET_TAIL.sub("", segments[0]))))
        particulars = _CJK_NAME_PARTICULARS.match(text.strip())
        if particulars:
            head = particulars.group(1)
        if not head:
            continue  # a rule drawn as a dash: nothing of a name, and not to join the next line to
        shaped = _name_shaped(head, lines, k, parts)
        if shaped is None and rule == "name.label" and _one_name(head):
            shaped = head  # "Name / Surname  Pythagoras": one name, where a label says so (layout-32)
        if shaped is not None and any(w.strip(".:").casefold() in _NOT_NAME_WORDS for w in shaped.split()):
            # "Personal Email": a contact label in a label column, no name (layout-32);
            # "GLOBE Portfolio": an icon font's glyph name before a link's label (v13)
            continue
        if shaped is not None and _all_skills(shaped) and not (largest is not None and line.size >= largest):
            # "HTML" / "CSS" / "Javascript" / "Photoshop": a skills list set a word a line, in
            # small type, stacks like a name; only the page's largest type may be one (stop 50)
            continue
        if shaped is None or is_place(shaped) or is_place(shaped.replace(". ", ", ")) or _titled(shaped):
            continue  # "São Paulo", "Seattle. Wa": a place under the name, never the name (h49)
        text = shaped
        if k + 1 < len(lines) and shaped.endswith(lines[k + 1].text) and _same_row(line, lines[k + 1]):
            absorbed = k + 1
        score = bonus - 0.15 * position
        if line.size:
            score += 3.0 * line.size / max_size
        if line.style == "Title" and title_style:
            score += 3.0
        elif line.style and line.style.startswith("Heading"):
            score += 1.0
        if line.part == "header":
            score += 1.0
        position += 1
        if best is None or score > best[0]:
            best = (score, _smart_case(text), line, rule, k)
    if best is None:
        return None
    sources = [best[2].source(best[3])]
    # "Pablo" / "García" / "Robredo": a name set a word a line, over two or three lines
    text, line, k = best[1], best[2], best[4]
    if (
        k + 1 < len(lines)
        and _stacked(line, lines[k + 1], _display_size(lines, line.page))
        and text.casefold().endswith(f" {lines[k + 1].text}".casefold())
    ):
        line, k = lines[k + 1], k + 1  # the name took its second line in already (_name_repairs)
        sources.append(line.source("name.second_line"))
    for _ in range(2):
        rest = _name_line_below(line, lines[k + 1 : k + 5], text)
        if rest is None:
            break
        second, line, at = rest
        sources.append(line.source("name.second_line"))
        text, k = f"{text} {second}", k + 1 + at
    return Found(text, sources)


# A LinkedIn export sets the profile's name alone at the top of its main column, in type no
# other line of the export uses (26 pt over 15.8 pt headings): a long name wraps onto a second
# line in that type ("Muhammad Daniel Fahmi Md" / "Nasrein"), and a one-word name ("Gagan")
# is the whole name (layout-62, v24's exports: the general reader cut the first and took
# nothing for the second, where a lone word is more often a heading than a name).
_EXPORT_NAME_LINES = 3
_EXPORT_NAME_TAIL = " \t-–—|,·"  # stripped, not matched: a regex "[...]+$" is quadratic on a run of them


def _linkedin_name(lines: list[Line]) -> Found | None:
    if not linkedin_export(lines):
        return None
    page_one = [ln for ln in lines[:120] if ln.page in (None, 1) and ln.size and ln.bbox is not None]
    if not page_one:
        return None
    top = max(ln.size for ln in page_one)
    k = next(i for i, ln in enumerate(page_one) if ln.size == top)
    run = [page_one[k]]
    for ln in page_one[k + 1 : k + _EXPORT_NAME_LINES]:
        last = run[-1]
        assert ln.bbox is not None and last.bbox is not None  # (page_one: every line has a box)
        if abs(ln.size - top) > 0.2 or abs(ln.bbox[0] - last.bbox[0]) > 2 or ln.bbox[1] - last.bbox[1] > 1.6 * top:
            break
        run.append(ln)
    text = " ".join(ln.text.strip() for ln in run).rstrip(_EXPORT_NAME_TAIL)
    degree = _POSTNOMINAL.search(text)
    if degree:  # "Thiago Milanez, Itil®": the profile's name field with a certificate (layout-67)
        text = text[: degree.start()]
    words = text.split()
    if (
        not 1 <= len(words) <= 8
        or any(ch.isdigit() or ch in "@/:" for ch in text)
        or not any(ch.isalpha() for ch in text)
        or heading_kind(text)
    ):
        return None
    return Found(_smart_case(text), [ln.source("name.linkedin_export") for ln in run])


def _name_line_below(line: Line, below: list[Line], name_text: str) -> tuple[str, Line, int] | None:
    """ "André Hickmann" over "Kuschnereit" in the same large type, aligned left, right or
    centred: a name set over two lines, the second one word or two (h50). `below`: the lines
    after the name's in reading order; with the second line, its place in them."""
    if line.bbox is None or not line.size or len(name_text.split()) > 3:
        return None
    # The first of the next four lines under the name's own span: on a header with a
    # right-hand contact column the text layer or the OCR's walk may give that column's
    # line between them ("André Hickmann" | "andre@..." / "Kuschnereit"; h54).
    a = line.bbox
    # large type's boxes overlap (Canva's 42.8 pt lines: the box below starts 9 pt above
    # the one above ends; a TeX header's 29.7 pt lines, 9.1 pt: stop 50)
    overlap = max(2.0, 0.35 * (a[3] - a[1]))
    at, nxt = next(
        (
            (p, ln)
            for p, ln in enumerate(below)
            if ln.page == line.page
            and ln.bbox is not None
            # under the name, not a neighbour's edge: "|| Linkedin" ending 6 pt inside the
            # name's span on a scan, left of "AROUS" (stop 50)
            and min(ln.bbox[2], a[2]) - max(ln.bbox[0], a[0]) >= 0.3 * min(ln.bbox[2] - ln.bbox[0], a[2] - a[0])
            and ln.bbox[1] >= a[3] - overlap
            and ln.bbox[1] > a[1]
            and any(ch.isalpha() for ch in ln.text[:80])  # a scan's speck is no line of the name's
        ),
        (-1, None),
    )
    if nxt is None or nxt.bbox is None:
        return None
    b = nxt.bbox
    aligned = abs(a[0] - b[0]) <= 3 or abs(a[2] - b[2]) <= 3 or abs((a[0] + a[2]) - (b[0] + b[2])) <= 6
    # "Mohamed Amine" / "AROUS": a shorter family name under the given names, inside their
    # span but not centred on it as a text layer measures it (stop 50)
    aligned = aligned or (
        a[0] - 3 <= b[0] and b[2] <= a[2] + 3 and len(nxt.text.split()) == 1 and len(line.text.split()) <= 3
    )
    words = nxt.text.split()
    if len(words) == 2 and len(words[0]) == 1 and words[0].isupper() and _is_caps(words[1]) and _is_caps(line.text):
        # "JOHN PAUL" / "N EWMAN": OCR parted a capital set wider than the rest of its word
        # (small caps) - no initial stands alone on the family name's line (h54)
        words = ["".join(words)]
    fits = (
        aligned
        and nxt.page == line.page
        # a text layer's sizes are exact; an OCR'd line's is its box's height, read a few
        # points either way ("André Hickmann" 20.5, "Kuschnereit" 26.3 on one scan)
        # (Canva sets "Pablo" / "García" / "Robredo" at 42.8, 42.8, 41.8)
        and abs(nxt.size - line.size) <= (max(0.5, 0.03 * line.size) if line.runs is not None else 0.3 * line.size)
        and -overlap <= b[1] - a[3] <= 0.5 * line.size
        and 1 <= len(words) <= 2
        # "Jules" / "Verne": the name as read already took the line below
        and not any(w.casefold() in name_text.casefold().split() for w in words)
        and not any(w.casefold() in lex.JOB_WORDS or not w[:1].isupper() for w in words)
        and not any(w.strip(".:|").casefold() in _NOT_NAME_WORDS for w in words)  # "Portfolio" (stop 50)
        and not is_place(nxt.text)
        and nxt.text.casefold() not in lex.DOCUMENT_TITLES  # "Helge Eichhorn" / "Lebenslauf"
    )
    second = " ".join(words)
    if not fits or not looks_like_name(f"{name_text} {_smart_case(second)}"):
        return None
    return _smart_case(second), nxt, at


# -- location --------------------------------------------------------------------------------

_POSTCODE_CITY = re.compile(r"\b(?:\d{2}-\d{3}|\d{4,5})\s{1,3}([^\W\d_])[\w'-]{1,30}")


def _postcode_city(segment: str) -> bool:
    """ "31400 Toulouse", "00-950 WARSZAWA": a town's name is capitalised - "2025 in software
    development" (a summary's wrapped line) is a year before words."""
    m = _POSTCODE_CITY.search(segment)
    return m is not None and not m.group(1).islower()


def _less_links(segment: str) -> str:
    """The segment less a link written in it: "Cork, Ireland linkedin.com/in/jane-oneil" (two
    contact lines a PDF's text layer gave as one, the stop-70 newcomer check) is the place
    "Cork, Ireland". Only a link with a path or a scheme: "U.S.A." and "St.Gallen" stay."""
    if "/" not in segment and "www." not in segment:
        return segment

    def link_out(m: re.Match[str]) -> str:
        link = m.group(0)
        return " " if "/" in link or link.startswith(("http", "www.")) else link

    return " ".join(_URL.sub(link_out, segment).split()).strip(" ,;|")


def location(lines: list[Line]) -> Found | None:
    contact = [ln for ln in lines if ln.in_contact and not about_someone_else(ln)][:60]
    for line in contact:  # labelled first: "Address: ...", or a table row labelled so
        labelled = label_of(line.text)
        if line.label and line.label.casefold().rstrip(":") in lex.ADDRESS_LABELS:
            return Found(line.text, [line.source("location.label")])
        if labelled and labelled[0] in lex.ADDRESS_LABELS:
            return Found(labelled[1], [line.source("location.label")])
    for line in contact:
        if len(line.text) > 200:
            continue
        for raw in _SEGMENTS.split(_masked_emails(line.text)):
            segment = _less_links(raw.strip(" ,;"))
            labelled = label_of(segment)
            if labelled:
                if labelled[0] in lex.ADDRESS_LABELS:
                    return Found(labelled[1], [line.source("location.label")])
                segment = labelled[1]
            if (
                not segment
                or _URL.fullmatch(segment)
                or sum(ch.isdigit() for ch in segment) > 6
                # a summary's wrapped sentence ("in France. I am looking for ..."), no address
                or (segment[0].islower() and ". " in segment)
            ):
                continue
            place = place_region(segment) or _postcode_city(segment)
            # "Den Haag" is shaped like a name; a known place on its own is still a place.
            exact = segment.split(",")[0].strip().casefold() in lex.CITIES
            if place and len(segment.split()) <= 8 and (exact or not looks_like_name(segment)):
                return Found(segment, [line.source("location.place")])
    for line in contact:  # a known city inside a line whose separators OCR misread
        # A name line's "Santos" is the person's (h49).
        named = looks_like_name(line.text) or looks_like_name(_strip_titles(line.text))
        found = None if named else _city_in(line.text)
        if found:
            return Found(found, [line.source("location.city")])
    return None


def _city_in(text: str) -> str | None:
    """The first known city named in the text, with ", Country" or ", ST" when it follows."""
    matches = list(_WORDS.finditer(text[:300]))
    words = [m.group(0).rstrip(".,").casefold() for m in matches]
    for i in range(len(words)):
        for n in (3, 2, 1):
            if i + n <= len(words) and " ".join(words[i : i + n]) in lex.CITIES:
                start, end = matches[i].start(), matches[i + n - 1].end()
                tail = re.match(r"\s{0,2},\s{0,2}([^\W\d_][\w .-]{1,30})", text[end : end + 40])
                if tail and (
                    tail.group(1).strip().casefold() in lex.COUNTRIES or tail.group(1).strip() in lex.US_STATES
                ):
                    end += tail.end()
                return text[start:end].rstrip(".,")
    return None


# -- skills ----------------------------------------------------------------------------------

# A list's bullet: an ASCII star or a dash with a space after it, or a glyph with or without
# one ("●JavaScript", "✔ Azure Pipelines", "⋄Analog IC Design", "▷Traitement de signal"; an
# icon font's glyph the text layer could not map, U+FFFD or a private-use code point:
# "\ufffdSTM32 & ARM") - layout-66.
_BULLET_GLYPHS = "•▪◦●∙‣✔✓☑➢➤►▶▷▸▹⋄◆◇■□○◉★☆✦❖→»›\ufffd\ue000-\uf8ff"
_GLYPH_HEAD = re.compile(rf"^[{_BULLET_GLYPHS}]+")

# CJK lists separate items with the ideographic comma and full-width punctuation
# ("Java、Dart、SQL" and the full-width comma): a Japanese scan's skills list read as one token
# (layout-37).
_SKILL_TOKEN = re.compile(r"[^\s,;|·•()\[\]{}!?\"“”、，；（）]{1,40}")
_TITLE_NOUNS = frozenset(
    {"engineer", "engineers", "developer", "developers", "scientist", "architect", "consultant", "specialist",
     "manager", "lead", "team", "ingenieur", "entwickler", "ingénieur", "ingeniero", "engineering"}
)  # fmt: skip
_SKILL_SECTIONS_LOOSE = frozenset({"experience", "summary", "other", "top"})


def _tokens(text: str) -> list[str]:
    out = []
    for raw in _SKILL_TOKEN.findall(text):
        tok = _GLYPH_HEAD.sub("", raw).strip("-*–—:'’").rstrip(".")  # ".NET" keeps its leading dot
        if tok:
            out.append(tok)
    return out


def _skill_tokens(lines: list[Line], k: int) -> tuple[bool, list[str], int] | None:
    """(in a skills list, the line's tokens and the next line's first few, how many are its
    own) for a line skills are read from; None for a line they are not."""
    line = lines[k]
    if line.heading:
        return None
    labelled = label_of(line.text)
    in_section = (
        line.section == "skills"
        or (labelled is not None and heading_kind(labelled[0]) == "skills")
        or (line.section == "languages" and _programming_list(line.text))
    )
    if not in_section and line.section not in _SKILL_SECTIONS_LOOSE:
        return None
    if line.section == "top" and not in_section and line.n < 3:
        return None  # the name and headline
    text = _masked_emails(line.text)
    if "." in text:  # links are not skills ("github.com/x"), but "Node.js" is
        text = _mask(text, [m.span() for m in _URL.finditer(text) if "/" in m.group(0) or "www." in m.group(0)])
    tokens = _tokens(text)
    own = len(tokens)
    if line.section == "skills" and k + 1 < len(lines) and lines[k + 1].section == "skills":
        # A narrow column wraps "Natural Language Processing" over two lines: the next
        # line's first words may finish a skill that starts on this one.
        tokens += _tokens(lines[k + 1].text)[: lex.max_skill_words() - 1]
    return in_section, tokens, own


def _programming_list(text: str) -> bool:
    """A list under a languages heading whose items are the taxonomy's skills, not spoken
    languages ("Julia, Python, MATLAB, Fortran" under "Sprachen"; "Languages: Go, Rust"):
    a skills list (layout-12). Two items at least, most of them skills."""
    return _mostly_known(_list_items(text))


def _mostly_known(items: list[str]) -> bool:
    """Two items at least, most of them the taxonomy's skills."""
    if len(items) < 2:
        return False
    vocab = lex.skills()
    known = sum(1 for item in items if " ".join(item.casefold().split()) in vocab)
    return known >= 2 and 2 * known >= len(items)


def _longest_skill(low: list[str], i: int, vocab: Mapping[str, lex.Skill]) -> tuple[lex.Skill, int] | None:
    """The longest vocabulary entry starting at token i, and its length in tokens."""
    for n in range(min(lex.max_skill_words(), len(low) - i), 0, -1):
        skill = vocab.get(" ".join(low[i : i + n]))  # "CI/CD" too: a pair not in it is split by the caller
        if skill is not None:
            return skill, n
    return None


def _in_job_title(low: list[str], i: int, n: int) -> bool:
    """Part of a job title: "Machine Learning Engineer", "Leiterin Data Science"."""
    return (i + n < len(low) and low[i + n] in _TITLE_NOUNS) or (
        i > 0 and (low[i - 1] in _TITLE_NOUNS or low[i - 1] in lex.JOB_WORDS)
    )


def _add_skill(out: Values, line: Line, rule: str, text: str, skill: lex.Skill, *, wording: dict[str, str]) -> None:
    # The value is the CV's own wording (issue 25: "Kubernetes" as the CV printed it, not a
    # taxonomy label); one concept is one value however many spellings the CV uses, keyed by
    # its taxonomy id, and the skills list's wording wins over a mention in prose.
    as_written = " ".join(text.split())
    if rule == "skill.section":
        wording.setdefault(skill.taxonomy_id, as_written)
    source = replace(line.source(rule, text), taxonomy_id=skill.taxonomy_id, taxonomy_label=skill.canonical)
    out.add(skill.taxonomy_id, as_written, source)


_LIST_SEPARATOR = re.compile(r"\s*[,;|·•、，；]\s*")
_LIST_BULLET = re.compile(rf"^\s*(?:[*–-]\s+|[{_BULLET_GLYPHS}]\s*)")
# brackets: only those kept whole (_names_the_item); a leading dot only before a letter (".NET")
_LIST_ITEM = re.compile(r"(?:[^\W_]|\.(?=\w))[\w+#&./' ()-]{0,38}[\w+#)]?")
_MAX_LIST_ITEMS = 40  # a hostile 10 MB "a, b, c, ..." line stays linear and bounded


MAX_LIST_LINE = 2000
MAX_ITEM_WORDS = 6
_BRACKETED = re.compile(r"\s*\(([^()]{0,200})\)")


def _bracket_items(m: re.Match[str]) -> str:
    if _HOW_LONG_USED.fullmatch(" - " + m.group(1).strip()):
        return ""  # "JavaScript (4 years)"
    if _names_the_item(m.string[: m.start()], m.group(1).strip()):
        return m.group(0)
    inner = [p.strip() for p in _LIST_SEPARATOR.split(m.group(1)) if p.strip()]
    if inner and all(len(p.split()) <= 2 and not p[0].islower() for p in inner):
        return ", " + ", ".join(inner)
    return ""


# layout-48: a bracket that spells the item out or abbreviates it ("Google Cloud Platform
# (GCP)", "NLP (Natural Language Processing)", "Weights & Biases (W&B)") is part of the item
# as the CV prints it - the labels keep it whole (~15 development CVs; held-out v20's,
# development since, read "GCP" as a skill of its own). A bracket listing more items still
# gives one each; a version in brackets too ("JavaScript (ES6)": the labels split it as
# often as they keep it).
_INITIAL_WORD = re.compile(r"[^\W\d_][\w'’]*")


def _initials(words: list[str]) -> str:
    return "".join(w[0] for w in words).casefold()


def _names_the_item(before: str, inner: str) -> bool:
    """Whether a bracket after `before`'s last item is that item's abbreviation or
    spelled-out form (either way round), the whole a list item's length (a text layer's
    "Model Context Pro tocol (MCP)" is split as before)."""
    item = _LIST_SEPARATOR.split(before[-80:])[-1]
    if len(item.split()) + len(inner.split()) > 4 or len(item) + len(inner) > 36:
        return False
    head_words = _INITIAL_WORD.findall(item.replace("-", " "))
    inner_words = _INITIAL_WORD.findall(inner.replace("-", " "))
    short = "".join(ch for ch in inner if ch.isalnum()).casefold()
    if 2 <= len(short) <= 6 and " " not in inner.strip() and len(head_words) >= 2:
        # "Google Cloud Platform (GCP)", "Internet of Things (IoT)": with or without small words
        big = [w for w in head_words if w[0].isupper()]
        if short in (_initials(head_words[-len(short) :]), _initials(big[-len(short) :])):
            return True
    head = "".join(ch for ch in item if ch.isalnum()).casefold()
    if 2 <= len(head) <= 6 and " " not in item.strip() and len(inner_words) >= 2:
        big = [w for w in inner_words if w[0].isupper()]
        return head in (_initials(inner_words), _initials(big))
    return False


_VERSION = re.compile(r"\s+v?\d[\d.]*(?:\s?[–-]\s?\d[\d.]*|\+|\.x)?$")
# How long the CV's owner has used an item is no part of it ("Express - 1 year", "Node
# (Sails.js, Express) => 5 Years"; layout-66).
_HOW_LONG_USED = re.compile(
    r"\s*(?:[–—-]|=>|->|:)\s*\d{1,2}(?:[.,]5)?\s?\+?\s*(?:years?|yrs?|ans?|años|anos|jahre?)\.?$", re.IGNORECASE
)
# "Backend — C#, .NET 8, ASP.NET Core" and "AI & LLM Integration — OpenAI, Anthropic": a
# list's label set off by a spaced dash, not a colon (layout-66).
_DASH_LABEL = re.compile(r"^([^\W\d_][^,;:|()—–]{0,40}?)\s+[—–]\s+(\S.*)$")
# Proficiency words a list sets in brackets after an item ("R (Intermediate)"): no skill.
_LEVELS = frozenset(
    {"basic", "basics", "beginner", "intermediate", "advanced", "expert", "proficient", "fluent", "native",
     "good", "very good", "excellent", "grundkenntnisse", "fortgeschritten", "experte", "básico", "intermedio",
     "avanzado", "intermédiaire", "avancé", "débutant", "intermediário", "avançado", "native speaker",
     "mother tongue", "muttersprache", "langue maternelle", "nativo", "nativa", "lengua materna"}
)  # fmt: skip


# Programming languages of one letter: a list's "C" or "R" is an item (layout-66).
_ONE_LETTER = frozenset({"C", "R"})
_ETC = frozenset({"etc", "usw", "u.a", "etc.)", "and more", "und mehr", "y más", "e mais", "et plus"})


def _named(item: str) -> bool:
    """An item whose first word has a letter: "3D printing", "2D CAD" are names; "2019", "5
    years", "6-9 November", "3.6" are not."""
    words = item.split(maxsplit=1)
    return any(c.isalpha() for c in (words[0] if words else item))


# Labels of a skills section's lines that list no skills (layout-66): certificates,
# interests, awards, courses ("Certifications: AWS Solutions Architect | ...", "Interests:
# Fitness; ..."); a catch-all "Other:" (Chinese "其他") lists skills.
_NO_SKILLS_LABEL = re.compile(
    r"certif|zertifi|interest|intérêt|interés|interess|hobb|loisir|award|honou?r|prix|premi|prêmio|course|kurs|curso"
    r"|publica|publika|reference|referenz|référence|volunt|bénévol|licen[cs]e|permis|führerschein"
)


def _list_label(text: str) -> tuple[str, str, str | None] | None:
    """(label, the list after it, the label's heading kind) of a line that opens with a
    list's label - "Expertise: ..." (a colon, three words at most) or "Backend — C#, .NET"
    (a spaced dash, four words at most, a list after it) - else None."""
    labelled = label_of(text)
    if labelled is not None:
        return (labelled[0], labelled[1], heading_kind(labelled[0])) if len(labelled[0].split()) <= 3 else None
    dashed = _DASH_LABEL.match(text[:MAX_LIST_LINE])
    if dashed is None or len(dashed[1].split()) > 4 or not _LIST_SEPARATOR.search(dashed[2]):
        return None
    label = dashed[1].casefold()
    # "English — reading & writing (good); listening & speaking (conversant)"
    return label, dashed[2], "languages" if label in lex.LANGUAGES else heading_kind(label)


def _list_items(text: str, *, versions: bool = False, categorised: bool = True) -> list[str]:
    """The items of a skills list line that is evidently a list - a bullet, or items between
    commas/semicolons - each short (1-4 words) and shaped like a name, not a sentence; []
    for prose ("Creating pieces of Art and visiting galleries."). `categorised`: [] for a
    list its label says holds no skills (spoken languages, certificates, interests)."""
    bulleted = _LIST_BULLET.match(text) is not None
    text = _LIST_BULLET.sub("", text, count=1)
    labelled = label_of(text)
    listed = _list_label(text)
    category, label = None, ""
    if listed is not None:
        label, text, category = listed  # "Languages: Go, Rust" - the label is a category, not a skill
    # "Azure (Azure DevOps, Azure SQL)", "BFF (Nest.js)": a bracket lists more items (h44);
    # a bracket that says something ("(Can read, write and speak fluently)") is dropped.
    text = _BRACKETED.sub(_bracket_items, text[:MAX_LIST_LINE])
    # h55: a list that trails off ("..., Thrift, TypeScript. . .", "webkit…") is still a list;
    # its dots are no sentence's full stop.
    trimmed = text.rstrip(" .…")
    tail = text[len(trimmed) :]
    if "…" in tail or 2 <= tail.count(".") <= 4:  # a longer run is a dot leader, not "..."
        text = trimmed
    parts = [p.strip() for p in _LIST_SEPARATOR.split(text, maxsplit=_MAX_LIST_ITEMS)[:_MAX_LIST_ITEMS]]
    parts = [p for p in parts if p and p.casefold().rstrip(".…") not in _ETC]
    if not parts or (len(parts) < 2 and not bulleted):
        return []
    parts = [_HOW_LONG_USED.sub("", p) for p in parts]
    items = [p.rstrip(".") if versions else _VERSION.sub("", p.rstrip(".")) for p in parts]  # "Angular 8+": the skill
    items = [it for it in items if it.casefold() not in _LEVELS and it.casefold() not in lex.LANGUAGES]
    shaped = [
        it
        for it in items
        if len(it.split()) <= 4
        and (len(it) > 1 or it in _ONE_LETTER)
        and _LIST_ITEM.fullmatch(it)
        and _named(it)
        # an opening bracket only as one kept whole ("Web Development (HTML": a line break cut it)
        and ("(" not in it or it.count("(") == it.count(")"))
    ]
    # A sentence-like part ("and running"), a closing full stop with spaces before it, or an
    # item of many words means prose: nothing of the line is a list item then. A long list
    # keeps its list shape past one odd item (h44: "Java 8-21, ..., Hibernate/JPA, jOOQ").
    odd = len(items) - len(shaped)
    wordy = any(len(it.split()) > MAX_ITEM_WORDS for it in items)
    # A labelled list of three items or more ends with a full stop as a sentence would
    # ("Networking: VLAN, VPN, NAT, LAN/WAN troubleshooting.", v21's yassila; layout-52).
    stop = parts[-1].endswith(".") and " " in parts[-1] and not (labelled and len(parts) >= 3 and not wordy)
    if (odd and (wordy or odd * 5 > len(items))) or stop:
        return []
    out = [it for it in shaped if not it.casefold().startswith(("and ", "or ", "und ", "et "))]
    # A skills section's "Certifications: ...", "Interests: ...", "Languages: Portuguese -
    # Native, English - Intermediate" lists no skills ("Languages: Go, Rust" does; layout-66).
    if categorised and (_NO_SKILLS_LABEL.search(label) or (category == "languages" and not _mostly_known(out))):
        return []
    return out


def _open_ended(lines: list[Line], k: int) -> bool:
    """Line k's list runs on into line k+1 ("..., Erasure" / "coding, S3" in a narrow column):
    no separator at its end and the next skills line is no new bullet."""
    if k + 1 >= len(lines) or lines[k + 1].section != "skills" or lines[k + 1].heading:
        return False
    # (a full stop ends the list too: "Networking: VPN, NAT, firewall configuration.", layout-52)
    # (nor does a list run on into a labelled one: "Expertise: Computer Science, ...", layout-66)
    following = lines[k + 1].text
    if _LIST_BULLET.match(following) or _list_label(following) is not None:
        return False
    return not re.search(r"[,;|·•.]\s*$", lines[k].text)


_CEFR = re.compile(r"[ABC][12]\+?")
# The Europass CV's self-assessment grids: their column heads are no skills.
_GRID_WORDS = frozenset(
    {"listening", "reading", "writing", "speaking", "understanding", "spoken interaction", "spoken production",
     "information processing", "content creation", "safety", "self-assessment"}
)  # fmt: skip
_ONE_ITEM_RUN = 3


def _one_item(line: Line) -> str | None:
    """The item a skills line is whole, or None: a name of one to four words, no label,
    heading, sub-heading (bold, or capitals the taxonomy does not know: "FRONTEND"), spoken
    language or level ("C1", "Basic user")."""
    if line.section != "skills" or line.heading or ":" in line.text or "：" in line.text:
        return None
    text = _LIST_BULLET.sub("", line.text, count=1).strip()
    if not text or len(text.split()) > 4 or not _LIST_ITEM.fullmatch(text) or not _named(text):
        return None
    low = text.casefold()
    known = low in lex.skills()
    not_an_item = (
        (len(text) < 2 and text not in _ONE_LETTER)
        or low in lex.LANGUAGES
        or low in _LEVELS
        or _CEFR.fullmatch(text) is not None
        or heading_kind(text) is not None
        or low.endswith((" user", " skills"))
        or low in _GRID_WORDS
        # a sentence's words set one to a line ("as" / "operações" / "diárias")
        or (text[0].islower() and not known)
        or (sum(ch.isupper() for ch in text) >= 4 and text.upper() == text and not known)
    )
    # Only where the line's style is known (a PDF's text layer): a sub-heading is told by
    # its bold, which neither OCR nor the DOCX reading gives.
    style = style_of(line, 0, len(line.text))
    return None if not_an_item or style is None or style & 1 else text


def _one_item_lines(lines: list[Line]) -> dict[int, str]:
    """Skills lines that are each one item, none of them a list (layout-66): a column or a
    cloud of tags ("Livewire" / "FilamentPHP" / "REST API Design"; 453 items of development
    CVs' skills lists were lost so). Only in a run of three such lines, and not a line over a
    list, which heads it ("Frontend" / "React, Vue")."""
    found = [_one_item(line) for line in lines]
    found = [None if item is None or _list_items(line.text) else item for item, line in zip(found, lines, strict=True)]
    out: dict[int, str] = {}
    k = 0
    while k < len(lines):
        if found[k] is None:
            k += 1
            continue
        end = k
        while end + 1 < len(lines) and found[end + 1] is not None:
            end += 1
        if end - k + 1 >= _ONE_ITEM_RUN:
            # Each line of the run but the last is over another one-item line, no list: only
            # the last may head one.
            below = lines[end + 1] if end + 1 < len(lines) else None
            heads_a_list = below is not None and below.section == "skills" and bool(_list_items(below.text))
            out.update({i: str(found[i]) for i in range(k, end + 1 - heads_a_list)})
        k = end + 1
    return out


def _whole_items(lines: list[Line], k: int, *, versions: bool = False, single: str | None = None) -> list[str]:
    """Line k's list items but for one a line break may have cut (the last of a line running
    on, the first of the line after): those are left out rather than guessed. `single`: the
    line is that one item (_one_item_lines)."""
    if single is not None:
        return _list_items("• " + single, versions=versions)
    items = _list_items(lines[k].text, versions=versions)
    if items and _open_ended(lines, k):
        items = items[:-1]
    if items and k > 0 and _open_ended(lines, k - 1) and _list_items(lines[k - 1].text, categorised=False):
        items = items[1:]
    return items


# Words and signs that join two items in one list part ("GraphQL and Jquery", Spanish "y
# React", Portuguese "e Linux", "in NumPy", "CSS / Sass"): such a part is no one item.
_JOINERS = frozenset(
    {"and", "or", "in", "with", "for", "of", "y", "e", "o", "u", "et", "ou", "und", "oder", "mit", "con", "avec",
     "en", "de", "i", "oraz", "lub", "w", "also"}
)  # fmt: skip


def _joins(token: str) -> bool:
    return token in _JOINERS or not any(c.isalnum() for c in token)


def _linked_spans(tokens: list[str], low: list[str], vocab: Mapping[str, lex.Skill]) -> list[tuple[str, lex.Skill]]:
    """The item's parts the taxonomy names, longest first from the left: (wording, skill)."""
    spans, i = [], 0
    while i < len(low):
        found = _longest_skill(low, i, vocab)
        if found is None:
            i += 1
            continue
        spans.append((" ".join(tokens[i : i + found[1]]), found[0]))
        i += found[1]
    return spans


def _partly_linked(
    lines: list[Line], k: int, vocab: Mapping[str, lex.Skill], out: Values, single: str | None = None
) -> Counter[str]:
    """A list item the taxonomy names only in part ("Docker Compose", "Azure Pipelines", "AWS
    S3", "Ubuntu server") is one skill in the CV's wording (h55): the labels keep the item as
    printed, and its linked part alone ("Docker") is a skill the list does not name. The
    value is keyed by its wording, each linked part's taxonomy id in a source. Returns how
    often each linked part's wording was taken so (the token walk leaves those out)."""
    line = lines[k]
    taken: Counter[str] = Counter()
    for item in _whole_items(lines, k, versions=True, single=single):
        tokens = _tokens(item)
        low = [t.casefold() for t in tokens]
        if not low or " ".join(low) in vocab:
            continue
        spans = _linked_spans(tokens, low, vocab)
        whole = sum(len(text.split()) for text, _ in spans) == len(low) and "(" not in item
        if not spans or whole:
            continue  # nothing linked (kept by its wording elsewhere), or all of it (unless bracketed whole)
        if any(_joins(t) for t in low):
            continue  # "Github Actions and Jira", "y React", "CSS / Sass": several items, not one
        wording = " ".join(item.split())
        for text, skill in spans:
            source = replace(
                line.source("skill.section", item), taxonomy_id=skill.taxonomy_id, taxonomy_label=skill.canonical
            )
            out.add("item:" + wording.casefold(), wording, source)
            taken[text.casefold()] += 1
    return taken


def _unlinked_items(
    lines: list[Line], k: int, vocab: Mapping[str, lex.Skill], out: Values, single: str | None = None
) -> None:
    """Skills list items no taxonomy entry names ("Erasure coding", "GnuCash"): kept in the
    CV's wording with no taxonomy id (only inside a skills section, only in list shape). An
    item a line break may have cut (last of a line running on, first of the line after) is
    left out rather than guessed."""
    line = lines[k]
    for item in _whole_items(lines, k, single=single):
        low = [t.casefold() for t in _tokens(item)]
        if not low or any(_longest_skill(low, i, vocab) for i in range(len(low))):
            continue  # the taxonomy linked this item, or part of it
        if any(piece.casefold() in vocab for tok in low if "/" in tok for piece in tok.split("/")):
            continue
        wording = " ".join(item.split())
        out.add("text:" + wording.casefold(), wording, line.source("skill.list_item", item))


def _slash_pair(out: Values, line: Line, token: str, vocab: Mapping[str, lex.Skill]) -> bool:
    """A skills list's "C/C++", "HTML/CSS", "Git/GitHub" is one item in the CV's wording (h55):
    the labels of real CVs keep the pair as the CV printed it (184 such items on the
    development half's real documents), and its two sides read apart gave two skills the
    list does not name. One value keyed by its wording, a source per linked side carrying
    that side's taxonomy id (consumers resolve it through either). Only a list's tokens of
    two to four sides, none empty, one at least a taxonomy entry; prose ("Python/Go" in a
    sentence) still reads each side apart."""
    pieces = token.split("/")
    if len(pieces) < 2 or len(pieces) > 4 or not all(pieces):
        return False
    linked = [(p, vocab.get(p.casefold())) for p in pieces]
    if not any(skill for _, skill in linked):
        return False
    for skill in (skill for _, skill in linked if skill is not None):
        source = replace(
            line.source("skill.section", token), taxonomy_id=skill.taxonomy_id, taxonomy_label=skill.canonical
        )
        out.add("pair:" + token.casefold(), token, source)
    return True


def _slashed(out: Values, line: Line, token: str, in_section: bool, wording: dict[str, str]) -> None:
    """A token with a slash no taxonomy entry names: a skills list's pair whole, else
    ("Python/Go" in prose) each side on its own."""
    vocab = lex.skills()
    if in_section and line.section in ("skills", "languages") and _slash_pair(out, line, token, vocab):
        return
    if "/" not in token or token.casefold() in vocab:
        return
    for piece in token.split("/"):
        skill = vocab.get(piece.casefold())
        if skill is not None and (in_section or not skill.strict):
            rule = "skill.section" if in_section else "skill.text"  # prose is not a list
            _add_skill(out, line, rule, piece, skill, wording=wording)


# LinkedIn's profile export ("Profile.pdf") lists up to three "Top Skills" in its contact
# column, one per line, with no bullet or comma - no list shape for `_list_items` to see -
# and most of them ("Data Entry", "Front-end Development", "Cloud Services") name no taxonomy
# entry, so they were lost and the CV's prose mentions stood in for its list (layout-51,
# held-out v21's five exports read as development: skills 0.24). Only in an export - its
# contact column's "www.linkedin.com/in/x (LinkedIn)" - is each line of that block one item:
# elsewhere a "Top Skills" heading heads sub-headings and bulleted lists (an AltaCV sidebar).
_LINKEDIN_MARK = re.compile(r"\(LinkedIn\)\s*$")


def linkedin_export(lines: list[Line]) -> bool:
    """The document is LinkedIn's profile export: its contact column gives the profile's
    address as "www.linkedin.com/in/x (LinkedIn)" (the "(LinkedIn)" on a line of its own
    when the address wraps) - a mark no other template prints."""
    return any(line.section == "contact" and _LINKEDIN_MARK.search(line.text) for line in lines[:40])


_TOP_SKILLS = frozenset(
    {"top skills", "principais competências", "principales compétences",
     # layout-63: the export in Spanish (v24's jangarita: "Contactar" was no contact heading, so
     # the document was no export and its prose's mentions stood in for its three), German,
     # Italian and Dutch
     "aptitudes principales", "top-kenntnisse", "competenze principali", "belangrijkste vaardigheden",
     # layout-65: Danish (v25's jbjerrekaer), Norwegian and Swedish
     "mest repræsenterede kompetencer", "toppferdigheter", "främsta kunskaper"}
)  # fmt: skip
_TOP_SKILLS_MAX = 3  # what the export shows; the person's name may follow in the same column
_WHOLE_BRACKET = re.compile(r"\([^()]{1,40}\)")
# a line that cannot end an item: a joining word, or a bracket left open
_WRAPPED_ITEM = re.compile(r"(?i:\s(?:and|of|&|for|in|with|to|de|des|du|da|do|e|y|et|und|für))$|\([^()]*$")


def _top_skills_heading(lines: list[Line], k: int) -> bool:
    """Line k is "Top Skills", or its second line: "Mest repræsenterede" over "kompetencer"
    (the narrow column wraps the Danish heading; v25's jbjerrekaer, layout-65)."""
    text = " ".join(lines[k].text.casefold().split())
    if text in _TOP_SKILLS:
        return True
    above = lines[k - 1] if k else None
    return (
        above is not None
        and above.page == lines[k].page
        and above.size == lines[k].size
        and f"{' '.join(above.text.casefold().split())} {text}" in _TOP_SKILLS
    )


def _linkedin_top_skills(lines: list[Line]) -> dict[int, str | None]:
    """Line number -> the top skill it holds (None: a bracket line joined to the item above,
    "Object-Oriented Programming" over "(OOP)") for a LinkedIn export's "Top Skills" block."""
    if not linkedin_export(lines):
        return {}
    out: dict[int, str | None] = {}
    for k, line in enumerate(lines):
        if not (line.heading and _top_skills_heading(lines, k)):
            continue
        first: Line | None = None
        j, taken = k + 1, 0
        while j < len(lines) and taken < _TOP_SKILLS_MAX:
            item = lines[j]
            text = " ".join(item.text.split())
            # "Training" set at the items' size is an item, though a heading's word (v21's
            # ldabbas; layout-59): the export's next heading is set as "Top Skills" is
            heading_word = bool(item.heading and line.size and item.size and item.size < line.size - 1)
            if not heading_word and (item.heading or item.section != line.section):
                break
            if not 1 < len(text) <= 60:
                break
            if first is not None and first.size and item.size > first.size * 1.3:
                break  # the name, set large, under the column
            if len(text.split()) > MAX_ITEM_WORDS or not _named(text) or text.endswith((".", ":", ",")):
                break
            joined = j + 1 < len(lines) and (
                _WHOLE_BRACKET.fullmatch(lines[j + 1].text.strip()) is not None
                # "Continuous Integration and" over "Continuous Delivery (CI/CD)": the narrow
                # column wrapped one skill (v21's lgoffeney; layout-59)
                or (
                    _WRAPPED_ITEM.search(text) is not None
                    and not lines[j + 1].heading
                    and lines[j + 1].size == item.size
                )
            )
            if joined:
                out[j + 1] = None
                text = f"{text} {lines[j + 1].text.strip()}"
            spoken = text.casefold() in lex.LANGUAGES or text.casefold() in _LEVELS  # "English": not a skill
            out[j] = None if spoken else text
            first, taken, j = first or item, taken + 1, j + (2 if joined else 1)
        break
    return out


def _top_skill(out: Values, line: Line, item: str, vocab: Mapping[str, lex.Skill], wording: dict[str, str]) -> None:
    """One LinkedIn top skill, whole and in its wording: linked when the taxonomy names it,
    with its linked parts' ids when it names only parts, else with no taxonomy id."""
    tokens = _tokens(item)
    low = [t.casefold() for t in tokens]
    whole = vocab.get(" ".join(low))
    if whole is not None:
        _add_skill(out, line, "skill.section", item, whole, wording=wording)
        return
    sources = [
        replace(line.source("skill.section", item), taxonomy_id=skill.taxonomy_id, taxonomy_label=skill.canonical)
        for _, skill in _linked_spans(tokens, low, vocab)
    ]
    for source in sources or [line.source("skill.list_item", item)]:
        out.add("item:" + item.casefold(), item, source)


def skills(lines: list[Line]) -> Values:
    """Skills of the vocabulary, in a skills list (any) or in running text (not the strict
    ones, and not inside a job title), in the CV's own wording (the skills list's where the
    CV has one), the taxonomy entry it was linked to in each source."""
    vocab = lex.skills()
    out = Values()
    wording: dict[str, str] = {}
    top = _linkedin_top_skills(lines)
    # (the export's top skills are its own block's, three at most: layout-51)
    singles = {} if top else _one_item_lines(lines)
    for k, line in enumerate(lines):
        if k in top:
            item = top[k]
            if item is not None:
                _top_skill(out, line, item, vocab, wording)
            continue
        read = _skill_tokens(lines, k)
        if read is None:
            continue
        in_section, tokens, own = read
        taken: Counter[str] = Counter()
        if in_section and line.section in ("skills", "languages"):  # a list, not a labelled line elsewhere
            _unlinked_items(lines, k, vocab, out, singles.get(k))
            taken = _partly_linked(lines, k, vocab, out, singles.get(k))
        low = [t.casefold() for t in tokens]
        i = 0
        while i < own:
            found = _longest_skill(low, i, vocab)
            if found is None:
                _slashed(out, line, tokens[i], in_section, wording)
                i += 1
                continue
            skill, n = found
            text = " ".join(low[i : i + n])
            if taken[text] > 0:  # part of a list item kept whole
                taken[text] -= 1
                i += n
                continue
            if in_section or not (skill.strict or _in_job_title(low, i, n)):
                rule = "skill.section" if in_section else "skill.text"
                _add_skill(out, line, rule, " ".join(tokens[i : i + n]), skill, wording=wording)
                i += n
            else:
                i += 1
    for key, value in out.items.items():
        value.value = wording.get(key, value.value)
    return out


def listed_and_mentioned(found: Values) -> tuple[list[Found], list[Found]]:
    """(skills, skills mentioned elsewhere): a CV that lists its skills is read by its list -
    the skills field is the CV's own list (issue 25's measure), and what its running text
    names beside it is kept apart; a CV with no list has its mentions as its skills (h44)."""
    listed: list[Found] = []
    mentioned: list[Found] = []
    for f in found:
        (mentioned if all(s.rule == "skill.text" for s in f.sources) else listed).append(f)
    return (listed, mentioned) if listed else (mentioned, [])


# -- dates and years of experience -------------------------------------------------------------

_DATE = re.compile(
    r"(?:\b(\d{1,2})[./])?\b(\d{1,2})[./]((?:19|20)\d\d)\b"  # 03/2019, 01.09.2019
    r"|\b([^\W\d_]{3,12})\.?\s{0,2}((?:19|20)\d\d)\b"  # Jan 2019, janvier 2022
    r"|\b((?:19|20)\d\d)\b"  # 2019
)
_SEPARATORS = frozenset({"-", "–", "—", "−", "to", "bis", "à", "au", "a", "al", "tot", "do", "until", "till", "through",
                         "->", "–>", "-->", "hasta", "fino a", "jusqu'à", "t/m"})  # fmt: skip
_PRESENT_RE = re.compile(
    r"^(?:" + "|".join(re.escape(w) for w in sorted(lex.PRESENT_WORDS, key=len, reverse=True)) + r")(?![^\W\d_])",
    re.IGNORECASE,
)
_SINCE_RE = re.compile(
    r"(?<![^\W\d_])(?:" + "|".join(re.escape(w) for w in lex.SINCE_WORDS) + r")\s{0,3}$", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class Span:
    start: tuple[int, int]  # (year, month)
    end: tuple[int, int] | None  # None: ongoing
    text: str


def _date_tokens(text: str) -> list[tuple[int, int, int, int | None]]:
    """(start, end, year, month or None) for each date in the text."""
    out: list[tuple[int, int, int, int | None]] = []
    for m in _DATE.finditer(text):
        if m.group(3):
            month = int(m.group(2))
            if not 1 <= month <= 12:
                continue
            out.append((m.start(), m.end(), int(m.group(3)), month))
        elif m.group(5):
            month_no = lex.MONTHS.get(m.group(4).casefold().rstrip("."))
            start = m.start() if month_no else m.start(5)
            out.append((start, m.end(), int(m.group(5)), month_no))
        else:
            out.append((m.start(), m.end(), int(m.group(6)), None))
    return out


def date_spans(text: str) -> list[Span]:
    """Date ranges in one line: "Jan 2019 – Present", "2015-2018", "seit 04/2021"."""
    if len(text) > MAX_DATE_LINE:
        return []
    tokens = _date_tokens(text)
    spans, i = [], 0
    while i < len(tokens):
        s0, e0, y0, m0 = tokens[i]
        start = (y0, m0 or 0)
        between_next = text[e0 : tokens[i + 1][0]].strip().casefold() if i + 1 < len(tokens) else None
        after = text[e0 : e0 + 30].strip()
        sep_word = after.split(" ", 1)
        if between_next is not None and between_next in _SEPARATORS:
            _, e1, y1, m1 = tokens[i + 1]
            spans.append(Span(start, (y1, m1 or 0), text[s0:e1]))
            i += 2
            continue
        rest = after
        for sep in sorted(_SEPARATORS, key=len, reverse=True):
            if rest.casefold().startswith(sep):
                rest = rest[len(sep) :].strip()
                break
        else:
            rest = ""
        if rest and _PRESENT_RE.match(rest):
            spans.append(Span(start, None, text[s0 : e0 + 30].strip()))
        elif _SINCE_RE.search(text[max(0, s0 - 12) : s0]):
            spans.append(Span(start, None, text[max(0, s0 - 12) : e0].strip()))
        del sep_word
        i += 1
    return spans


def _month_index(ym: tuple[int, int], *, is_start: bool) -> int:
    year, month = ym
    if not month:  # year only: the middle of the year, so "2016 - 2020" reads as four years
        month = 7 if is_start else 6
    return year * 12 + month - 1


def years_experience(lines: list[Line], as_of: date) -> Found | None:
    has_experience = any(ln.section == "experience" for ln in lines)
    now = as_of.year * 12 + as_of.month - 1
    intervals: list[tuple[int, int]] = []
    sources: list[Source] = []
    for line in lines:
        if has_experience and line.section != "experience":
            continue
        if not has_experience and line.section in ("education", "languages", "skills", "references"):
            continue
        for span in date_spans(line.text):
            start = _month_index(span.start, is_start=True)
            end = now if span.end is None else _month_index(span.end, is_start=False)
            if end < start and span.end is not None and span.end[0] == span.start[0]:
                end = start + 5  # "2019 - 2019"
            end = min(end, now)
            if start > now or end < start or start < now - 12 * 60:
                continue
            intervals.append((start, end))
            if len(sources) < 10:
                sources.append(line.source("years.date_ranges", span.text))
    if not intervals:
        return None
    return Found(round(months_in_union(intervals) / 12, 1), sources)


def months_in_union(intervals: list[tuple[int, int]]) -> int:
    """Months covered by month-index ranges (both ends inclusive), overlaps counted once:
    two jobs held at once are not twice the experience."""
    ordered = sorted(intervals)
    total, cur_s, cur_e = 0, ordered[0][0], ordered[0][1]
    for s, e in ordered[1:]:
        if s > cur_e + 1:
            total += cur_e - cur_s + 1
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    return total + cur_e - cur_s + 1


# -- education and languages -----------------------------------------------------------------------

# layout-50: a middle dot too ("Degree · University · 2015 · 2018.": stop 61's newcomer check)
_EDU_TRIM = re.compile(r"^[\s,;:|()\-–—•·*]+|[\s,;:|()\-–—•·*]+$")
# The full stop that ended the line after its dates ("... Londrina - 2015 - 2018."), left
# behind a separator once the dates are gone: "... de Londrina - ." (layout-49, stop 61's
# newcomer check); "B.Sc." and "Inc." keep theirs (no separator before them)
_LEFT_STOP = re.compile(r"(?:[\s,;:|\-–—·]+\.)+$")


def education(lines: list[Line]) -> Values:
    out = Values()
    for line in lines:
        if line.section != "education" or line.heading or len(out) >= 10 or about_someone_else(line):
            continue
        if PAGE_FOOTER.fullmatch(line.text.strip()):
            continue
        text = line.text
        for span in sorted(date_spans(text), key=lambda s: -len(s.text)):
            text = text.replace(span.text, " ")
        for start, end, _, _ in reversed(_date_tokens(text)):
            text = text[:start] + " " + text[end:]
        text = re.sub(r"\(\s{0,3}\)", " ", text)
        text = text.rstrip()
        text = text[:-40] + _LEFT_STOP.sub("", text[-40:])  # the line's end only: linear on a hostile line
        text = " ".join(_EDU_TRIM.sub("", text).split())
        # "2011 - 2015 | Cork, Ireland" under its school: the place left once the dates are
        # out is where the school is, no school or degree (layout-57, the newcomer check)
        if sum(ch.isalpha() for ch in text) >= 4 and not text.startswith(("•", "-")) and not is_place(text):
            out.add(text.casefold(), text, line.source("education.section"))
    return out


def languages(lines: list[Line]) -> Values:
    out = Values()
    for line in lines:
        labelled = label_of(line.text)
        inline = labelled is not None and labelled[0] in lex.LANGUAGE_LABELS and line.section != "skills"
        if not (line.section == "languages" or inline) or line.heading:
            continue
        for word in _WORDS.findall(line.text):
            english = lex.LANGUAGES.get(word.casefold().rstrip(".:"))
            if english:
                out.add(english, english, line.source("language.section", word))
    return out
