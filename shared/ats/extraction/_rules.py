"""The field rules. Each takes the document's lines and returns values with their sources.

No regex here has nested or unbounded overlapping quantifiers, every line is capped
(ats.extraction._layout.MAX_LINE_CHARS) and every candidate list is bounded, so the cost
is linear in the input (tests/extraction/test_hostile.py).
"""

# ruff: noqa: RUF001, RUF002 (CV text has typographic dashes, quotes and colons: the rules must read them)

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import date

import phonenumbers
from email_validator import EmailNotValidError, validate_email

from ats.extraction import _lexicon as lex
from ats.extraction._layout import Line, heading_kind, label_of
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
        if len(found.sources) < 5 and source not in found.sources:
            found.sources.append(source)

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

_LOCAL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._%+-'")
_DOMAIN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")


# OCR puts stray symbols next to "@" ("rhys®@outlook.com", "maria@®outlook.es"); no
# address contains them.
_OCR_JUNK = frozenset("®©°")


def email_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of e-mail-shaped substrings: a linear scan outward from each "@".

    A span may include one OCR junk symbol right before or right after the "@"
    ("maria@®outlook.es"); `emails` drops it.
    """
    at = text.find("@")
    while at != -1:
        i = at - 1 if at > 0 and text[at - 1] in _OCR_JUNK else at
        while i > 0 and at - i < 65 and text[i - 1] in _LOCAL_CHARS:
            i -= 1
        j = at + 2 if at + 1 < len(text) and text[at + 1] in _OCR_JUNK else at + 1
        while j < len(text) and j - at <= 253 and text[j] in _DOMAIN_CHARS:
            j += 1
        while j > at + 1 and text[j - 1] in ".-":
            j -= 1
        while i < at and text[i] in ".'":
            i += 1
        if i < at and "." in text[at + 1 : j]:
            yield i, j
        at = text.find("@", max(j, at + 1))


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


def _ocr_email_candidates(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, address as meant) for addresses OCR (or the writer) split at the "@"
    or wrote "(at)", or whose domain has "," for "."; linear like `email_spans`."""
    for m in _AT_FORM.finditer(text):
        i = m.start()
        while i > 0 and m.start() - i < 64 and text[i - 1] in _LOCAL_CHARS:
            i -= 1
        j = m.end()
        while (
            j < len(text)
            and j - m.end() < 253
            and (text[j] in _DOMAIN_CHARS or (text[j] == "," and j + 1 < len(text) and text[j + 1].isalpha()))
        ):
            j += 1
        while j > m.end() and text[j - 1] in ".-,":
            j -= 1
        while i < m.start() and text[i] in ".'":
            i += 1
        domain = text[m.end() : j].replace(",", ".")
        if i < m.start() and "." in domain and (m.group(0) != "@" or "," in text[m.end() : j]):
            yield i, j, f"{text[i : m.start()]}@{domain}"


def emails(lines: list[Line], *, ocr: bool = False) -> tuple[Values, list[str]]:
    """The candidate's e-mails (not referees' or agencies'), and those in the contact block.

    ``ocr``: the lines came from OCR, so the contact block's addresses are also read
    through the OCR repairs above (rule ``email.ocr_repair``; the source text is the span
    exactly as read).
    """
    out, contact = Values(), []
    checked: dict[str, str | None] = {}

    def check(raw: str) -> str | None:
        if raw not in checked:
            if len(checked) >= MAX_EMAIL_CANDIDATES:
                return None
            try:
                checked[raw] = validate_email(raw, check_deliverability=False).normalized.lower()
            except EmailNotValidError:
                checked[raw] = None
        return checked[raw]

    def keep(line: Line, address: str, rule: str, raw: str) -> None:
        out.add(address, address, line.source(rule, raw))
        if line.in_contact and address not in contact:
            contact.append(address)

    for line in lines:
        if "@" not in line.text and not (ocr and ("(at)" in line.text.casefold() or "[at]" in line.text.casefold())):
            continue
        if about_someone_else(line):
            continue
        repair = ocr and line.in_contact
        found: list[tuple[int, int]] = []
        for start, end in email_spans(line.text):
            raw = "".join(ch for ch in line.text[start:end] if ch not in _OCR_JUNK)
            address = check(raw)
            if address is None:
                continue
            found.append((start, end))
            repaired = _repair_domain(address) if repair else address
            if repaired != address:
                keep(line, repaired, "email.ocr_repair", line.text[start:end])
            else:
                keep(line, address, "email.scan", raw)
        if not repair:
            continue
        for start, end, meant in _ocr_email_candidates(line.text):
            if any(start < f_end and f_start < end for f_start, f_end in found):
                continue
            address = check(meant)
            if address is not None:
                keep(line, _repair_domain(address), "email.ocr_repair", line.text[start:end])
    return out, contact


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

_PHONE = re.compile(r"(?:\+|\b00)?\(?\d[\d \t().\-/]{5,24}\d")
# Dates are not phone numbers: "01/09/2019", "03.2020", "2015 - 2018" (a dotted French number
# "06.04.57.84.81" is, so the date forms must match the whole candidate).
_DATE_FULL = re.compile(r"\d{1,2}[./]\d{1,2}[./](?:19|20)?\d\d|\d{1,2}[./](?:19|20)\d\d")
_YEAR_RANGE = re.compile(r"(?:19|20)\d\d\s{0,3}[-–/]\s{0,3}(?:19|20)\d\d")


def region_hint(lines: list[Line], own_emails: Iterable[str], default_region: str) -> tuple[str, str]:
    """(region, why): +codes of the document's numbers, then places, then e-mail domains."""
    contact = [ln for ln in lines if ln.in_contact and not about_someone_else(ln)]
    for line in contact:
        if "+" in line.text:
            for m in _PHONE.finditer(_masked_emails(line.text)):
                if m.group(0).startswith("+"):
                    try:
                        number = phonenumbers.parse(m.group(0), None)
                    except phonenumbers.NumberParseException:
                        continue
                    region = phonenumbers.region_code_for_number(number)
                    if region:
                        return region, f"+{number.country_code}"
    for pool in (contact, lines[:200]):
        for line in pool:
            place = place_region(line.text)
            if place:
                return place
    for address in own_emails:
        tld = address.rsplit(".", 1)[-1]
        if tld in lex.EMAIL_TLD_REGION:
            return lex.EMAIL_TLD_REGION[tld], f".{tld}"
    return default_region, "default"


_WORDS = re.compile(r"[^\W\d_][\w'.-]{0,30}")
_US_STATE = re.compile(r",\s{0,2}([A-Z]{2})\b")


def place_region(text: str) -> tuple[str, str] | None:
    """The region of a country, city or US state named in this text."""
    words = [w.rstrip(".").casefold() for w in _WORDS.findall(text[:300])]
    for n in (3, 2, 1):
        for i in range(len(words) - n + 1):
            key = " ".join(words[i : i + n])
            if key in lex.COUNTRIES:
                return lex.COUNTRIES[key], key
    for n in (3, 2, 1):
        for i in range(len(words) - n + 1):
            key = " ".join(words[i : i + n])
            if key in lex.CITIES:
                return lex.CITIES[key], key
    m = _US_STATE.search(text[:300])
    if m and m.group(1) in lex.US_STATES:
        return "US", m.group(1)
    return None


def _parse_phone(candidate: str, region: str) -> str | None:
    try:
        number = phonenumbers.parse(candidate, region)
    except phonenumbers.NumberParseException:
        return None
    if not phonenumbers.is_valid_number(number):
        return None
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def phones(lines: list[Line], region: str) -> Values:
    out = Values()
    tried = 0
    for line in lines:
        if tried >= MAX_PHONE_CANDIDATES:
            break
        if about_someone_else(line) or sum(ch.isdigit() for ch in line.text[:200]) < 7:
            continue
        text = line.text
        text = _mask(text, [m.span() for m in _URL.finditer(text) if "/" in m.group(0)] + list(email_spans(text)))
        for m in _PHONE.finditer(text):
            candidate = m.group(0).strip(" -./(")
            if _DATE_FULL.fullmatch(candidate) or _YEAR_RANGE.search(candidate):
                continue
            tried += 1
            parts = [candidate]
            e164 = _parse_phone(candidate, region)
            if e164 is None and re.search(r"\s/\s|,\s", candidate):
                parts = [p for p in re.split(r"\s/\s|,\s", candidate) if p.strip()]
            for part in parts:
                e164 = e164 if len(parts) == 1 else _parse_phone(part, region)
                if e164:
                    out.add(e164, e164, line.source("phone.e164", part.strip()))
    return out


# -- name ------------------------------------------------------------------------------------

# Separators of a one-line contact header ("a | b | c"); OCR reads a bullet as "°" or "◦".
_SEGMENTS = re.compile(r"\s{0,4}[|·•°◦▪●■♦⋅»«]\s{0,4}|\s{2,}[-–]\s{1,4}|\t")
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
    tokens = text.split()
    if not 2 <= len(tokens) <= 5 or len(text) > 60:
        return False
    if text.casefold() in lex.DOCUMENT_TITLES or heading_kind(text):
        return False
    capitals = 0
    for tok in tokens:
        if not _NAME_TOKEN.match(tok):
            return False
        low = tok.casefold()
        if low in lex.JOB_WORDS:
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


def _smart_case(name: str) -> str:
    if not name.isupper():
        return name
    out = []
    for tok in name.split():
        low = tok.lower()
        if low in lex.NAME_PARTICLES:
            out.append(low)
            continue
        out.append(re.sub(r"(^|[-'’])([^\W\d_])", lambda m: m.group(1) + m.group(2).upper(), low))
    return " ".join(out)


def name(lines: list[Line]) -> Found | None:  # noqa: PLR0912 - one scoring rule per branch, kept together so the weights read as one table
    """The candidate's name: the most prominent name-shaped line near the top."""
    first_page = [ln for ln in lines if ln.page in (None, 1)]
    max_size = max((ln.size for ln in first_page[:80]), default=0.0) or 1.0
    best: tuple[float, str, Line, str] | None = None
    position = 0
    for line in lines[:120]:
        if line.section not in ("top", "contact", "header") and line.style != "Title":
            continue
        if about_someone_else(line):
            continue
        text, bonus, rule = line.text, 0.0, "name.top"
        labelled = label_of(text)
        if line.label and line.label.casefold() in lex.NAME_LABELS:
            bonus, rule = 4.0, "name.label"
        elif labelled and labelled[0] in lex.NAME_LABELS:
            text, bonus, rule = labelled[1], 4.0, "name.label"
        elif labelled or line.label:
            continue
        text = _SEGMENTS.split(text, maxsplit=1)[0].strip()
        text = _strip_prefixes(text)
        if not looks_like_name(text):
            continue
        score = bonus - 0.15 * position
        if line.size:
            score += 3.0 * line.size / max_size
        if line.style == "Title":
            score += 3.0
        elif line.style and line.style.startswith("Heading"):
            score += 1.0
        if line.part == "header":
            score += 1.0
        position += 1
        if best is None or score > best[0]:
            best = (score, _smart_case(text), line, rule)
    if best is None:
        return None
    return Found(best[1], [best[2].source(best[3])])


# -- location --------------------------------------------------------------------------------

_POSTCODE_CITY = re.compile(r"\b(?:\d{2}-\d{3}|\d{4,5})\s{1,3}[^\W\d_][\w'-]{1,30}")


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
            segment = raw.strip(" ,;")
            labelled = label_of(segment)
            if labelled:
                if labelled[0] in lex.ADDRESS_LABELS:
                    return Found(labelled[1], [line.source("location.label")])
                segment = labelled[1]
            if not segment or _URL.fullmatch(segment) or sum(ch.isdigit() for ch in segment) > 6:
                continue
            place = place_region(segment) or _POSTCODE_CITY.search(segment)
            # "Den Haag" is shaped like a name; a known place on its own is still a place.
            exact = segment.split(",")[0].strip().casefold() in lex.CITIES
            if place and len(segment.split()) <= 8 and (exact or not looks_like_name(segment)):
                return Found(segment, [line.source("location.place")])
    for line in contact:  # a known city inside a line whose separators OCR misread
        found = _city_in(line.text)
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

_SKILL_TOKEN = re.compile(r"[^\s,;|·•()\[\]{}!?\"“”]{1,40}")
_TITLE_NOUNS = frozenset(
    {"engineer", "engineers", "developer", "developers", "scientist", "architect", "consultant", "specialist",
     "manager", "lead", "team", "ingenieur", "entwickler", "ingénieur", "ingeniero", "engineering"}
)  # fmt: skip
_SKILL_SECTIONS_LOOSE = frozenset({"experience", "summary", "other", "top"})


def _tokens(text: str) -> list[str]:
    out = []
    for raw in _SKILL_TOKEN.findall(text):
        tok = raw.strip("-*–—:'’").rstrip(".")  # ".NET" keeps its leading dot
        if tok:
            out.append(tok)
    return out


def skills(lines: list[Line]) -> Values:  # noqa: PLR0912 - one matcher per branch in priority order; split pending (issue 22 item 7)
    vocab = lex.skills()
    longest = lex.max_skill_words()
    out = Values()
    for k, line in enumerate(lines):
        if line.heading:
            continue
        labelled = label_of(line.text)
        inline = labelled is not None and heading_kind(labelled[0]) == "skills"
        in_section = line.section == "skills" or inline
        if not in_section and line.section not in _SKILL_SECTIONS_LOOSE:
            continue
        if line.section == "top" and not in_section and line.n < 3:
            continue  # the name and headline
        text = _masked_emails(line.text)
        if "." in text:  # links are not skills ("github.com/x"), but "Node.js" is
            text = _mask(text, [m.span() for m in _URL.finditer(text) if "/" in m.group(0) or "www." in m.group(0)])
        tokens = _tokens(text)
        own = len(tokens)
        if line.section == "skills" and k + 1 < len(lines) and lines[k + 1].section == "skills":
            # A narrow column wraps "Natural Language Processing" over two lines: the next
            # line's first words may finish a skill that starts on this one.
            tokens += _tokens(lines[k + 1].text)[: lex.max_skill_words() - 1]
        low = [t.casefold() for t in tokens]
        i = 0
        while i < own:
            for n in range(min(longest, len(tokens) - i), 0, -1):
                key = " ".join(low[i : i + n])
                skill = vocab.get(key)
                if skill is None and n == 1 and "/" in key:
                    skill = None  # "CI/CD" is in the vocabulary as a whole; other a/b pairs are split below
                if skill is None:
                    continue
                if not in_section and (
                    skill.strict
                    # part of a job title: "Machine Learning Engineer", "Leiterin Data Science"
                    or (i + n < len(low) and low[i + n] in _TITLE_NOUNS)
                    or (i > 0 and (low[i - 1] in _TITLE_NOUNS or low[i - 1] in lex.JOB_WORDS))
                ):
                    break
                rule = "skill.section" if in_section else "skill.text"
                source = line.source(rule, " ".join(tokens[i : i + n]))
                out.add(skill.canonical, skill.canonical, replace(source, taxonomy_id=skill.taxonomy_id))
                i += n - 1
                break
            else:
                if "/" in low[i] and low[i] not in vocab:
                    for piece in tokens[i].split("/"):
                        skill = vocab.get(piece.casefold())
                        if skill is not None and (in_section or not skill.strict):
                            source = line.source("skill.section", piece)
                            out.add(skill.canonical, skill.canonical, replace(source, taxonomy_id=skill.taxonomy_id))
            i += 1
    return out


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
    intervals.sort()
    total, cur_s, cur_e = 0, intervals[0][0], intervals[0][1]
    for s, e in intervals[1:]:
        if s > cur_e + 1:
            total += cur_e - cur_s + 1
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    total += cur_e - cur_s + 1
    return Found(round(total / 12, 1), sources)


# -- education and languages -----------------------------------------------------------------------

_EDU_TRIM = re.compile(r"^[\s,;:|()\-–—•*]+|[\s,;:|()\-–—•*]+$")


def education(lines: list[Line]) -> Values:
    out = Values()
    for line in lines:
        if line.section != "education" or line.heading or len(out) >= 10 or about_someone_else(line):
            continue
        text = line.text
        for span in sorted(date_spans(text), key=lambda s: -len(s.text)):
            text = text.replace(span.text, " ")
        for start, end, _, _ in reversed(_date_tokens(text)):
            text = text[:start] + " " + text[end:]
        text = re.sub(r"\(\s{0,3}\)", " ", text)
        text = " ".join(_EDU_TRIM.sub("", text).split())
        if sum(ch.isalpha() for ch in text) >= 4 and not text.startswith(("•", "-")):
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
