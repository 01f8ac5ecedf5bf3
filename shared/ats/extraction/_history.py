"""Work history and education as structured entries, and years of experience from them.

An entry is anchored on a line of the experience (or education) section that holds a
date range ("Mar 2019 – heute", "03/2019 - 06/2021", "2019-03 to now", "seit 2019");
its title, employer and location come from the anchor line's other text and the short
non-bullet lines right around it (a CV writes "Title, Employer" above the dates, or
"dates  Title – Employer" on one line, or "Employer · City" then "Title" below).

Linear: every line is read at most a fixed number of times, lines longer than
MAX_DATE_LINE are never anchors, and at most MAX_ENTRIES entries are kept.
"""

# ruff: noqa: RUF001, RUF002, RUF003 (CV text has typographic dashes, quotes and colons: the rules must read them)

from __future__ import annotations

import bisect
import dataclasses
import itertools
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date

from ats.extraction import _lexicon as lex
from ats.extraction._layout import (
    BULLET_INDENT,
    Line,
    after_lone_bullet,
    heading_kind,
    is_place,
    joined_runs,
    lone_bullet,
    plain,
    style_of,
    without_head,
)
from ats.extraction._rules import PAGE_FOOTER as _PAGE_FOOTER
from ats.extraction._rules import YEAR as _YEAR
from ats.extraction._rules import linkedin_export, months_in_union
from ats.extraction.data import Source

MAX_DATE_LINE = 300
MAX_ENTRIES = 40
MAX_HEADER_CHARS = 120  # longer lines are descriptions, not "Title, Employer"
MAX_HEADER_LINES = 5  # lines one entry is read from: keeps a run of header-shaped lines linear

YM = tuple[int, int | None]  # (year, month or None)
TWO_DIGIT_PIVOT = 50  # "Nov’22" is 2022, "Sep’98" 1998

# A year and its month's number: 2019-03 (ISO), 2019.03, 2019/3 (CJK), 2016 / 09; a whole
# ISO day "2019-03-01" (an HTML CV's machine dates, layout-42) or "2019.03.01" / "2019/03/01"
# - the day, after the same separator as the month's, is read, not kept
_YEAR_MONTH_FORM = (
    r"((?:19|20)\d\d)(?:[-./]|\s/\s)(0?[1-9]|1[0-2])"
    r"(?:(?:(?<=\d-\d\d)-|(?<=\d\.\d\d)\.|(?<=\d/\d\d)/)(?:0[1-9]|[12]\d|3[01])(?!\d))?(?![\d-])"
)
_DATE = re.compile(
    # 03/2019, 01.09.2019; 06-2020 (v22's staroyee: "12.2016 - 06-2020" read as no dates, its
    # role lost; layout-56 - a hyphen only between a month and its year)
    r"\b" + _YEAR_MONTH_FORM + r"|(?:\b(\d{1,2})[./])?\b(\d{1,2})(?:[./]|-(?=(?:19|20)\d\d\b))((?:19|20)\d\d)\b"
    # Mar 2019, März 2019, Jul/2025, Aug-2021, "Mai, 2023"; "Dezembro de 2025", "enero del
    # 2020" (Portuguese and Spanish: "de"/"del" between month and year; layout-30)
    r"|\b([^\W\d_]{3,12})(?:[./,]|-(?=\d)|\s{1,2}(?i:del?)(?=\s{1,2}(?:18|19|20)\d\d\b))?\s{0,2}((?:18|19|20)\d\d)\b"
    r"|\b((?:18|19|20)\d\d)\b"  # 2019; 18xx too (layout-6: TeX classes' examples are 19th-century lives)
    r"|\b([^\W\d_]{3,9})\.?\s?['’‘]{1,2}(\d\d)\b"  # Nov’22, Sept'15, OCR's Nov'’22 (layout-6; month names only)
    # Sep 30, 2019 (h48): month names only, so "Top 10, 2019 - 2020" keeps its years
    r"|\b((?i:" + "|".join(re.escape(k) for k in sorted(lex.MONTHS, key=len, reverse=True)) + r"))"
    # "Dic.27 2024" (a Colombian CV's "Dic.27 2024 – Ene.3 2025", layout-42): the comma optional
    r"(?:\.\s{0,2}|\s{1,2})(?:0?[1-9]|[12]\d|3[01])(?:,\s{0,2}|\s{1,2})((?:19|20)\d\d)\b"
)
# _DATE's first form on its own.
_YEAR_MONTH = re.compile(_YEAR_MONTH_FORM)
# A day before a month's name ("30 Septembre 2019", "1. März 2019"): part of that date (h48).
_DAY_BEFORE = re.compile(r"(?<!\d)(?:0?[1-9]|[12]\d|3[01])\.?\s{1,2}$")
_SEPARATORS = lex.RANGE_SEPARATORS
# "date": "Jan 2019 to date" - "to" the separator, "date" the open end
_PRESENT = sorted({*lex.PRESENT_WORDS, "date"}, key=len, reverse=True)
# Only after a range's separator ("2017–still", moderncv's "2022–on"): bare, they are words.
# "(02 Mai, 2023 - ...)" (h48); "2016-*", a role still held (v22's darnold; layout-56)
_PRESENT_AFTER_SEPARATOR = ("still", "on", "...", "…", "*")
_PRESENT_RE = re.compile(
    r"\s{0,3}(?:" + "|".join(re.escape(s) for s in sorted(_SEPARATORS, key=len, reverse=True)) + r")\s{0,3}"
    r"(?:"
    + "|".join(re.escape(w) for w in sorted([*_PRESENT, *_PRESENT_AFTER_SEPARATOR], key=len, reverse=True))
    + r")(?![^\W\d_])",
    re.IGNORECASE,
)
# Awesome-CV's "Nov. 2011 PRESENT": its text layer lost the dash (after a month date only).
_PRESENT_BARE_RE = re.compile(
    r"\s{1,3}(?:" + "|".join(re.escape(w) for w in _PRESENT) + r")(?![^\W\d_])", re.IGNORECASE
)
_SINCE_RE = re.compile(
    r"(?<![^\W\d_])(?:" + "|".join(re.escape(w) for w in lex.SINCE_WORDS) + r")\s{0,3}$", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class DateRange:
    start: YM
    end: YM | None  # None: ongoing ("present", "seit 2019")
    span: tuple[int, int]  # where in the line, including separators and the present word


_MONTH_AFTER = re.compile(r"\s{1,2}([^\W\d_]{3,9})\.?(?![^\W\d_])")


# Japanese and Chinese dates: "2024年5月", "2019年" (year, month, an optional day; v13).
_CJK_DATE = re.compile(r"((?:19|20)\d\d)\s?年(?:\s?(\d{1,2})\s?月(?:\s?\d{1,2}\s?日)?)?")


def _cjk_tokens(text: str) -> list[tuple[int, int, int, int | None]]:
    """_tokens' CJK dates ("2024年5月", "2021 年 7 月")."""
    out: list[tuple[int, int, int, int | None]] = []
    for m in _CJK_DATE.finditer(text):
        month = int(m.group(2)) if m.group(2) else None
        if month is None or 1 <= month <= 12:
            out.append((m.start(), m.end(), int(m.group(1)), month))
    return out


def _tokens(text: str) -> list[tuple[int, int, int, int | None]]:
    """(start, end, year, month or None) for each date in the text."""
    out = _latin_tokens(text)
    if "年" in text and (cjk := _cjk_tokens(text)):
        # "2021 年 7 月": the year alone is no date of its own
        out = sorted(cjk + [t for t in out if not any(c[0] < t[1] and t[0] < c[1] for c in cjk)])
    return out


def _word_and_year(text: str, m: re.Match[str]) -> tuple[int, int, int, int | None]:
    """_DATE's word-and-year form: "Mar 2019", "1. März 2019" - or a word that is no month
    before a year, which is then the year's alone or its year and month ("Acme 2024/01 –
    2025/02", "澳大利亚  2024/01": the word took the match from that form; stop 50)."""
    month_no = lex.MONTHS.get(m.group(6).casefold().rstrip("."))
    if not month_no:
        year_month = _YEAR_MONTH.match(text, m.start(7))
        if year_month:
            return (m.start(7), year_month.end(), int(year_month.group(1)), int(year_month.group(2)))
        return (m.start(7), m.end(), int(m.group(7)), None)
    day = _DAY_BEFORE.search(text, max(0, m.start() - 5), m.start())
    return (day.start() if day else m.start(), m.end(), int(m.group(7)), month_no)


def _numeric_month(m: re.Match[str], *, us: bool) -> list[tuple[int, int, int, int | None]]:
    """_DATE's numeric month-and-year form's token ("03/2019", "01.09.2019", "06-2020")."""
    month = int(m.group(3)) if us and m.group(3) and "/" in m.group() else int(m.group(4))
    if 1 <= month <= 12:
        return [(m.start(), m.end(), int(m.group(5)), month)]
    if "-" in m.group():  # "13-2019": no month before a hyphen, the year alone
        return [(m.start(5), m.end(), int(m.group(5)), None)]
    return []


def _latin_tokens(text: str) -> list[tuple[int, int, int, int | None]]:
    out: list[tuple[int, int, int, int | None]] = []
    matches = list(_DATE.finditer(text))
    # "06/01/2023 – 09/15/2023": a day of 13 or more second in one of the text's slashed days
    # makes them all month first, as the US writes them (layout-42); else day first.
    us = any(m.group(3) and "/" in m.group() and int(m.group(3)) <= 12 < int(m.group(4)) for m in matches)
    for m in matches:
        if m.group(1):
            out.append((m.start(), m.end(), int(m.group(1)), int(m.group(2))))
        elif m.group(5):
            out += _numeric_month(m, us=us)
        elif m.group(7):
            out.append(_word_and_year(text, m))
        elif m.group(11):
            month_no = lex.MONTHS.get(m.group(11).casefold().rstrip("."))
            if month_no:  # "Sep 30, 2019": a month, its day and the year
                out.append((m.start(), m.end(), int(m.group(12)), month_no))
        elif m.group(8):
            # "2023 Sep. — 2024 Sep." (a Typst template): the month after its year (h47)
            after = _MONTH_AFTER.match(text, m.end())
            month_no = lex.MONTHS.get(after.group(1).casefold()) if after else None
            if after and month_no:
                out.append((m.start(), after.end(), int(m.group(8)), month_no))
            else:
                out.append((m.start(), m.end(), int(m.group(8)), None))
        else:
            month_no = lex.MONTHS.get(m.group(9).casefold().rstrip("."))
            if month_no:  # "Rock'n'roll'99" is no date: only a month name before the apostrophe
                yy = int(m.group(10))
                out.append((m.start(), m.end(), _two_digit_year(yy), month_no))
    return out


# Seasons before a year ("Summer 2016", a student's terms): the year's, no month of it (layout-40)
_SEASON_AT_END = re.compile(
    r"(?<![^\W\d_])(?:spring|summer|fall|autumn|winter|printemps|été|automne|hiver|frühling|frühjahr|sommer"
    r"|herbst|primavera|verano|otoño|invierno|verão|outono|inverno|estate|autunno)$"
)


def _joins(between: str, first_month: int | None, second_month: int | None) -> bool:
    """Whether the text between two dates makes them one range: a separator, or - between
    two month dates only - nothing but a space (Awesome-CV's "Sep. 2023 Mar. 2024": the text
    layer lost its dash; two bare years side by side are a list, not a range)."""
    # "Fall 2019 - Spring 2020": a season before the second year is no word between the dates
    sep = _SEASON_AT_END.sub("", between.strip().casefold()).strip()
    if sep in _SEPARATORS:
        return True
    return not sep and bool(first_month and second_month) and len(between) <= 3


# Two months of one year, the year written once: "June – August 2019", "Jun-Aug 2019",
# "6 - 7/2016" (h44).
_MONTHS_OF_A_YEAR = re.compile(
    r"\b(?:([^\W\d_]{3,12})\.?|(\d{1,2}))\s{0,2}[-–—]\s{0,2}(?:([^\W\d_]{3,12})\.?\s{0,2}|(\d{1,2})[./])"
    r"((?:19|20)\d\d)\b"
)


# "2013–16": the end year's last two digits (academic CVs); "2017–" with nothing after the
# dash but the entry: ongoing (h44).
_SHORT_END = re.compile(r"\b((?:19|20)\d\d)[-–—](\d\d)\b(?![-–—/.]\d)")
# ("2019.03 -": the month after the year, dotted or slashed - yzheng-en, v16)
_OPEN_DASH = re.compile(r"\b((?:19|20)\d\d)([./](?:0[1-9]|1[0-2]))?\s?[-–—](?=\s{2,}[^\W\d_]|\s*$)")
# "08/15 - 12/15", "01/19 – present": month and two-digit year, only as a whole range (a lone
# "08/15" may be a day of a month); never inside a full date ("08/15/2019").
_SHORT_MONTHS = re.compile(
    r"(?<![\d/.])(0?[1-9]|1[0-2])/(\d\d)\s{0,2}[-–—]\s{0,2}(?:(0?[1-9]|1[0-2])/(\d\d)(?![\d/.])|("
    + "|".join(re.escape(w) for w in _PRESENT)
    + r")(?![^\W\d_]))",
    re.IGNORECASE,
)

# "Oct. 19 – Juin 24", "Août 24 – Présent": month names and two-digit years, only as a whole
# range between two month names (or a month name and "present"): a lone "Oct. 19" may be a
# day of October (h49).
_SHORT_NAMED = re.compile(
    r"(?<![^\W\d_])([^\W\d_]{3,9})\.?\s(\d\d)(?![\d/.:])\s{0,2}[-–—]\s{0,2}"
    r"(?:([^\W\d_]{3,9})\.?\s(\d\d)(?![\d/.:])|(" + "|".join(re.escape(w) for w in _PRESENT) + r")(?![^\W\d_]))",
    re.IGNORECASE,
)


# "01 2025 – 09 2025", "3 2022 – 8 2022", "04 2021 – heute": a month's number and its year
# set apart by a space (a German LibreOffice CV), only as a whole range - a lone "3 2022"
# may be a count and a year (h50). "09. 2017 – 12. 2020": the month's number with its dot (v13);
# "11 / 2014 - Present": a slash spaced on both sides (stop 50).
_SPACED_MONTHS = re.compile(
    r"(?<![\d/.,:])(0?[1-9]|1[0-2])(?:\.?\s|\s/\s)((?:19|20)\d\d)\s{0,2}[-–—]\s{0,2}"
    r"(?:(0?[1-9]|1[0-2])(?:\.?\s|\s/\s)((?:19|20)\d\d)(?![\d/.])|("
    + "|".join(re.escape(w) for w in _PRESENT)
    + r")(?![^\W\d_]))",
    re.IGNORECASE,
)


# "23/11/20 - Presente", "05/11/18 à 15/12/19": a day, a month and a two-digit year, as
# Brazilian and European CVs write them (v21's zehguilherme, layout-51), only as a whole
# range - a lone "08/02/20" may be anything. Day first: a CV that writes the day at all
# writes it first outside the US, and a US CV names its months.
_DAY_MONTH_YY = re.compile(
    r"(?<![\d/.])(?:0?[1-9]|[12]\d|3[01])/(0?[1-9]|1[0-2])/(\d\d)(?![\d/.])"
    r"\s{0,2}(?:[-–—]|à|a|até|al|au|to|bis)\s{0,2}"
    r"(?:(?:0?[1-9]|[12]\d|3[01])/(0?[1-9]|1[0-2])/(\d\d)(?![\d/.])|("
    + "|".join(re.escape(w) for w in _PRESENT)
    + r")(?![^\W\d_]))",
    re.IGNORECASE,
)


def _two_digit_year(yy: int) -> int:
    return (2000 if yy < TWO_DIGIT_PIVOT else 1900) + yy


def _named_short_ranges(text: str) -> list[DateRange]:
    """ "Oct. 19 – Juin 24", "Août 24 – Présent" (_SHORT_NAMED), on a line with no full year."""
    out: list[DateRange] = []
    if _YEAR.search(text):
        return out
    for m in _SHORT_NAMED.finditer(text):
        first = lex.MONTHS.get(m.group(1).casefold())
        if not first:
            continue
        begin = (_two_digit_year(int(m.group(2))), first)
        if m.group(5):
            out.append(DateRange(begin, None, m.span()))
            continue
        second = lex.MONTHS.get(m.group(3).casefold())
        final = (_two_digit_year(int(m.group(4))), second or 0)
        if second and begin <= final <= (begin[0] + 20, 12):
            out.append(DateRange(begin, final, m.span()))
    return out


def _numeric_month_ranges(pattern: re.Pattern[str], text: str, year: Callable[[int], int]) -> list[DateRange]:
    """Whole ranges of month numbers and years - "08/15 - 12/15" (_SHORT_MONTHS, two-digit
    years), "01 2025 – 09 2025" (_SPACED_MONTHS): groups month, year, month, year, or a
    present word in the fifth; `year` reads the year's digits."""
    out: list[DateRange] = []
    for m in pattern.finditer(text):
        begin = (year(int(m.group(2))), int(m.group(1)))
        if m.group(5):
            out.append(DateRange(begin, None, m.span()))
            continue
        final = (year(int(m.group(4))), int(m.group(3)))
        if begin <= final <= (begin[0] + 20, 12):
            out.append(DateRange(begin, final, m.span()))
    return out


def _compact_ranges(text: str, tokens: list[tuple[int, int, int, int | None]]) -> list[DateRange]:
    """Ranges written with one year or none at their end, or two-digit years: "2013–16",
    "2017–" (ongoing), "June – August 2019", "6 - 7/2016", "08/15 - 12/15"; `tokens` are
    the line's dates (_tokens)."""
    out = []
    for m in _SHORT_END.finditer(text):
        first, last = int(m.group(1)), int(m.group(2))
        if "-" in m.group(0) and 1 <= last <= 12:
            continue  # "2009-12": ISO year and month, not 2009 to 2012
        end = first - first % 100 + last
        if first < end <= first + 20:
            out.append(DateRange((first, None), (end, None), m.span()))
    for m in _OPEN_DASH.finditer(text):
        # "01.2021 -", "Jan 2021 –" at a line's end (the end date on the next line): the
        # month written before the year is the start's (layout-30; it was left in the employer)
        dated = next((t for t in tokens if t[1] == m.end(1) and t[3] is not None), None)
        if m.group(2):
            out.append(DateRange((int(m.group(1)), int(m.group(2)[1:])), None, (m.start(1), m.end())))
        elif dated is not None:
            out.append(DateRange((dated[2], dated[3]), None, (dated[0], m.end())))
        else:
            out.append(DateRange((int(m.group(1)), None), None, m.span()))
    out += _numeric_month_ranges(_SHORT_MONTHS, text, _two_digit_year)
    out += _numeric_month_ranges(_DAY_MONTH_YY, text, _two_digit_year)
    out += _named_short_ranges(text)
    out += _numeric_month_ranges(_SPACED_MONTHS, text, int)
    for m in _MONTHS_OF_A_YEAR.finditer(text):
        year = int(m.group(5))
        if m.group(1) and m.group(3):
            a, b = lex.MONTHS.get(m.group(1).casefold()), lex.MONTHS.get(m.group(3).casefold())
        elif m.group(2) and m.group(4):
            a, b = int(m.group(2)), int(m.group(4))
        else:
            continue
        if a and b and 1 <= a <= b <= 12:
            out.append(DateRange((year, a), (year, b), m.span()))
    return out


def date_ranges(text: str) -> list[DateRange]:
    """Date ranges in one line, in order: "Jan 2019 – Present", "2015-2018", "seit 04/2021",
    "2019 · heute", "März 2019 bis 2021-06", "June – August 2019"."""
    if len(text) > MAX_DATE_LINE:
        return []
    tokens = _tokens(text)
    short = _compact_ranges(text, tokens)
    if short:
        tokens = [t for t in tokens if not any(r.span[0] <= t[0] < r.span[1] for r in short)]
        rest = _ranges_of(text, tokens)
        return sorted([*short, *rest], key=lambda r: r.span[0])
    return _ranges_of(text, tokens)


def _season_start(text: str, s0: int, month: int | None) -> int:
    """Where a range starting with the year at s0 starts: at its season ("Fall 2019 - ..."),
    which is part of the dates, not a word of the entry's header."""
    if month:
        return s0
    before = text[max(0, s0 - 12) : s0].rstrip()
    season = _SEASON_AT_END.search(before.casefold())
    return max(0, s0 - 12) + season.start() if season else s0


def _ranges_of(text: str, tokens: list[tuple[int, int, int, int | None]]) -> list[DateRange]:
    out: list[DateRange] = []
    i = 0
    while i < len(tokens):
        s0, e0, y0, m0 = tokens[i]
        if i + 1 < len(tokens) and _joins(text[e0 : tokens[i + 1][0]], m0, tokens[i + 1][3]):
            _, e1, y1, m1 = tokens[i + 1]
            if (y1, m1 or 12) >= (y0, m0 or 1):
                out.append(DateRange((y0, m0), (y1, m1), (_season_start(text, s0, m0), e1)))
                i += 2
                continue
        present = _PRESENT_RE.match(text, e0) or (_PRESENT_BARE_RE.match(text, e0) if m0 else None)
        if present:
            out.append(DateRange((y0, m0), None, (_season_start(text, s0, m0), present.end())))
        else:
            since = _SINCE_RE.search(text[max(0, s0 - 12) : s0])
            if since:
                out.append(DateRange((y0, m0), None, (max(0, s0 - 12) + since.start(), e0)))
        i += 1
    return out


def ym_text(ym: YM | None) -> str:
    """ "2019-03", "2019", or "present" (None)."""
    if ym is None:
        return "present"
    year, month = ym
    return f"{year}-{month:02d}" if month else str(year)


# -- splitting a header into title / employer / location -------------------------------------

_BULLET = tuple("•◦▪▫‣∙·*-–—●○■□➢➤►✓✔→➔➜⇒")  # arrows: h51
_BULLET_CHARS = "".join(_BULLET) + " "
# "Title at Employer": what follows the word is the employer.
# "数据工程师@ 上海领脉网络科技": an "@" glued to the title (h50); not "Cortana @Work Calendar",
# a product's name.
# "dla" (layout-30): Polish "for", "Programista front-end dla BASEF LTD"
_AT_WORDS = re.compile(r"\s(at|@|bei|chez|presso|dla|en|bij|w|na)\s|(?<=[^\W\d_])(@)\s", re.IGNORECASE)
# An "at" word opening a part before a capitalised name: the line under a title names the
# employer as a sentence would ("Em TVS Eletrônica", "bei Siemens", "chez Airbus"); a
# Portuguese contraction in lower case ("Cabo nas Forças Armadas", layout-48) too.
_LEADING_AT = re.compile(r"^(?:(?i:em|at|bei|chez|presso)|nas|nos|na|no)\s+(?=[A-ZÀ-Ý0-9])")
_STRONG_AT = frozenset({"at", "@", "bei", "chez", "presso", "dla"})  # "en", "w": also "Máster en ..."
# German and Dutch compounds: "Softwareentwickler", "Projektleiterin", "Datenbankberater".
_TITLE_SUFFIXES = (
    # layout-33: a German compound's intern ("Forschungspraktikant", "Softwarepraktikantin")
    "praktikant",
    "praktikantin",
    "entwickler",
    "entwicklerin",
    "ingenieur",
    "ingenieurin",
    "berater",
    "beraterin",
    "leiter",
    "leiterin",
    "manager",
    "managerin",
    "engineer",
    "developer",
    "ontwikkelaar",
    "adviseur",
    # h50: German occupations named by their trade ("Hotelfachmann", "Bäckereifachverkäufer",
    # "Außendienstmitarbeiter", "Mediengestalter", "Verpackungshelfer", "Lieferfahrer")
    "fachmann",
    "fachfrau",
    "kaufmann",
    "kauffrau",
    "verkäufer",
    "verkäuferin",
    "mitarbeiter",
    "mitarbeiterin",
    "helfer",
    "helferin",
    "gestalter",
    "gestalterin",
    "techniker",
    "technikerin",
    "mechaniker",
    "mechanikerin",
    "elektroniker",
    "elektronikerin",
    "assistent",
    "assistentin",
    "fahrer",
    "fahrerin",
)
# " : " and "; " separate parts too (layout-30): "Backend Software Engineer : Danggeun Market
# Inc. : Jan 2026 - Present" (a site's generated CV), "Auckland Transport; Auckland, NZ".
# "编程语言工具开发实习，IDEA": Chinese parts a header with a full-width comma, no space after (layout-41)
_PARTS = re.compile(r"\s{2,}|\t|\s[|–—·•:]\s|\s-\s|\s--\s?|[,;]\s|[，；]\s?|\s\|\s|\s/\s|\s{0,2}\|\s{0,2}")
_ORG_WORDS = frozenset(
    {"gmbh", "ggmbh", "ag", "se", "kg", "ltd", "ltd.", "limited", "inc", "inc.", "llc", "plc", "corp", "corp.",
     "corporation",
     "sa", "s.a.", "sas", "sarl", "s.l.", "sl", "spa", "s.p.a.", "srl", "s.r.l.", "bv", "b.v.", "nv", "n.v.",
     "sp.", "o.o.", "group", "bank", "labs", "industries", "technologies", "solutions", "consulting", "partners",
     "systems", "software", "digital", "analytics", "logistics", "airlines", "holding", "studio", "agency",
     "associates", "ltda", "ltda.", "eireli",
     "university", "universität", "université", "universidad", "università", "universiteit", "uniwersytet",
     "college", "institute", "institut", "hospital", "ministry", "council", "foundation", "gmbh & co. kg",
     "academy"}  # layout-48: "U.S. Coast Guard Academy" is a house, whatever "guard" says
)  # fmt: skip
_TITLE_WORDS = lex.JOB_WORDS | lex.POST_WORDS
# Working for oneself, which the labels take as the employer beside a post ("SEO-специалист |
# Freelance / Самозанятый"): two such words together are one employer (layout-40).
_SELF_EMPLOYED = frozenset(
    {"freelance", "freelancer", "self-employed", "self employed", "self-employment", "selbstständig",
     "selbständig", "freiberuflich", "freiberufler", "indépendant", "indépendante", "autoentrepreneur",
     "auto-entrepreneur", "autónomo", "autónoma", "autônomo", "autônoma", "independiente", "самозанятый",
     "самозанятая", "фриланс", "фрилансер", "zzp", "zzp'er"}
)  # fmt: skip
_INSTITUTION_WORDS = frozenset(
    {"university", "universität", "universitat", "université", "universidad", "università", "universiteit",
     "uniwersytet", "politechnika", "politecnico", "college", "school", "schule", "gymnasium", "lycée", "lycee",
     "école", "ecole", "institute", "institut", "instituto", "istituto", "hochschule", "fachhochschule",
     "academy", "akademie", "académie", "academia", "accademia", "polytechnic", "eth", "epfl", "tu", "kth",
     "hogeschool", "liceo", "colegio", "szkoła", "campus", "mit", "ucl", "lse", "insa", "hec", "essec"}
)  # fmt: skip


def _words(text: str) -> list[str]:
    return [w.strip("()[],.;:").casefold() for w in text.split()]


# The nouns a title ends (English) or starts (Romance languages) with: "Software Engineer",
# "Ingeniero de software". "Software", "Data", "Cloud" are job words too, but as modifiers.
_TITLE_HEADS = frozenset(
    {"engineer", "developer", "manager", "scientist", "analyst", "consultant", "designer", "architect", "lead",
     "director", "specialist", "administrator", "accountant", "officer", "assistant", "intern", "coordinator",
     "technician", "programmer", "researcher", "professor", "lecturer", "teacher", "founder", "co-founder",
     "cofounder", "ceo", "cto", "owner", "president", "advisor", "editor", "writer", "tester", "operator",
     "supervisor", "executive", "trainee", "apprentice", "student", "head", "employee", "ingeniero", "ingeniera",
     "desarrollador", "desarrolladora", "programador", "analista", "profesor", "profesora", "becario", "becaria",
     "ayudante", "asistente", "investigador", "investigadora", "ingénieur", "développeur", "chef", "ingegnere",
     "interno", "interna", "pasante", "practicante", "alternant", "alternante", "technicien", "technicienne",
     "sviluppatore", "engenheiro", "desenvolvedor", "programista", "inżynier", "kierownik", "ontwikkelaar",
     # layout-42: the Portuguese, Spanish, French and Turkish posts a title opens (or, in
     # Turkish, ends) with - "Estagiário de Engenharia de Software" beside "OpaBox e SuperOpa"
     "estagiário", "estagiária", "engenheira", "desenvolvedora", "gerente", "coordenador", "coordenadora",
     "coordinador", "coordinadora", "consultor", "consultora", "técnico", "técnica", "auxiliar", "assistente",
     "diretor", "diretora", "vendedor", "vendedora", "stagiaire", "apprenti", "apprentie", "responsable",
     "directeur", "directrice", "gérant", "gérante", "conseiller", "conseillère", "vendeur", "vendeuse",
     "analyste", "chargé", "chargée", "mühendis", "mühendisi", "geliştirici", "geliştiricisi", "uzman",
     "uzmanı", "stajyer", "stajyeri",
     # layout-57: an internship named as the post ("Estágio de Verão em Engenharia de Software"
     # beside "INESC TEC", v21's ricardomorim: read the wrong way round)
     "estágio", "estagio", "pasantía", "pasantia", "prácticas", "practicas",
     # layout-68: posts the house's name was read for ("Web Developer & Online Marketer" under
     # "Sky Marketing", "Cofundador" beside "AtipicALI", "Systemutvecklare" beside "4IT AB")
     "marketer", "gamer", "shopper", "cofundador", "cofundadora", "co-fundador", "co-fundadora", "fundador",
     "fundadora", "fondateur", "fondatrice", "cofondateur", "cofondatrice", "co-fondateur", "gestionnaire",
     "formateur", "formatrice", "utvecklare", "systemutvecklare", "konsult"}
)  # fmt: skip


# Chinese and Japanese posts and organisations are written without spaces: their heads are
# suffixes ("后台研发工程师", "北京优刻得科技有限公司") (h50).
_CJK_TITLE_ENDS = (
    "工程师", "实习", "实习生", "经理", "总监", "架构师", "设计师", "开发", "主管", "专家", "研究员", "顾问",
    "分析师", "负责人", "助理", "教师", "讲师", "教授", "エンジニア", "マネージャー", "개발자", "엔지니어",
    # layout-41: teaching assistants, founders, leads, volunteers (dropped as volunteering
    # once a title), programmers; and the traditional script's posts (a Taiwanese CV's)
    "助教", "创始人", "合伙人", "组长", "志愿者", "志願者", "程序员", "實習", "實習生", "工程師", "經理",
    "設計師", "開發", "架構師", "分析師", "負責人", "創辦人", "研究員",
)  # fmt: skip
_CJK_SCHOOL_WORDS = ("大学", "学院", "대학교")
_CJK_ORG_WORDS = (
    *_CJK_SCHOOL_WORDS, "公司", "集团", "研究院", "研究所", "银行", "医院", "工作室", "株式会社", "会社", "주식회사",
)  # fmt: skip


def _cjk_score(part: str) -> int | None:
    if not any("\u3040" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" for ch in part):
        return None
    core = re.sub(r"[（(][^）)]*[）)]", "", part).strip()
    # "游戏开发/主程": either post of two a title's (v13)
    titled = any(piece.strip().endswith(_CJK_TITLE_ENDS) for piece in core.split("/"))
    return (3 if titled else 0) - (2 if any(w in core for w in _CJK_ORG_WORDS) else 0)


def _title_score(part: str) -> int:
    cjk = _cjk_score(part)
    if cjk is not None:
        return cjk
    # "QA/Automation Lead/SDET": the words of a slashed post are its words too (stop 50)
    words = [piece for w in _words(part) for piece in (w.split("/") if "/" in w else (w,)) if piece]
    # "SEO-специалист", "Frontend-разработчик": a hyphen's last piece may be the post's noun
    titles = sum(
        w in _TITLE_WORDS or w.endswith(_TITLE_SUFFIXES) or w.rsplit("-", 1)[-1] in _TITLE_WORDS for w in words
    )
    head = 2 if _title_headed(part) else 0
    return titles + head - 2 * sum(w in _ORG_WORDS for w in words)


# " --" before a post: a WPS template's "温州肯恩大学 --图书馆IT助理" (v15)
_SEGMENTS = re.compile(r"\s{2,}|\t|\s[|–—·•]\s|\s-\s|\s--\s?|\s\|\s|\s/\s|\s{0,2}\|\s{0,2}")
# "Pulpos.- Punto de venta en la nube": a Spanish CV's "Employer.- what it does" (h44).
_TAGLINE = re.compile(r"(?<=[^\W\d_])\.-\s.*$")


# AltaCV's "Date: July 2012 – Ongoing  Location: Sunnyvale, CA" (its icons' text): labels, not
# parts; "Ruolo: Front-end React developer" the same for the post (stop 50).
_ENTRY_LABEL = re.compile(
    r"^\s{0,3}(?:dates?|period|when|location|place|where|ort|zeitraum|lieu|période|lugar|periodo|fecha"
    r"|role|job title|position|rolle|ruolo|rôle|poste|cargo|puesto|função|funzione|stanowisko)\s{0,2}:\s{0,3}",
    re.IGNORECASE,
)


_SENTENCE_END = re.compile(r"(?<=[^\W\d_]{2})\.\s+(?=[A-ZÀ-Ý])")
# A saint's, a mount's or a fort's town abbreviated: "St. George", "Mt. Pleasant", "Ft. Worth"
_SAINT = r"(?:St|Ste|Mt|Ft)"
# "St. George, UT": a town's abbreviated first word, no sentence's end (v23's masonmarinko:
# "St" read as the employer, layout-59); "Pt." too
_TOWN_ABBREVIATION = re.compile(rf"(?:^|\s)(?:{_SAINT}|Pt)$")


def _place_sentence(text: str) -> str:
    """ "Acme Inc., Web Systems Developer. Mesa, Arizona." - the places after the entry's
    sentence set apart as a part (gboeing's CV, h44); "; "-separated places keep the first."""
    m = next(
        (
            m
            for m in _SENTENCE_END.finditer(text, 0, MAX_HEADER_CHARS * 2)
            if not _TOWN_ABBREVIATION.search(text, 0, m.start())
        ),
        None,
    )
    if m is None:
        return text
    first = text[m.end() :].split(";", maxsplit=1)[0].strip(" .")
    if not is_place(first) or _LEGAL_FORM.fullmatch(first.split(",", maxsplit=1)[0].strip()):
        return text  # "Omnious. Co., Ltd.": the name goes on
    head = text[: m.start()]
    keep = _LEGAL_FORM.fullmatch(head.rsplit(maxsplit=1)[-1] if head.strip() else "")
    return f"{head}{'.' if keep else ''}  {first}"  # "Dunamu Inc." keeps its period, a title does not


_NOTE_AT_END = re.compile(r"\s{1,3}\([^()]{1,40}\)?$")  # its ")" may be stripped already


# "(ACG 建站与云市场部) 前端研发实习": a Chinese CV's unit in brackets before the post, on the
# line under the employer - the unit, not part of the post (stop 50)
_UNIT_BEFORE_POST = re.compile(
    r"^[(（][^()（）]{1,60}(?:[(（][^()（）]{0,30}[)）][^()（）]{0,30})?[)）]\s*(?=[\u3040-\u9fff\uac00-\ud7af])"
)


# "Trendyol @Istanbul, Turkey": a place glued to an "@" after the house - where the work
# was, no part of the house's name (layout-43). "Team Lead @ BBVA" (a space after the "@")
# is the house itself and is read by _AT_WORDS.
_GLUED_AT = re.compile(r"\s@([^\W\d_][^,|@–—()]{0,40}?)(?=\s{2,}|,|\s[|–—-]\s|$)")


def _at_place(m: re.Match[str]) -> str:
    return ", " + m.group(1) if is_place(m.group(1)) else m.group(0)


# "Contoso Ltd (UK – remote)", "Round Pegs Inc. (US – remote - website)", "(UK · remote)": a
# note of where and how the work was, its items set apart by dashes or dots - kept whole (its dashes made commas), not
# split into the header's parts, so the note comes off the house whole (_less_note;
# layout-44 - layout-43 left "remote" as the house and "Contoso Ltd (UK)" as its place)
_NOTE_DASHES = re.compile(r"\(([^()]{2,60}\s[-–—·|]\s[^()]{1,60})\)\.?")  # "(…)." : the full stop is the line's


# "Software Engineer (CDN - Live Streaming Backend)" (v24's akiriushin, AltaCV): a dash inside
# brackets parts the post's own words, not the post from its house; its spaces are kept from
# the header's separators and given back in each part (layout-62). A where-note's dashes
# ("(US – remote - website)") were made commas before.
_NOTE_SPACE = "\x02"
_BRACKET_DASHES = re.compile(r"\([^()\d]{1,80}\s[-–—]\s[^()\d]{1,80}\)")  # (no dates: "(2/2024 - cursando)")


def _dashes_kept(m: re.Match[str]) -> str:
    return _SPACED_DASH.sub(lambda d: _kept(d.group(0)), m.group(0))


def _kept(separator: str) -> str:
    """A spaced dash or slash written so that no header separator splits there; each part
    gets its spaces back (_parts)."""
    return _SLASH if separator[1] == "/" else f"{_NOTE_SPACE}{separator[1]}{_NOTE_SPACE}"


def _note_whole(m: re.Match[str]) -> str:
    items = [p.strip(" .") for p in re.split(r"\s[-–—/·|]\s", m.group(1)) if p.strip(" .")]
    return "(" + ", ".join(items) + ")" if _where_note(items) else m.group(0)


# "Junho 2024 - Present, Asa Norte, Brasília - DF": a Brazilian town's state after a dash
# would split the place at the dash ("DF" read as the house, "Asa Norte" as the post); written
# "Brasília/DF", the district, town and state stay one place (layout-46; a note in brackets after it, layout-47).
_TOWN_DASH_STATE = re.compile(
    r"(?<![^\s,;(])([^\W\d_][^\d,;:()|@\-–—/]{1,40}?)\s[-–—]\s([A-Z]{2})(?=\s{0,3}(?:[,;|()]|$))"
)


def _town_slash_state(m: re.Match[str]) -> str:
    written = f"{m.group(1)}/{m.group(2)}"
    return written if is_place(written) and not any(_title_word(w) for w in m.group(1).split()) else m.group(0)


# "José C. Paz National University | Technical Assistant – Virtual Management", "Garra Pneus
# | Televendas / Consultor B2B" (v24's daguirre and hoseiro, Google Docs and Word): a line whose
# pipes part a house from its post - two fields that are neither a place nor a kind of post -
# writes a dash or a slash inside a field as the field's own; split there, the post lost its
# second half or became the house (layout-64). A field's tail that is a place or a kind of post
# ("Acme – Berlin | Engineer") is still a part of its own.
_PIPE = re.compile(r"\s{0,2}\|\s{0,2}")
_FIELD_SEPARATOR = re.compile(r"\s[-–—/]\s")


def _piped_fields_kept(text: str) -> str:
    pieces = _PIPE.split(text)
    if len(pieces) < 2 or len(pieces) > 4:
        return text
    named = [p for p in pieces if p.strip() and not _loose_part(p)]
    if len(named) != 2 or not any(_FIELD_SEPARATOR.search(p) for p in named):
        return text
    return " | ".join(_field_kept(p) if p in named else p for p in pieces)


def _field_kept(piece: str) -> str:
    seps = list(itertools.islice(_FIELD_SEPARATOR.finditer(piece), 2))
    if len(seps) != 1:
        return piece
    head, tail = piece[: seps[0].start()], piece[seps[0].end() :]
    post = _title_score(head) > 0 or _title_score(tail) > 0  # "Rabbit Technology – Александрия": a house's place
    if not post or _loose_part(head) or _loose_part(tail):
        return piece
    return head + _kept(seps[0].group(0)) + tail


def _loose_part(part: str) -> bool:
    """A field that stands apart from the house and the post: a place (a way of working,
    "Remote", is one to is_place), a kind of post, how long, or dates."""
    bare = part.strip(" ,;:()[]")
    low = bare.casefold()
    return (
        not bare
        or is_place(bare)
        or low in _EMPLOYMENT_KINDS
        or low in _SELF_EMPLOYED
        or bool(_DURATION.fullmatch(bare))
        or bool(date_ranges(bare))
    )


# A web address written out (OCR may space its colon: "https ://"); a bare domain may be the
# house's own name ("Booking.com") and stays.
_WEB_ADDRESS = re.compile(r"(?i)(?:https?\s?:\s?//\s?|www\.)[\w./%?#=&~+-]+")


def _parts(text: str) -> list[str]:
    """A header's parts: split on wide separators, then on commas - except a place written
    with one ("Menlo Park, CA", "Berlin, Germany"), which stays one part."""
    out: list[str] = []
    if "|" in text and len(text) <= MAX_HEADER_CHARS * 2:
        text = _piped_fields_kept(text)
    if "@" in text:
        text = _GLUED_AT.sub(_at_place, text)
    if "(" in text:
        text = _BRACKET_DASHES.sub(_dashes_kept, _NOTE_DASHES.sub(_note_whole, text))
    text = _place_sentence(_UNIT_BEFORE_POST.sub("", text))
    if " " in text:
        text = _TOWN_DASH_STATE.sub(_town_slash_state, text)
    segments = [piece for s in _SEGMENTS.split(_keep_slashed_titles(plain(text))) for piece in _house_then_place(s)]
    for labelled in segments:
        first = len(out)
        segment = _TAGLINE.sub("", _ENTRY_LABEL.sub("", labelled))
        whole_place = is_place(segment) and not (len(segments) > 1 and _employer_before_place(segment))
        for raw in [segment] if whole_place else _PARTS.split(_BRACKETED.sub(_masked, segment)):
            # "Costco Wholesale/ Oct 2006 to Feb 2008": a slash left at a part's edge (v23's masonmarinko)
            part = raw.replace(_COMMA, ",").strip(" ,;:|()[]–—-·•/").replace(_SLASH, " / ").replace(_NOTE_SPACE, " ")
            part = _FOOTNOTE.sub("", part)  # "Fundación Caja Duero1": a footnote mark (moderncv)
            part = _LEADING_AT.sub("", part)  # "Em TVS Eletrônica" under its title: the house, not "Em" (layout-33)
            bare = _NOTE_AT_END.sub("", part)
            whole = part + ")" if part.count("(") > part.count(")") else part
            if bare != part and is_place(bare) and not is_place(whole):
                # "Remote (contract, concurrent)": a place, and a note on the work (stop 50);
                # "Remote (Switzerland)" is a place whole
                part = bare
            # "(6 mois)", "(2 years)" under the dates: how long, not who or what (layout-12);
            # "GenieAI - https://www.genieai.tech": the house's site, not the house (layout-71)
            if (
                _DURATION.fullmatch(part)
                or _DATES_NOTE.fullmatch(part)
                or _SUPERVISOR.match(part)
                or _WEB_ADDRESS.fullmatch(part)
            ):
                continue
            if part.count("(") > part.count(")"):
                part += ")"  # "Danggeun Pay Inc. (KarrotPay)": the strip took its own bracket
            part = _less_description(part)
            if out and _LEGAL_FORM.fullmatch(part):
                out[-1] = f"{out[-1]}, {part}"  # "Omnious. Co., Ltd.": a legal form is no part of its own
            elif sum(ch.isalpha() for ch in part) >= 2:
                remote = _REMOTE_AFTER.fullmatch(part)
                house = remote.group(1) if remote is not None else ""
                if remote is not None and not is_place(house) and house.casefold() not in _HOW_REMOTE:
                    out += [house, remote.group(2)]  # "Gainwell Technologies Remote" (layout-48)
                    continue
                out += _cjk_employer_and_post(part)
        _join_trailing_place(out, first)
    return out


# A house and how its post was worked, one space apart (a DOCX's "Gainwell Technologies
# Remote", v20's bhoskins): the way of working is a place of its own, as after a comma.
_HOW_REMOTE = frozenset({"fully", "full", "partly", "partially", "mostly", "100%", "totalmente", "parcialmente"})
_REMOTE_AFTER = re.compile(
    r"(\S.{1,80}?\S)\s+(?i:(remote|remoto|remota|hybrid|híbrido|hibrido|télétravail|teletrabajo))"
)


_JOINED_PLACES = re.compile(r"\s(?:&|and|/|et|und|y|e)\s")


def _employer_before_place(segment: str) -> bool:
    """ "T.K. Market, Correggio, Italy" between a post and its dates: an employer before its
    town and country, not "City, Region, Country" - its head is no place the lexicon knows and
    its middle no state (v15; "Mountain View, California, EUA" stays a place)."""
    head, middle, country = (p.strip() for p in [*segment.split(","), "", ""][:3])
    return (
        segment.count(",") == 2
        # a street and a postcode ("Wiesenstrasse 5, 8952 Schlieren, CH") are an address,
        # "Irvine, US and Chandigarh, India" two places
        and not re.search(r"\b\d", head + middle)  # a number of its own; "H2C-development" is a name
        and not _JOINED_PLACES.search(middle)
        and not is_place(head)
        and middle.casefold() not in lex.US_STATE_NAMES
        and middle.upper() not in lex.STATE_CODES
        and middle.upper() not in lex.US_STATES
        and is_place(f"{middle}, {country}")
    )


def _cjk_employer_and_post(part: str) -> list[str]:
    """ "PingCAP 数据库开发工程师", "畅游 游戏开发": a Chinese CV's employer and post parted
    by one space, the post's head a title suffix (v13) - two parts."""
    words = part.split(" ")
    if len(words) != 2 or not all(words):
        return [part]
    post, house = max(_cjk_score(w) or 0 for w in words[1].split("/")), _cjk_score(words[0])
    if post > 0 and (house is None or house <= 0):
        return words
    return [part]


_SAINTS_TOWN = re.compile(rf"{_SAINT}\.?\s[A-Z]")


def _join_trailing_place(out: list[str], first: int) -> None:
    """ "Beckhoff Automation LLC, Savage, Minnesota", "Engineer, Los Angeles, CA": the last two
    parts of one segment that are a place together are one part, when a part of the segment
    is left before them. A two-letter state code joins only a city the lexicon knows ("Acme,
    CA" after a title is more likely the employer and its state) (h47)."""
    if len(out) - first < 3:
        return
    head, tail = out[-2], out[-1]
    if not is_place(f"{head}, {tail}"):
        return
    # ("St. Albans, UK": a saint's town abbreviated is a town the lexicon need not know; the
    # newcomer check of stop 65 read "St. Albans" as the post, layout-60)
    if len(tail.strip(".")) <= 3 and head.casefold() not in lex.CITIES and not _SAINTS_TOWN.match(head):
        return
    out[-2:] = [f"{head}, {tail}"]


# A comma inside brackets splits nothing: "Backend Engineer (Freelance, Part-time)" (h44).
_COMMA = "\x01"
_BRACKETED = re.compile(r"\([^()]{1,80}\)")


def _masked(m: re.Match[str]) -> str:
    return m.group(0).replace(",", _COMMA)


# "Wurthy (Profitable solutions for growing businesses)": what the organisation does, in
# brackets after its name, is no part of the name (layout-30); "Devsisters (Studio Kingdom)",
# "EPAM Systems (Poland)", "(ATER ≈192H)" are names and stay.
_DESCRIPTION_BRACKET = re.compile(r"\s\(([^()]{1,160})\)$")
MIN_DESCRIPTION_WORDS = 3
_FUNCTION_WORDS = frozenset(
    {"a", "an", "the", "to", "of", "for", "and", "in", "on", "by", "with", "at", "from", "as", "de", "la", "le",
     "des", "du", "et", "en", "y", "e", "da", "do", "der", "die", "das", "und", "von", "für", "w", "i", "na"}
)  # fmt: skip


def _less_description(part: str) -> str:
    m = _DESCRIPTION_BRACKET.search(part)
    if m is None or not part[: m.start()].strip():
        return part
    words = m.group(1).replace(_COMMA, ",").split()
    # lower-case words that carry meaning: "(exited to GitKraken)" is the company's story, kept
    lower = sum(1 for w in words if w[:1].islower() and w.strip(",.").casefold() not in _FUNCTION_WORDS)
    return part[: m.start()] if len(words) >= MIN_DESCRIPTION_WORDS and lower >= 2 else part


_DURATION_UNIT = (
    r"\d{1,2}(?:[.,]\d)?\s?(?:months?|mos?\.?|mths?\.?|years?|yrs?\.?|weeks?|wks?\.?|mois|ans?|semaines?|"
    r"monate?n?|jahre?n?|wochen|meses|mes|mês|años|año|anos?|semanas?|mesi|mese|anni|anno|settimane|settimana|"
    r"maanden|maand|jaar|weken|week|miesi[ęą]c[ey]?|lat|lata|tygodni|"
    # layout-65: Danish, Norwegian and Swedish ("2 år 7 måneder", a LinkedIn export's time at a
    # company: v25's jbjerrekaer, whose company line was read as no company)
    r"år|måneder|måned|månader|månad|uger|uge|uker|uke|veckor|vecka)"
)


def _bracket_at_end(inner: str, flags: int = 0) -> re.Pattern[str]:
    """A note in brackets that ends a part, "Title (inner)": the one shape every trailing
    note below shares (how long, contract, workload, a stack, a link); each rule gives what
    its brackets hold. (_DESCRIPTION_BRACKET and _TRAILING_BRACKET differ on purpose: the
    one needs a space before, the other matches the whole part and keeps its head.)"""
    return re.compile(r"\s{0,3}\((?:" + inner + r")\)\s*$", flags)


# "(6 mois)", "1 year and 9 months", "2 yrs 3 mos", "1 ano e 9 meses" (h44: compound).
_DURATION = re.compile(
    _DURATION_UNIT + r"(?:\s?(?:,|and|&|und|et|y|e|i|en)?\s?" + _DURATION_UNIT + r")?",
    re.IGNORECASE,
)
# "2025 年3 月 - 2025 年9 月（预计）": the end is expected - a note on the dates, no part;
# "远程研究实习，导师：张屹洲": a research post's supervisor, no employer (layout-41)
_SUPERVISOR = re.compile(
    r"(?:导师|導師|指导老师|指导教师|指導教授|advisor|adviser|supervisor|betreuer|betreuerin|orientador|orientadora)"
    r"\s?[:：]",
    re.IGNORECASE,
)
_DATES_NOTE = re.compile(r"[(（]?(?:预计|預計)[)）]?")
_ONLY_DURATION = re.compile(
    r"\(?\s{0,2}(?:about|approx\.?|ca\.?|~|circa|environ|etwa|cerca de|alrededor de)?\s{0,2}(?:"
    + _DURATION.pattern
    + r")\s{0,2}\)?",
    re.IGNORECASE,
)
_FOOTNOTE = re.compile(r"(?<=[^\W\d_.]{4})[1-9]$|(?<=[A-Z]\.)[1-9]$")  # not "Auth0"
_LEGAL_FORM = re.compile(
    r"(?:ltd|inc|llc|llp|plc|corp|co|g?gmbh|ag|sa|s\.a|sas|sarl|srl|s\.r\.l|spa|s\.p\.a|bv|b\.v|nv|n\.v|s\.l|sl|"
    r"oy|ab|a/s|kg|pty ltd|pvt ltd|ltda|eireli|"
    # layout-68: Central and Eastern Europe's ("NEXMODE Sp. z o.o.", "Raintree Systems OÜ",
    # "Pacientská organizace SMÁci, z.s."), Portugal's and Malaysia's - and "Limited"
    r"o\.o|s\.r\.o|d\.o\.o|z\.s|a\.s|kft|zrt|oü|aps|lda|bhd|limited)\.?",
    re.IGNORECASE,
)


# "G Squared Funding, LLC Sandy Springs, GA": a house's legal form, then its town one space
# on (a DOCX's tab stop read as a space; v22's larigens, layout-56)
_LEGAL_THEN = re.compile(r"(.{2,80}?[\s,]" + _LEGAL_FORM.pattern + r")\s+([^\W\d_].{2,60})", re.IGNORECASE)


def _house_then_place(segment: str) -> list[str]:
    """The segment, or its house and its place when a legal form parts them."""
    m = _LEGAL_THEN.fullmatch(segment) if len(segment) <= 150 else None
    if m is None or not is_place(m.group(2)) or is_place(m.group(1)):
        return [segment]
    return [m.group(1), m.group(2)]


# "Researcher / Independent Consultant", "Developer / Team Lead": one title held two ways,
# not a title and an employer - a slash between two job words does not split.
_SLASH = "\x00"
_SLASHED = re.compile(r"\s/\s")
_CHUNK_END = re.compile(r"\s{2,}|[,|·•–—\t]")


def _title_word(word: str) -> bool:
    low = word.strip("()[],.;:").casefold()
    return low in _TITLE_WORDS or low.endswith(_TITLE_SUFFIXES)


def _keep_slashed_titles(text: str) -> str:
    if " / " not in text:
        return text
    out, at = [], 0
    for m in _SLASHED.finditer(text, 0, MAX_HEADER_CHARS * 3):
        left = _CHUNK_END.split(text[at : m.start()])[-1].split()
        end = _CHUNK_END.search(text, m.end(), m.end() + MAX_HEADER_CHARS)
        right = text[m.end() : end.start() if end else m.end() + MAX_HEADER_CHARS].split()
        keep = any(_title_word(w) for w in left) and any(_title_word(w) for w in right)
        # "Fullstack-Entwickler (React / Next.js / Node.js)": a stack in brackets; "Django /
        # Angular Developer": a stack's name before a title is the title's (stop 50)
        known = lex.skills()
        stack = bool(left and right) and all(w.strip("()[],").casefold() in known for w in (left[-1], right[0]))
        keep = keep or (stack and text.count("(", 0, m.start()) > text.count(")", 0, m.start()))
        keep = keep or (len(left) == 1 and left[0].casefold() in known and any(_title_word(w) for w in right))
        out.append(text[at : m.start()] + (_SLASH if keep else m.group(0)))
        at = m.end()
    return "".join(out) + text[at:]


def _complete(texts: list[str]) -> bool:
    """Whether the texts name both a title and an employer - an institution, not only its
    department ("Department of Earth Sciences" is followed by "University of ...")."""
    title, employer, _ = _split_job(texts)
    return (
        title is not None
        and employer is not None
        and not _SUBUNIT.match(employer)
        and _title_score(employer) < SECOND_TITLE  # "Research assistant | PhD student": no employer yet
    )


# A part scoring this much is a job title, never the employer (a title's head noun and more).
SECOND_TITLE = 2


_EMPLOYMENT_KINDS = frozenset(
    {"contract", "internship", "part-time", "part time", "full-time", "full time", "freelance", "temporary",
     "permanent", "cdi", "cdd", "intern", "praktikum", "werkstudent", "stage", "alternance", "apprenticeship",
     "teilzeit", "vollzeit", "prácticas", "estágio", "tirocinio",
     # "Développeur Front-End | Stagiaire", "| Temps plein" (v23's elmehammedi, layout-59)
     "temps plein", "temps partiel", "stagiaire", "trainee", "working student", "tiempo completo",
     "medio tiempo", "tiempo parcial", "pasante", "becario", "becaria", "tempo integral", "meio período",
     "estagiário", "estagiária"}
)  # fmt: skip


def _title_above(above: str, texts: list[str]) -> bool:
    """Whether a line that is a job title alone ("Full Stack Java Developer") right above
    "Employer | Remote | Contract — client: Vivo | Nov 2025 – Jun 2026" is the entry's title:
    the dates' line names no title of its own, only parts without a title word (h44)."""
    own = _parts(above)
    # two lines below it: "Technion - Automated planning" over "2023 Sep. — 2024 Sep.  Haifa,
    # Israel" under "Research Assistant"; "ML Engineer - Internship": the kind of post is
    # part of the title (h47)
    if len(own) == 2 and own[1].casefold() in _EMPLOYMENT_KINDS:
        own = own[:1]
    # "TECHNICAL SOLUTIONS ENGINEER" ("Solutions" is an organisation's word too): a line that
    # ends in a title's head noun is a title (layout-42)
    if len(own) != 1 or (_title_score(own[0]) < SECOND_TITLE and not _title_headed(own[0])) or len(texts) > 2:
        return False
    title, _, _ = _split_job(texts)
    return title is None or _title_score(title) <= 0


def _employer_above(above: Line, anchor: Line, texts: list[str]) -> bool:
    """Whether a line naming an organisation alone ("Clevertech") right above "Senior Software
    Engineer, Fullstack" / "2019 – 2020" is the entry's employer: set larger than the dates,
    as an entry's own heading is, while the "employer" the lines below it give is one word
    after the title on its line, the post's field (_qualified) - "Software Engineer,
    Rackspace" under a description's last line keeps Rackspace (h53)."""
    own = [p for p in _parts(above.text) if not is_place(p)]
    if (
        len(own) == 1
        and _legal_named(own[0])
        and _title_score(own[0]) <= 0
        and not any(_legal_named(p) for t in texts for p in _parts(t))
    ):
        # "NORMA LEBENSMITTELFILIALBETRIEB STIFTUNG UND CO KG" over "Division manager,
        # Subsidiary Eutingen im Gäu – Germany  09. 2017 – 12. 2020": a name with its legal
        # form alone on its line is the employer, the dates' line holds the post and its unit (v13)
        return True
    if not above.size or above.size < anchor.size + 1:
        return False
    if len(own) != 1 or _title_score(own[0]) > 0:
        return False
    title, employer, _ = _split_job(texts)
    if title is None or employer is None:
        return False
    line = next((named for named in ([p for p in _parts(t) if not is_place(p)] for t in texts) if title in named), [])
    return employer in line and _qualified(title, line)


# A unit of an institution: an academic CV names it above the institution ("Chair of
# Information Systems" / "University of Regensburg"); the institution is the employer (layout-12).
_SUBUNIT = re.compile(
    r"(?:department|dept\.?|chair|professorship|professur|faculty|school|institute|laboratory|lab|division|centre|center|group|"
    r"lehrstuhl|fakultät|fachbereich|abteilung|institut|facultad|facultade|faculdade|departamento|dipartimento|"
    r"facoltà|faculté|département|laboratoire|escuela|instituto|vakgroep|wydział|katedra)\b",
    re.IGNORECASE,
)


def _institution_over_unit(candidates: list[str]) -> str | None:
    """The employer among an entry's non-title parts: the first that is no second title
    ("Research assistant | PhD student"), unless it is a unit and a later part names the
    organisation itself (not another unit)."""
    if not candidates:
        return None
    untitled = [p for p in candidates if _title_score(p) < SECOND_TITLE]
    candidates = untitled or candidates
    if not _legal_named(candidates[0]):
        # "Artificial Intelligence & Data Analytics" beside "Lufthansa Industry Solutions AS
        # GmbH": the name with its legal form is the employer (h44).
        legal = next((p for p in candidates[1:] if _legal_named(p)), None)
        if legal is not None:
            return legal
    if _SUBUNIT.match(candidates[0]):
        for part in candidates[1:]:
            if not _SUBUNIT.match(part) and set(_words(part)) & (_ORG_WORDS | _INSTITUTION_WORDS):
                return part
    return candidates[0]


_LABELLED_LIST = re.compile(r"[^\W\d][\w /&-]{0,30}:\s+(\S.*)")


def _described(text: str) -> bool:
    """A description's line, not a role's: a labelled list ("Infraestrutura: Amazon AWS,
    Oracle OCI.", "Technologies: Go, Docker"); an employer written "Auburn University:
    Campus Web Solutions" is none (h48). (Lines of mostly lower-case words are not left
    out too: French and Spanish titles are written so - "Développeur d'outils métiers".)"""
    if _ENTRY_LABEL.match(text):
        return False  # "Função: Desenvolvedor Freelancer.": the post, labelled (layout-48, v20's mmorais)
    labelled = _LABELLED_LIST.fullmatch(text)
    return bool(labelled and ("," in labelled.group(1) or labelled.group(1).endswith(".")))


def _prose(text: str) -> bool:
    """A description's line of prose, not a role's header, though it has no bullet and no
    full stop: "Researched and develop monthly commercial sales pipeline reporting across
    five industries", "Développement fullstack et administration système en environnement
    Linux" above the next role's title and dates were read as its employer (v26's
    spritchard; layout-68). Seven words or more, four or more of them (half of those after
    the first) lower-case words that are no particle, with no post's word, no legal form and
    no organisation's word written as a name's - "Conselho Regional de Farmácia do Estado do
    Paraná" is a name, "Ingénieur d'études et développement en informatique" a post."""
    words = text.split()
    # one part: "Enseignant vacataire puis contractuel en Mathématiques, Education Nationale"
    # and "Mission operations software development lead  Wrocław, PL" are a header's parts
    if len(words) < 7 or len(_parts(text)) != 1 or _legal_named(text):
        return False
    # Not prose: a post's or an organisation's word written as a name's ("Ingénieur d'études
    # et ...", "Ministry of Health and social affairs" - "change management strategies" and
    # "across five industries" are prose), a post's head noun anywhere ("Web development
    # intern / Part-time full-stack developer": a post in lower case), a name and its tagline
    # ("Pulpos.- Punto de venta en la nube", _TAGLINE).
    named = " ".join(w for w in words if w[:1].isupper())
    if (
        _title_score(named) > 0
        or set(_words(named)) & (_ORG_WORDS | _INSTITUTION_WORDS)
        or {p for w in _words(text) for p in w.split("/")} & _TITLE_HEADS
        or _TAGLINE.search(text)
    ):
        return False
    lower = sum(w[:1].islower() and w.casefold() not in _NAME_PARTICLES for w in words[1:])
    return lower >= 4 and 2 * lower >= len(words) - 1


def _is_header(line: Line) -> bool:
    text = line.text.strip()
    if not text or len(text) > MAX_HEADER_CHARS or text.startswith(_BULLET) or line.heading:
        return False
    if (
        (text.endswith(".") and len(text.split()) > 7)
        # "Moving faster from idea to production.", "Worked on several projects, listed some
        # notable ones:": a tagline or a lead-in, a sentence of lower-case words (stop 50;
        # "Cyberdyne Sp. z o.o." ends in its legal form; "Doctoral studies - completed with
        # a doctor degree in ..., specialization:" is a header's parts before its colon)
        or (
            (text.endswith(".") or (text.endswith(":") and len(_SEGMENTS.split(text)) == 1))
            and sum(w[:1].islower() for w in text.split()[1:]) >= 3
            and not _legal_named(text)
            # "Programista front-end dla PrintSoft NT sp. zoo.": a post at a house, full stop
            and _title_score(text) <= 1
            and not _AT_WORDS.search(text)
        )
        or "。" in text
        or "；" in text
        or ("，" in text and len(text) > 30)
    ):
        # a sentence: a description ("Cyberdyne Sp. z o.o." is a name; "。" ends a CJK one; a
        # long CJK line with a full-width comma is a sentence, "Shopee 卖家平台，后端" a header - v13)
        return False
    if (text[0].islower() and not _lower_cased_name(text)) or _DUTIES_LABEL.fullmatch(text):
        return False
    return len(text.split()) <= 14 and not _described(text) and not _stack_line(text)


# "Tasks and Achievements", "Responsabilités", "Key achievements:": the label a role's
# description opens with (an HTML CV's, under its dates; layout-44), no header of a role
_DUTIES_LABEL = re.compile(
    r"(?i:(?:main |key |my )?(?:tasks?|duties|responsibilities|achievements?|accomplishments?|"
    r"tasks and achievements|tasks and responsibilities|duties and responsibilities|responsibilities and achievements|"
    r"missions?|tâches|responsabilités|réalisations|missions et réalisations|aufgaben|tätigkeiten|erfolge|"
    r"responsabilidades|funciones|tareas|logros|atividades|atribuições|conquistas)\s{0,2}:?)"
)


_STACK_SEPARATORS = re.compile(r"\s[·•|/]\s|,\s")


def _stack_line(text: str) -> bool:
    """ "Next.js · TypeScript · PostgreSQL · Vercel · SEO": what the entry above used, three
    or more names every one of which is a skill's - no post or employer of the entry below
    (layout-42)."""
    parts = _STACK_SEPARATORS.split(text)
    known = lex.skills()
    return len(parts) >= 3 and all(p.strip().casefold() in known for p in parts)


def _lower_cased_name(text: str) -> bool:
    """ "clinicom GmbH, Verl — Mediengestalter": a company that writes its name in lower case
    opens the line with its legal form after it - a header, not a description's next line (h50)."""
    first = _PARTS.split(text, maxsplit=1)[0]
    # "airSlate, Inc.  Kyiv, Ukraine": the legal form after a comma ends the name (layout-33;
    # a description's next line, "jQuery, Backbone, Pivotal", names no legal form)
    named = _CELLS.split(text, maxsplit=1)[0]
    # (a compound legal form's "&" is no word of the name: "empiriecom GmbH & Co. KG", v28's
    # sbrumbaugh, layout-72)
    if len(first.replace(" & ", " ").split()) <= 4 and (
        _legal_named(first) or (len(named.split()) <= 5 and _legal_named(named))
    ):
        return True
    # "uni rakun - Nantes region, France": a short name, a dash, and a place (layout-42)
    dashed = _NAME_DASH_PLACE.match(text)
    return (
        dashed is not None
        and len(name := dashed.group(1).split()) <= 3
        and name[0].casefold() not in _FUNCTION_WORDS  # "and more - Paris, France": a sentence's end
        and is_place(dashed.group(2))
    )


_NAME_DASH_PLACE = re.compile(r"([^\W\d][^-–—,|]{1,40}?)\s[-–—|]\s(.{3,60})")


_CELLS = re.compile(r"\s{2,}|\t")


@dataclass
class _Entry:
    anchor: Line
    dates: DateRange
    header: list[tuple[Line, str]]  # (line, its text with the dates taken out)
    # "Trainer - Cyber security I  09/2019 - 02/2020" over "Chair of ..." / "University of
    # Regensburg": the dates' line is all title, the organisation is read below (h44).
    whole_title: bool = False
    # "Embelleze" over "5 anos 4 meses" (a LinkedIn export's company with the time spent
    # there, then each role's title and dates): the company every role below it is at
    company: str | None = None

    def complete(self) -> bool:
        if self.company is not None:  # the house is known; the title is the line above the dates
            return any(ln.n < self.anchor.n for ln, _ in self.header)
        texts = [t for _, t in self.header]
        if not self.whole_title:
            return _complete(texts)
        _, employer, _ = _split_job(texts[1:])
        return employer is not None and not _SUBUNIT.match(employer)


def _all_titles(text: str) -> bool:
    parts = _parts(text)
    return len(parts) > 1 and all(_title_score(p) >= SECOND_TITLE for p in parts)


def _names_institution(text: str) -> bool:
    """A unit or an institution ("Chair of Information Systems", "University of Regensburg")."""
    return bool(_SUBUNIT.match(text) or set(_words(text)) & _INSTITUTION_WORDS)


def _legal_named(text: str) -> bool:
    words = _words(text)
    return bool(words and _LEGAL_FORM.fullmatch(words[-1]))


# "Comdata , Ivandry De novembre 2022 à décembre 2022", "Remote from Jan 2020 to ...": the
# word a range opens with goes with its dates, not with the town or house before them
# (layout-44). Only right before the dates, and only these words.
_OPENER_BEFORE = re.compile(r"(?i:\s(?:de|du|d['’]|from|von|vom|desde|dal|dall['’]|da|od))\s{0,2}$")
# A Portuguese or Spanish CV writes its dates as a sentence after the house: "Itaú Unibanco.
# Início em Novembro de 2022 - Emprego Atual.", "UNICESUMAR Londrina, período de abril de
# 2019 – julho 2019." (held-out v20's wcutrim, development since): the lead-in and the
# sentence's stops go with the dates (layout-48; "Itaú Unibanco. Início em" was the house).
_LEAD_IN_BEFORE = re.compile(r"(?:[.,;:]\s{0,2}|\s)(?i:(?:n[oa]\s+)?per[ií]odo|in[ií]cio\s+(?:em|en))\s{0,2}:?\s{0,2}$")
_STOP_AFTER = re.compile(r"\s{0,2}\.\s*$")
# "Date: Apr 2017 – Feb 2019" under the post and its house (v24's akiriushin, AltaCV): the
# label of the dates, alone before them on their line, is no title (layout-62).
_DATES_LABEL = re.compile(
    r"\s{0,4}(?i:dates?|period|per[ií]odo|datum|zeitraum|dur[ée]e|durata|duration|fecha|data|date\(s\))\s{0,2}:\s{0,2}"
)


def _without(text: str, span: tuple[int, int]) -> str:
    before = text[: span[0]]
    if _DATES_LABEL.fullmatch(before):
        before = ""
    opener = _OPENER_BEFORE.search(before, max(0, len(before) - 12))
    if opener is not None:
        before = before[: opener.start()]
    lead_in = _LEAD_IN_BEFORE.search(before, max(0, len(before) - 24))
    after = text[span[1] :]
    if lead_in is not None:
        before = before[: lead_in.start()]
        after = _STOP_AFTER.sub("", after)
    rest = before + "  " + after
    rest = _EMPTIED.sub(" ", _BEFORE_CLOSE.sub(lambda m: m.group(1), rest))
    return _stripped(rest)


# What the dates left in brackets: "(Mountain View,   )" -> "(Mountain View)", "[  ]" -> ""
_BEFORE_CLOSE = re.compile(r"[\s,;:|–—-]{1,8}([)\]）])")
_EMPTIED = re.compile(r"\(\s{0,3}\)|\[\s{0,3}\]|（\s{0,3}）")  # and full-width brackets (v13)


_EDGES = " ,;:|–—-·•\t"


def _stripped(text: str) -> str:
    """Separators stripped from both ends, and a bracket only when it has no partner:
    "Homeloc (Python, Django)" keeps its closing bracket where the dates after it went
    (layout-31; it read "Homeloc (Python, Django")."""
    out = text.strip(_EDGES)
    while out:
        opened, closed = out.count("(") + out.count("["), out.count(")") + out.count("]")
        if out[-1] in ")]" and closed > opened:
            out = out[:-1].strip(_EDGES)
        elif out[0] in "([" and opened > closed:
            out = out[1:].strip(_EDGES)
        else:
            break
    return out


def single_date(text: str) -> DateRange | None:
    """A line's one date at its start or end ("Juin 1997  Licence de ...", "BSc, Leeds, 2014"):
    a degree's date is often the year it was awarded, not a range."""
    if len(text) > MAX_DATE_LINE:
        return None
    tokens = _tokens(text)
    if len(tokens) != 1:
        return None
    start, end, year, month = tokens[0]
    if text[: _season_start(text, start, month)].strip(" ([") and text[end:].strip(" .,;)]"):
        return None  # a year inside a sentence ("thesis on 2008's crisis")
    if _NAMED_DAY.match(text, start):
        return None  # "February 22, 2026" alone: a day's date (a page's footer), no role's or degree's
    return DateRange((year, month), (year, month), (_season_start(text, start, month), end))


_NAMED_DAY = re.compile(r"[^\W\d_]+\.?\s{1,2}\d{1,2},")


_LEADING_DATE_SEP = re.compile(
    r"\s{0,3}(?:[-–—]\s{0,3}|\(\d{1,2}\s{0,2}[^\W\d_]{2,10}\)\s{2,})(?=[^\W\d_])"  # "2008 (1 mes)  Profesor"
)


def _leading_date(text: str) -> DateRange | None:
    """A role dated by its start alone, first on its line: "2016 / 09 - University of Bremen"
    (latexcv), "2011 / 11 - Getoq Consulting" (layout-6). Only a date followed by a dash and
    then words: "2019 Award for ..." in running text is no role, and a year in a date column
    beside a project ("1996  Laboratoire ... . Simulation de ...", esieecv) is not read as one."""
    one = single_date(text)
    if one is None or one.span[0] != 0:
        return None
    sep = _LEADING_DATE_SEP.match(text, one.span[1])
    if sep is None or is_place(text[sep.end() :]):
        return None  # Deedy's education column, "Dec 2014 | Ithaca, NY": a degree's date and place
    return one


_DATE_PLACE_SEP = re.compile(r"\s{0,3}[|·•,–—-]\s{0,3}")


def _date_then_place(text: str) -> DateRange | None:
    """A line that is one date, a separator and a place and nothing else: "2023 | Toulouse,
    France", "June 2024 · Paris"."""
    one = single_date(text)
    if one is None or one.span[0] != 0:
        return None
    sep = _DATE_PLACE_SEP.match(text, one.span[1])
    if sep is None or not is_place(text[sep.end() :].strip()):
        return None
    return one


def _trailing_date(text: str) -> DateRange | None:
    """A role of one year, its year set flush right on the header's row: "Piwik PRO | Senior
    JavaScript Developer  2024" (the row joined as "text  dates", _layout.join_date_rows)
    beside "Sii Polska | Senior Software Engineer  2025 - 2026" (h53). Only a year or a
    month alone after a wide gap, with a header's parts before it."""
    one = single_date(text)
    if one is None or one.span[1] != len(text.rstrip()) or text[one.span[0] - 2 : one.span[0]] != "  ":
        return None
    head = text[: one.span[0]].strip()
    if not _parts(head) or is_place(head):
        return None
    return one


def _with_places(lines: list[Line]) -> list[Line]:
    """A place on a line of its own right after a header-shaped line is read with it:
    templates set "Employer" left and "City, Country" flush right on one row, and the text
    layer gives them as two lines ("Globex" / "London, UK"). sb2nov's template sets a bullet
    before the employer ("• Google" / "Mountain View, CA" on its row): with the place on its
    row, that bullet opens an entry, not a description (layout-6)."""
    out: list[Line] = []
    for line in lines:
        prev = out[-1] if out else None
        # "Remote (contract, concurrent)": a place and a note on the work (stop 50)
        if (
            prev is not None
            and is_place(_NOTE_AT_END.sub("", line.text))
            and not is_place(prev.text)
            # "2023 | Toulouse, France": a role's date and place, read as its dates (_entries)
            and _date_then_place(line.text) is None
        ):
            head = prev
            if prev.text.startswith(_BULLET) and _same_row(prev, line):
                head = _unbulleted(prev)
            elif _OCR_BULLET.match(prev.text) and _same_row(prev, line):
                # the bullet OCR'd as "e Google"
                head = dataclasses.replace(prev, text=prev.text[2:], runs=without_head(prev, 2))
            if _is_header(head) and len(head.text) + len(line.text) <= MAX_HEADER_CHARS:
                text = f"{head.text}  {line.text}"
                out[-1] = dataclasses.replace(head, text=text, place_row=True, runs=joined_runs(head, line, 2))
                continue
        out.append(line)
    return out


_OCR_BULLET = re.compile(r"[eo°»]\s(?=[A-Z])")


def _same_row(a: Line, b: Line) -> bool:
    if a.bbox is None or b.bbox is None or a.page != b.page:
        return False
    return abs(a.bbox[1] - b.bbox[1]) < 0.4 * max(a.bbox[3] - a.bbox[1], 1.0) and b.bbox[0] > a.bbox[2]


def _closer_below(pending: list[Line], anchor: Line, below: list[Line]) -> bool:
    """Whether the header line right below a "Title  dates" anchor sits much closer to it
    than the line above: templates space entries apart and set an entry's lines tight, so
    Europass's "dates  Title" / "Employer, City" is one entry and the line above ("Business
    or sector  ...") ends the previous one."""
    if not pending or not below or not _is_header(below[0]):
        return False
    prev, nxt = pending[-1], below[0]
    if not _parts(_without_dates(anchor.text)) and not _tight_block(prev, anchor, nxt):
        return False
    if prev.bbox is None or anchor.bbox is None or nxt.bbox is None or not prev.page == anchor.page == nxt.page:
        return False
    gap_above = anchor.bbox[1] - prev.bbox[3]
    gap_below = nxt.bbox[1] - anchor.bbox[3]
    if gap_above > 2 * max(gap_below, 1.0) + 4:
        return True
    # "Senior Frontend Developer  2024-04-01 - 2025-06-01" over "Decathlon France - Nantes,
    # France", the entry above ending in its skill chips set in from the entries' edge: the
    # line below on the anchor's edge, naming a place, is its employer's (layout-42).
    parts = _parts(nxt.text)
    return (
        gap_above > gap_below
        and abs(nxt.bbox[0] - anchor.bbox[0]) < 2
        and abs(prev.bbox[0] - anchor.bbox[0]) > 3
        and len(parts) >= 2
        and is_place(parts[-1])
        and not is_place(parts[0])
    )


def _tight_block(prev: Line, anchor: Line, nxt: Line) -> bool:
    """A dates-only line set tight on the line below and apart from the line above ("08/2008
    – 12/2017" over "Unternehmensgründung / Teilhaber · swepp GmbH"): the line below is its
    entry's header, the one above ends the entry before (h50). Needs the three lines' boxes
    on one page and one left edge."""
    if prev.bbox is None or anchor.bbox is None or nxt.bbox is None or not prev.page == anchor.page == nxt.page:
        return False
    return abs(anchor.bbox[0] - nxt.bbox[0]) < 2 and abs(anchor.bbox[0] - prev.bbox[0]) < 2


def _without_all(text: str, ranges: list[DateRange]) -> str:
    """The line without its dates: "Agosto 2015 - Mayo 2016, Agosto 2016 - Mayo 2017" is one
    role held twice, none of it a title or employer (layout-6)."""
    for r in sorted(ranges, key=lambda r: r.span[0], reverse=True):
        text = _without(text, r.span)
    return text


def _spanning(ranges: list[DateRange]) -> DateRange:
    """One role's dates when its line holds several ranges back to back ("2015 - 2016, 2016 -
    2017"): from the first start to the last end."""
    if len(ranges) == 1 or ranges[0].end is None:
        return ranges[0]
    return DateRange(ranges[0].start, ranges[-1].end, ranges[0].span)


def _date_alone(line: Line) -> DateRange | None:
    """The date of a line that is one date and nothing else ("Summer 2016", "06/2016",
    "2016"), spanning the whole line; None for any other line."""
    one = single_date(line.text)
    if one is None:
        return None
    rest = line.text[: one.span[0]] + line.text[one.span[1] :]
    if _SEASON_AT_END.sub("", rest.strip(" ()[],.·|").casefold()).strip():
        return None
    return DateRange(one.start, one.end, (0, len(line.text)))


def _without_dates(text: str) -> str:
    ranges = date_ranges(text)
    return _without(text, ranges[0].span) if ranges else text


def _section_body(lines: list[Line], section: str) -> list[Line]:
    """The section's lines under its heading, place rows marked (_with_places)."""
    return _with_places(
        _bulleted_headers(_ocr_bullets([ln for ln in lines if ln.section == section and not ln.heading]))
    )


def _unbulleted(line: Line) -> Line:
    """The line without its leading bullets (and its style runs shifted with it)."""
    text = line.text.lstrip(_BULLET_CHARS)
    return dataclasses.replace(line, text=text, runs=without_head(line, len(line.text) - len(text)))


# A list bullet as a scan's OCR reads it: a line of its own left of the item on its row, or
# a letter or two before the item (stop 50).
_OCR_BULLET_ALONE = frozenset({"e", "o", "°", "»", "«", "+", "«+", "*", "•"})
_OCR_BULLET_ITEM = re.compile(r"^[eo°»«+*]{1,2}\s+(?=\S)")


def _ocr_bullets(lines: list[Line]) -> list[Line]:
    """pandoc's list-item headers on a scan, read as on its text layer (v13): the OCR reads
    the bullets as "e" (or "•") left of "Method" on its row and as "e " before "Mar 2024 -
    Present" or as a mark of its own left of it. Only that pair is re-bulleted - an item
    with dates alone under it; another list's items ("e" / "Técnico em Programação - NAVE
    Rio" over "2012 até 2014") and a sentence's "e Django" ("and") are left as read."""
    # each line that is not a lone mark, with whether a mark stands left of it on its row
    kept: list[tuple[int, bool]] = []
    k = 0
    while k < len(lines):
        lone = lines[k].runs is None and lines[k].text in _OCR_BULLET_ALONE
        if lone and k + 1 < len(lines) and _same_row(lines[k], lines[k + 1]):
            kept.append((k + 1, True))
            k += 2
            continue
        kept.append((k, False))
        k += 1
    out = list(lines)
    drop: set[int] = set()
    for (i, item_marked), (j, dates_marked) in itertools.pairwise(kept):
        if not item_marked or lines[i].runs is not None:
            continue
        m = None if dates_marked else _OCR_BULLET_ITEM.match(lines[j].text)
        rest = lines[j].text[m.end() :] if m else lines[j].text if dates_marked else ""
        if _dates_alone(rest):
            out[i] = dataclasses.replace(lines[i], text=f"• {lines[i].text}")
            out[j] = dataclasses.replace(lines[j], text=f"• {rest}")
            drop |= {i - 1} | ({j - 1} if dates_marked else set())
    return [ln for k, ln in enumerate(out) if k not in drop]


def _dates_alone(text: str) -> bool:
    """The text is a date range and nothing else but separators."""
    ranges = date_ranges(text) if text else []
    return bool(ranges) and not _without_all(text, ranges).strip(" ,.;:|·-–—()")


def _bulleted_headers(lines: list[Line]) -> list[Line]:
    """pandoc's résumé sets an entry's employer and dates as list items under its title
    ("Senior Software Engineer" / "• Method" / "• Mar 2024 – Present"; v13): a bulleted
    line of nothing but dates and the short bulleted line right above it lose their
    bullets - they are the entry's header, not its description."""
    out = list(lines)
    for i in range(1, len(out)):
        line, prev = out[i], out[i - 1]
        if not (line.text.startswith(_BULLET) and prev.text.startswith(_BULLET)):
            continue
        dates, head = _unbulleted(line), _unbulleted(prev)
        if not _dates_alone(dates.text):
            continue
        if date_ranges(head.text) or not _is_header(head):
            continue
        out[i - 1], out[i] = head, dates
    return out


def _company_over_time(body: list[Line], k: int, pending: list[Line]) -> str | None:
    """Line k a time spent ("5 anos 4 meses", _ONLY_DURATION) right under a name (a LinkedIn
    export): that company's time there, its roles below it - the name, taken off the pending
    header lines (layout-42). Not a place ("San Francisco, CA" over "2 years 10 months" in a
    rendercv date column)."""
    above = pending[-1] if pending and k and body[k - 1] is pending[-1] else None
    if above is None:
        return None
    if date_ranges(above.text) or is_place(above.text):
        return None
    return pending.pop().text


def _entries(body: list[Line], section: str) -> list[_Entry]:
    """The dated entries of a section's body (_section_body)."""
    out: list[_Entry] = []
    pending: list[Line] = []  # header-shaped lines since the last bullet or entry
    after_anchor: _Entry | None = None  # lines right below an anchor may still be its header
    # Only header-shaped lines since the last entry: in a date-column layout they are that
    # entry's last lines ("University of British Columbia"), not the next one's title.
    unbroken = False
    company: str | None = None  # a LinkedIn export's company over its roles (_Entry.company)
    items = _list_items(body) if section != "education" else set()
    for k, line in enumerate(body):
        duration = _ONLY_DURATION.fullmatch(line.text)
        if duration or _PAGE_FOOTER.fullmatch(line.text):
            # "(about 1 month)" under a date column's dates, "Page 2 of 3" where a page broke
            # the section: nothing of a role's header (v13, layout-42)
            company = (_company_over_time(body, k, pending) if duration else None) or company
            continue
        ranges = date_ranges(line.text) if len(out) < MAX_ENTRIES else []
        if not ranges and section == "education" and len(out) < MAX_ENTRIES:
            one = single_date(line.text)
            ranges = [one] if one else []
        elif not ranges and len(out) < MAX_ENTRIES and section == "experience" and line.date_column:
            # A date column's single year or month beside a role ("2016  Senior DevOps
            # Engineer (freelance), eHealth Systems Africa"): a role of under a year (layout-12).
            one = single_date(line.text)
            ranges = [one] if one and one.span[0] == 0 else []
        elif (
            not ranges
            and len(out) < MAX_ENTRIES
            and section == "experience"
            and line.runs is not None
            and any(_same_row(p, line) for p in pending[-2:])
            and (alone := _date_alone(line))
        ):
            # "Summer 2016" or "June 2016" alone, flush right on the row of a role's employer
            # or title just above (smessina's, v15): a role of one season. Not a year on a
            # row of its own (a portfolio's "2026" over each project: cecko's), and only a
            # text layer's line: OCR cuts a projects list's "... 2024" rows at their gaps.
            ranges = [alone]
        elif not ranges and len(out) < MAX_ENTRIES and _is_header(line):
            # (a text layer's rows only: OCR's wide gaps are its columns' - projects' years)
            trailing = section == "experience" and line.runs is not None
            one = (
                _leading_date(line.text)
                # "June 2024 | Toulouse, France" under "Les Maths En Scène - Intern Web
                # developer": a role of one month or year, its place after the date (v22's
                # vhervy, Canva)
                or (_date_then_place(line.text) if section == "experience" and pending else None)
                or (_trailing_date(line.text) if trailing else None)
            )
            ranges = [one] if one else []
        if ranges:
            own = "" if line.dates_beside_bullet else _without_all(line.text, ranges)
            entry = _Entry(line, _spanning(ranges), [(line, own)])
            # "Company" / "Title" over the dates: another house's one role
            # (asked only under a company: is_place on every entry's pending lines is no free check)
            company = None if company is not None and sum(not is_place(p.text) for p in pending) >= 2 else company
            entry.company = company
            # The lines just above complete it, nearest first ("Employer  City" above
            # "Title  dates"; "Title" and "Employer" above a dates line) - unless the dates
            # stand in a date column beside the entry's first line: an entry starts on its
            # dates' row there, and what is above is the entry before (layout-12).
            beside_column = unbroken and line.date_column and any(not is_place(p) for p in _parts(own))
            above = pending[-2:] if not beside_column and not _closer_below(pending, line, body[k + 1 : k + 2]) else []
            above = _without_duties(above, line)
            _header_above(entry, above, section)
            out.append(entry)
            pending, after_anchor, unbroken = [], entry, True
            continue
        # A description's list item is no header, though its bullet is a line of its own
        # (layout-56: _list_items); nor is a description's line of prose (layout-68)
        # (layout-72) nor a line set deeper than the role's lines right above (_duty_below)
        if (
            not _is_header(line)
            or k in items
            or (section != "education" and _prose(line.text))
            or (after_anchor is not None and _duty_below(after_anchor, line))
        ):
            pending, after_anchor, unbroken = [], None, False
            continue
        aside = _is_aside(line.text)
        org_below = (
            section != "education"
            and after_anchor is not None
            and len(after_anchor.header) == 1
            and after_anchor.header[0][0] is after_anchor.anchor
            and (_names_institution(line.text) or _placed_name(line.text))
            and not any(_legal_named(p) or _names_institution(p) for p in _parts(after_anchor.header[0][1]))
            # complete on its own line ("Trainer", "Cyber security I"), or two titles
            # ("Research assistant | PhD student"): either way the line is all title
            and (after_anchor.complete() or _all_titles(after_anchor.header[0][1]))
        )
        if (
            after_anchor is not None
            and len(after_anchor.header) < MAX_HEADER_LINES
            and (
                aside
                or org_below
                or _beside_aside(after_anchor, line)
                or (
                    _title_below_untitled(after_anchor, line)
                    # a title right above the next dates is that entry's ("Head of Digital
                    # Experience" over "Advanced MedTech  May 2019 – Feb 2021")
                    and not (k + 1 < len(body) and date_ranges(body[k + 1].text))
                )
                or not after_anchor.complete()
                or (section != "education" and _set_above_header(after_anchor, line))
            )
        ):
            # "(IUFM Mérignac)" under "Juillet 2006  CAPES": an aside belongs to the entry above.
            after_anchor.whole_title = after_anchor.whole_title or org_below
            after_anchor.header.append((line, line.text))
            continue
        after_anchor = None
        pending.append(line)
    return out


# A Canva CV's roles with no bullet glyph (v28's sbrumbaugh): "Fullstack Web Developer" /
# "empiriecom GmbH & Co. KG" / "July 2022 to Present" flush, each duty set this much deeper
# ("Developed, Implemented, and Planned a Migration ...", "Based API to new Hook API" - a
# duty's end right above the next role's title): a duty, not a header line of a role.
DEEPER_PT = 10.0


def _deeper(line: Line, anchor: Line) -> bool:
    """Whether a text layer's line is set deeper than a role's dates line on its page - not
    where the dates stand in a column of their own beside the role (its lines are right of
    them) or beside a bullet."""
    return (
        line.runs is not None
        and anchor.runs is not None
        and not anchor.date_column
        and not anchor.dates_beside_bullet
        and line.bbox is not None
        and anchor.bbox is not None
        and line.page == anchor.page
        and line.bbox[0] > anchor.bbox[0] + DEEPER_PT
    )


def _without_duties(above: list[Line], anchor: Line) -> list[Line]:
    """The lines above a role's dates less a description's last lines set deeper than them,
    where the line right above starts flush with the dates ("Based API to new Hook API"
    over "Freelance Web Developer" / "June 2019 to July 2022")."""
    return [p for p in above if not _deeper(p, anchor)] if above and _flush(above[-1], anchor) else above


def _duty_below(entry: _Entry, line: Line) -> bool:
    """Whether a line under a role's header is its description: set deeper than the dates
    line, every header line flush with that line, and on a row of its own."""
    return (
        _deeper(line, entry.anchor)
        and len(entry.header) > 1
        and all(_flush(ln, entry.anchor) and not _same_row(ln, line) for ln, _ in entry.header)
    )


def _flush(line: Line, anchor: Line) -> bool:
    """Whether a header line starts where the role's dates line does, on its page."""
    return (
        line.bbox is not None
        and anchor.bbox is not None
        and line.page == anchor.page
        and abs(line.bbox[0] - anchor.bbox[0]) <= FLUSH_PT
    )


FLUSH_PT = 3.0


def _set_above_header(entry: _Entry, line: Line) -> bool:
    """A short line read after the entry's dates but set right above its first line,
    flush with it: the entry's own first line, drawn late ("Lead Developer PHP" over "CCM
    Benchmark - Groupe Le Figaro  Paris, France  août 2024 – Présent", a page printed from
    HTML: v27's benmacha, layout-70). Top-down reading never puts a later entry's line
    there."""
    first = entry.header[0][0]
    if line.page != first.page or line.bbox is None or first.bbox is None or len(line.text.split()) > 8:
        return False
    height = first.bbox[3] - first.bbox[1]
    gap = first.bbox[1] - line.bbox[3]
    return height > 0 and -0.2 * height <= gap <= height and abs(line.bbox[0] - first.bbox[0]) <= 2.0


def _header_above(entry: _Entry, above: list[Line], section: str) -> None:
    """The lines just above complete the entry, nearest first ("Employer  City" above
    "Title  dates"; "Title" and "Employer" above a dates line)."""
    line = entry.anchor
    for prev in reversed(above):
        # "Employer  City" right above "Title, Department  dates" (a Spanish template,
        # Awesome-CV) is the entry's employer even when the dates' line has two parts.
        employer_row = prev.place_row and len(_parts(prev.text)) == 2
        texts = [t for _, t in entry.header]
        # "NEXMODE Sp. z o.o." and "Cieszyn" set apart on one row above "PHP Fullstack
        # Developer  07.2025 – 08.2025" are one row, the employer's: the town alone
        # completed the entry and left the house out (v26's jwojtyna; layout-68)
        same_row = section != "education" and entry.header[0][0] is not line and _same_row(prev, entry.header[0][0])
        if (
            _complete(texts)
            and not employer_row
            and not same_row
            and not _title_above(prev.text, texts)
            and not _employer_above(prev, line, texts)
        ):
            break
        entry.header.insert(0, (prev, prev.text))


def _list_items(body: list[Line]) -> set[int]:
    """The body's list items whose bullet the text layer gives as a line of its own, set in
    from the lines before the list: the last items above a date column's row were read as
    the next role's employer and title (v22's editapesa; layout-56). A bullet on those
    lines' margin marks a role itself ("•" then "IN8", aramuni's)."""
    out: set[int] = set()
    margin: float | None = None  # where the last line that is no list item starts
    for k, line in enumerate(body):
        bullet = body[k - 1] if k else None
        if after_lone_bullet(bullet, line):
            assert bullet is not None and bullet.bbox is not None  # (on a row: both have boxes)
            if margin is not None and bullet.bbox[0] > margin + BULLET_INDENT:
                out.add(k)
        elif not lone_bullet(line) and line.bbox is not None:
            margin = line.bbox[0]
    return out


def _title_below_untitled(entry: _Entry, line: Line) -> bool:
    """ "TikTok (ByteDance), Technical Infrastructure  Aug 2023 – Present" over "Software
    Engineer  Singapore" (Jake's résumé and its kin): an employer and its team on the dates'
    line, no word of a title in it, and a title alone below - the title is the entry's (h50)."""
    if entry.header[-1][0] is not entry.anchor or not all(
        ln is entry.anchor or _same_row(ln, entry.anchor) for ln, _ in entry.header
    ):
        return False  # only the dates' row so far ("ByteDance, Lark Messenger" | "Jun – Oct 2021")
    own = [p for _, text in entry.header for p in _parts(text) if not is_place(p)]
    below = [p for p in _parts(line.text) if not is_place(p)]
    if not own or len(below) != 1:
        return False
    # ("ClickHouse Database Team": a team's word is a title's word too, but no title's head)
    return not any(_title_headed(p) for p in own) and _title_headed(below[0])


def _title_headed(part: str) -> bool:
    """A title's head noun ends or opens the part, less an aside in brackets: "Software
    Engineer Intern (Rust)", "Ingeniero de software" - and less a level after it: "Software
    Engineer III", "Software Development Engineer I/II" (layout-68)."""
    words = _words(re.sub(r"\s*\([^()]*\)$", "", part))
    if len(words) > 1 and _LEVEL.fullmatch(words[-1]):
        words = words[:-1]
    return bool(words) and (words[-1] in _TITLE_HEADS or words[0] in _TITLE_HEADS)


_LEVEL = re.compile(r"(?:i{1,3}|iv|v)(?:/(?:i{1,3}|iv|v))?")


def _is_aside(text: str) -> bool:
    """A line in brackets: "(IUFM Mérignac)", "(Algorithmic Middleware Department)"."""
    return text.startswith("(") and text.rstrip(" .,").endswith(")")


def _beside_aside(entry: _Entry, line: Line) -> bool:
    """ "(Algorithmic Middleware Department)" and "R&D Intern, Golang" on one row under the
    employer's dated line: the title beside a department's aside is the entry's too (h50)."""
    last = entry.header[-1][0]
    if last is entry.anchor or not _is_aside(last.text):
        return False
    if last.bbox is None or line.bbox is None or last.page != line.page:
        return False
    return abs(last.bbox[1] - line.bbox[1]) < 2 and line.bbox[0] > last.bbox[2]


_ARTICLE = re.compile(r"^(?:the|a|an|der|die|das|le|la|les|l'|l’|el|il|de)\s+", re.IGNORECASE)
_IN_PLACE = re.compile(r"\s+(?:in|à|a|en|im|in der)\s+[A-ZÀ-Ý][\w.'’-]*(?:\s+[A-ZÀ-Ý][\w.'’-]*){0,2}$")


def _at_word(at: re.Match[str]) -> str:
    return (at.group(1) or at.group(2)).casefold()


def _employer_of(text: str) -> str:
    """ "the Office for Regional Statistics in Y-Town" (after "Internship at") -> the name."""
    return _IN_PLACE.sub("", _ARTICLE.sub("", text)).strip() or text


def _whole_employer_lines(groups: list[list[str]], texts: list[str]) -> list[str]:
    """The header lines' parts, in order - but when one line is a title alone ("Enseignant
    vacataire en Mathématiques"), a line of several parts none of which is a title is one
    employer written with commas ("ONAC, Lycées privés hors contrat ACADIS & DWIGHT MOODY"),
    not a title and an employer (layout-6)."""
    lines = [g for g in groups if g]
    title_line = any(len(g) == 1 and _title_score(g[0]) > 0 for g in lines) or bool(lines and len(lines[0]) == 1)
    out: list[str] = []
    for k, g in enumerate(groups):
        town = _town_after_house([g])  # "DOYOUSOFT SA - BÉZIERS": a town, though in capitals (layout-44)
        named = [p for p in g if not is_place(p) and p != town]
        # ... but "Council of Europe, Budapest": a one-word part after a comma is a place
        # the lexicon does not know, not more of the employer's name (an acronym is: a unit).
        if (
            title_line
            # "Technion - Automated planning": a dash sets the organisation's tagline apart;
            # "UoA - Physical Acoustics Laboratory" is still one name (h47)
            and not (any(_tagline(p) for p in named[1:]) and _DASHED.search(plain(texts[k])))
            and len(named) > 1
            # "Faculty of Exact Sciences, Universidad Nacional del Sur": a unit and its
            # institution, which _institution_over_unit chooses between
            and not (_SUBUNIT.match(named[0]) and any(set(_words(p)) & _INSTITUTION_WORDS for p in named[1:]))
            and all(_title_score(p) <= 0 for p in named)
            and all(len(p.split()) > 1 or p.isupper() for p in named[1:])  # "..., MND": an acronym
        ):
            out += [", ".join(named), *(p for p in g if is_place(p) or p == town)]
        else:
            out += g
    return out


_DASHED = re.compile(r"\S\s[–—-]\s\S")
_NAME_PARTICLES = frozenset(
    {"de", "da", "do", "das", "dos", "a", "e", "of", "and", "the", "für", "und", "et", "la", "le", "du", "des", "y",
     "del", "van", "von", "for", "in", "&", "di", "der", "den", "to", "on", "at"}
)  # fmt: skip


def _tagline(part: str) -> bool:
    """A phrase, not a name: a lower-case word other than a particle ("Automated planning",
    "PE fund (late stage)"; "Fundação de Amparo a Pesquisa" is a name)."""
    words = [w.strip("()[],.;:") for w in part.split()[1:]]
    return any(w[:1].islower() and w.casefold() not in _NAME_PARTICLES for w in words if w)


def _house_before_country(rest: list[str], location: str | None) -> tuple[str, str, str] | None:
    """(title, employer, location) for "FULL-STACK SOLUTIONS ENGINEER" over "ZenAdmin,
    Germany (Remote) | Dec 2020 - ...": a post and "Name, Country" and nothing else - the
    name, no town the lexicon knows, is the employer, not the start of the place (layout-42)."""
    if location is None or len(rest) != 1 or _title_score(rest[0]) <= 0:
        return None
    head, comma, tail = location.partition(",")
    if (
        comma
        and head.strip().casefold() not in lex.CITIES
        and not is_place(head)
        and is_place(tail)
        and not _JOINED_PLACES.search(tail)  # "Irvine, US and Chandigarh, India": two places
    ):
        return rest[0], head.strip(), tail.strip()
    return None


# "Wiesenstrasse 5, 8952 Schlieren, CH", "12 Example Rd": where the house is, a street and its
# number or a postcode before the town - no post and no house (layout-43)
_STREET_ADDRESS = re.compile(
    r"(?i:\b[\w-]{0,30}(?:strasse|straße|str\.|gasse|weg|platz|allee)|\b(?:street|st\.|road|rd\.?|avenue|ave\.|"
    r"boulevard|blvd\.?|rue|calle|avenida|rua|via|viale|ul\.))\s\d{1,4}[a-z]?\b"
    r"|\b\d{1,4}[a-z]?\s(?:[A-Z][\w-]{1,30}\s){1,3}(?i:street|st|road|rd|avenue|ave|lane|drive|dr)\b\.?"
    r"|(?:^|,\s)(?:[A-Z]{1,2}-)?\d{4,5}\s[A-ZÀ-Ý][\w-]{1,40}(?:,|$)"
)


_TOWN = re.compile(r"[A-ZÀ-Ý][\w'’.-]{2,30}(?:[ -][A-ZÀ-Ý][\w'’.-]{1,30})?")


def _town_after_house(groups: list[list[str]]) -> str | None:
    """ "bloopark GmbH & Co. KG, Magdeburg": a name or two in capitals right after a house's
    legal form, on its line, is the house's town though the lexicon knows no such town
    (layout-43) - not a post ("Siemens AG, Werkstudent" has a post's word)."""
    for group in groups:
        for house, after in itertools.pairwise(group):
            if _legal_named(house) and _TOWN.fullmatch(after) and _title_score(after) <= 0 and not _legal_named(after):
                return after
    return None


def _town_off_before_country(parts: list[str]) -> list[str]:
    """ "Business Intelligence Analyst Cairo, Egypt" (a Google Docs CV's title, its place set
    one space on; v28's mmamdoh, layout-72): a known town that ends the part before a country
    is the place's, not the title's last word."""
    for k in range(len(parts) - 1):
        words = parts[k].split()
        if len(words) < 3 or parts[k + 1].strip().casefold() not in lex.COUNTRIES:
            continue
        for n in (2, 1):
            town = " ".join(words[-n:])
            if town.casefold() in lex.CITIES and town[:1].isupper() and _title_score(" ".join(words[:-n])) > 0:
                return [*parts[:k], " ".join(words[:-n]), f"{town}, {parts[k + 1]}", *parts[k + 2 :]]
    return parts


def _split_job(texts: list[str]) -> tuple[str | None, str | None, str | None]:
    """(title, employer, location) from an entry's header texts."""
    employer_hint: str | None = None
    beside_place: set[str] = set()  # "Northwind Analytics  Berlin": a place sits beside the employer
    alone = sum(1 for text in texts if text.strip()) == 1
    groups: list[list[str]] = []  # each plain header line's parts
    for text in texts:
        own = _town_off_before_country(_parts(text))
        named = [p for p in own if not is_place(p)]
        if len(named) == 1 and len(own) == 2:
            beside_place.add(named[0])
        at = _AT_WORDS.search(text)
        left = text[: at.start()] if at else ""
        if (
            at
            and "," not in left
            # "Research Associate in Software and Hardware Engineering at King’s College London"
            and len(left.split()) <= (8 if _at_word(at) in _STRONG_AT else 6)
            # "Becario en desarrollo de Software" under "Nvidia Corporation": a weak "at" word
            # ("en", "w") is a field of work when another line names the employer (layout-6).
            and (
                _at_word(at) in _STRONG_AT
                # "Ingénieur en développement Web, PeopleDoc": a weak "at" word with another
                # part after it is the title's own word; that part is the employer (h49)
                or (_title_score(left) > 0 and alone and len(_parts(text[at.end() :])) == 1)
            )
        ):
            employer_hint, tail = _house_after_at(_parts(text[at.end() :].strip()), text)
            groups.append(_parts(text[: at.start()]) + ([employer_hint, *tail[1:]] if employer_hint else tail))
        else:
            groups.append(own)
    groups = _house_town_country(groups)
    parts = [q for p in _whole_employer_lines(groups, texts) for q in _place_in_brackets(p)]
    # "Janv", "Sep": a month its date left behind ("Janv. 2019 - Analyste" over "Présent"),
    # never a title or an employer (h49)
    parts = [p for p in parts if p.strip(" .,").casefold() not in lex.MONTHS]
    location = next((p for p in parts if is_place(p) or _STREET_ADDRESS.search(p)), None) or _town_after_house(groups)
    rest = _less_places([p for p in parts if p != location], location)
    if not rest:
        return None, None, location
    house = _house_before_country(rest, location) if employer_hint is None else None
    if house is not None:
        return house
    if len(rest) == 1 and (_title_score(rest[0]) < 0 or (_legal_named(rest[0]) and _title_score(rest[0]) <= 0)):
        # "Raimi & Associates", "UrbanSim Inc.": an organisation alone (h44); "presso Top
        # Network S.p.A." the same, by its legal form (stop 50)
        return None, rest[0], location
    if employer_hint in rest:
        employer: str | None = employer_hint
        title = next((p for p in rest if p != employer), None)
        return title, employer, location
    scored = sorted(range(len(rest)), key=lambda k: (-_title_score(rest[k]) + (rest[k] in beside_place), k))
    if _title_score(rest[scored[0]]) > 0:
        title_i = scored[0]
    elif len({_title_score(p) for p in rest}) > 1:
        # No title word, but one part names an organisation ("University of Bremen" beside
        # "Scientific Employee / Software Development"): the other is the title (layout-6).
        title_i = scored[0]
    else:  # no cue but the place: the other part is the title; else "Title, Employer" order
        title_i = next((k for k, p in enumerate(rest) if p not in beside_place), 0)
    title = rest[title_i]
    others = [p for k, p in enumerate(rest) if k != title_i]
    kind_of_post = _kind_and_subject(title, others, texts)
    if kind_of_post is not None:
        title, others = kind_of_post
    employer = _employer_among(others, texts)
    return _whole_title_line(title, employer, location, groups, texts), employer, location


def _less_places(rest: list[str], location: str | None) -> list[str]:
    """ "Santa Cruz do Sul – RS, Brazil" over "IT Technician": the place's second part is no
    employer ("Brazil" was; v25's dcarvalho, layout-68) - while a named part is left."""
    named = [p for p in rest if not is_place(p)]
    return named if location is not None and named and len(named) < len(rest) else rest


def _house_town_country(groups: list[list[str]]) -> list[list[str]]:
    """ "H2C-development, Nador, Maroc" on a line of its own under "Développeur Full Stack |
    Temps plein": a house, its town and country, not "City, Region, Country" - when another
    line of the entry names the post, a line that is one such place whose head the lexicon
    does not know is the employer and its place (v23's elmehammedi, Canva; layout-59).
    _parts keeps a line alone whole: in a contact block it is an address."""
    if not any(_title_score(p) > 0 for g in groups for p in g):
        return groups
    out = []
    for g in groups:
        if len(g) == 1 and _employer_before_place(g[0]):
            head, _, place = g[0].partition(",")
            out.append([head.strip(), place.strip()])
        else:
            out.append(g)
    return out


def _house_after_at(tail: list[str], text: str) -> tuple[str | None, list[str]]:
    """The house the parts after an "at" name, and those parts: its first, or a unit and its
    university ("at Quantum Optics Theory Group (…), University of Basel") as one."""
    house = _employer_of(tail[0]) if tail else None
    both = _unit_and_university(house, tail[1], [text]) if house and len(tail) > 1 else None
    return (both, [both, *tail[2:]]) if both is not None else (house, tail)


def _employer_among(others: list[str], texts: list[str]) -> str | None:
    """The employer of the parts left beside the title: "Freelance / Самозанятый" (two words
    for working for oneself) is one; else the institution over its unit, or both as the CV
    names them (_unit_and_university)."""
    if len(others) > 1 and all(p.casefold() in _SELF_EMPLOYED for p in others):
        return " / ".join(others)
    others = [p for p in others if not _CONTRACT_PART.fullmatch(_bare(p)) or p.casefold() in _SELF_EMPLOYED]
    others = [p for p in others if _bare(p).casefold() not in lex.skills()] or others
    employer = _institution_over_unit(others)
    if employer is None or employer not in others:
        return employer
    k = others.index(employer)
    before = _unit_and_university(others[k - 1], employer, texts) if k > 0 else None
    after = _unit_and_university(employer, others[k + 1], texts) if k + 1 < len(others) else None
    return before or after or employer


# "CDD", "Stage M1", "Contrat de professionnalisation", "En cours": a contract or its state,
# set apart from the title (a date column's note, "(CDI –En poste)") - never the house
# (layout-43); working for oneself ("Freelance") is one (_SELF_EMPLOYED). Nor is a skill of
# the taxonomy while another part is left: "Lead Développeur Python, React, AWS" over
# "SCIFORMA - MARSEILLE" (the comma split the title; "React" is no house).
_CONTRACT_PART = re.compile(
    r"(?:cdi|cdd|stage|alternance|apprentissage|intérim|interim|en cours|en poste|contrat de\s.{2,40}|"
    r"contract|internship|part-time|full-time|praktikum|werkstudent|prácticas|estágio|tirocinio)"
    r"(?:\s{1,2}[\w'’-]{1,12}){0,2}"
    # "PFA Internship", "Summer Internship": a kind of internship named before the word (v23's
    # kassimi; layout-59) - no house either
    r"|(?:[^\W\d_][\w'’.-]{0,14}\s{1,2}){1,2}(?:internship|traineeship|apprenticeship|praktikum)",
    re.IGNORECASE,
)


def _bare(part: str) -> str:
    return _NOTE_AT_END.sub("", part).strip()  # "AWS (CDI –En poste)": the part, not its note


_UNIT_WORD = re.compile(
    r"\b(?:lab|laboratory|group|department|dept\.?|institute|centre|center|division|faculty|chair|lehrstuhl|"
    r"institut|laboratoire|département|departamento|facultad|faculdade|fakultät|abteilung)\b",
    re.IGNORECASE,
)
_UNIVERSITY = re.compile(
    r"\b(?:universit\w*|univ\.|college|hochschule|polytechnic|politecnico|politechnika|école|ecole)\b", re.IGNORECASE
)


def _unit_and_university(unit: str, university: str, texts: list[str]) -> str | None:
    """ "Department of Statistics, Monash University", "Quantum Optics Theory Group (Nicolas
    Sangouard), University of Basel": a lab, group or department, a comma, and the
    university it is part of - the employer is both, as the CV names it (layout-43), not
    the unit alone (which says nothing of where) nor the university alone."""
    if not _UNIT_WORD.search(unit) or _UNIVERSITY.search(unit) or not _UNIVERSITY.search(university):
        return None
    joined = f"{unit}, {university}"
    return joined if any(joined in text for text in texts) else None


def _kind_and_subject(title: str, others: list[str], texts: list[str]) -> tuple[str, list[str]] | None:
    """ "Internship - iOS developer (2 months), Lundi Matin": the kind of post and what it
    was are one title, when another part is left to be the employer (h49)."""
    if _kind_of_post(title) and len(others) >= 2:
        kind, subject, rest = title, others[0], others[1:]
    elif others and _kind_of_post(others[0]) and len(others) >= 2:
        kind, subject, rest = others[0], title, others[1:]  # the subject scored as the title (h50)
    else:
        return _kind_after(title, others, texts)
    dash = _dash_between(kind, subject, texts)
    # "Summer Internship – Python, C#, Unity": what follows is the role's stack, not its subject
    if dash is not None and _bare(subject).casefold() not in lex.skills():
        return f"{kind}{dash}{_HOW_LONG.sub('', subject)}", rest
    return _kind_after(title, others, texts)


def _kind_of_post(part: str) -> bool:
    """ "Internship", "Stage PFA", "Technical Internship": a kind of post, which a dash joins
    to what the post was."""
    return part.casefold() in _EMPLOYMENT_KINDS or bool(_CONTRACT_PART.fullmatch(_bare(part)))


def _dash_between(first: str, second: str, texts: list[str]) -> str | None:
    """The spaced dash a header text writes between the two parts, if one does."""
    return next((d for d in (" - ", " – ", " — ", " | ") if any(f"{first}{d}{second}" in text for text in texts)), None)


def _kind_after(title: str, others: list[str], texts: list[str]) -> tuple[str, list[str]] | None:
    """ "Strategy Analyst - Part-time", "OSS Technical Support – internship, Nokia Siemens
    Networks": the kind of post after the title's dash is the title's own word, never the
    employer (layout-43); the other part left is the employer."""
    # a part that names a house: neither working for oneself nor a kind of post
    house_left = any(p.casefold() not in _SELF_EMPLOYED and p.casefold() not in _EMPLOYMENT_KINDS for p in others)
    for k, kind in enumerate(others):
        if kind.casefold() not in _EMPLOYMENT_KINDS or (kind.casefold() in _SELF_EMPLOYED and not house_left):
            # "Data Analyst (Contract) – Freelance": working for oneself is the house - unless
            # another part names one ("Développeur Front-End | Freelance" over "LIFETIME
            # DEVELOPERS, Nador, Maroc": the kind of post, layout-59)
            continue
        dash = _dash_between(title, kind, texts)
        if dash is not None:
            return f"{title}{dash}{kind}", others[:k] + others[k + 1 :]
    return None


# "(2 months)", "(3 mois)", "(6 Monate)": how long, not what (the units _DURATION reads)
_HOW_LONG = _bracket_at_end(_DURATION.pattern, re.IGNORECASE)
# "ABC71 Sistemas (1 ano e" over "1 mês)": how long, cut by a line break after its first
# unit - the line below is read as a time spent and dropped (v21's zehguilherme, layout-51)
_HOW_LONG_CUT = re.compile(
    r"\s{0,2}[(（]\s{0,2}" + _DURATION_UNIT + r"\s?(?:,|and|&|und|et|y|e|i|en)\s{0,2}[)）]?\s{0,2}$", re.IGNORECASE
)
# "(CDI - 4 ans et 3 mois)", "(Alternance - 6 mois)", "(CDI –En poste)": a French CV's
# contract, and how long it ran, after a title - no part of it (layout-31; how long is taken
# out before). The English "(Freelance)", "(Full-time)" stay: the corpus labels keep them.
_CONTRACT_NOTE = _bracket_at_end(
    r"(?:cdi|cdd|stage|alternance|apprentissage|intérim|interim)"
    r"(?:\s{0,2}[-–—,:]\s{0,2}(?:" + _DURATION.pattern + r"|en poste|en cours))?",
    re.IGNORECASE,
)


def _whole_title_line(
    title: str, employer: str | None, location: str | None, groups: list[list[str]], texts: list[str]
) -> str:
    """The title's whole line when the employer is on another one: "Technology Consultant –
    Artificial Intelligence & Data Analytics" above "3.2020 – 8.2020  Lufthansa Industry
    Solutions AS GmbH" is one title, not a title and an employer (h44)."""
    own = next((g for g in groups if title in g), None)
    if own is None or employer is None or employer in own or employer.split(" / ")[0] in own:
        return title
    rest = [p for p in own if p not in (location,) and not is_place(p)]
    if len(rest) < 2 or any(_legal_named(p) for p in rest if p != title):
        return title
    # Only a dash joins a title and its topic; "Software Engineer, Equipo de Google Cloud"
    # (a comma) names the title and then the team.
    dashed = re.compile(re.escape(title) + r"\s[–—-]\s")
    if any(dashed.search(plain(t)) for t in texts):
        if _tools([p for p in rest if p != title]):
            return title  # "Summer Internship – Python, C#, Unity, Docker": the tools (as _less_stack)
        return " – ".join(rest)
    return ", ".join(rest) if _qualified(title, rest) else title


# A word of letters (and "&", "+", "#", "-": "R&D", "C++", "C#", "Full-stack"); a period or a
# slash ("Independiente/Autónomo.") makes it a name or an abbreviation's.
_ONE_WORD = re.compile(r"[^\W\d_][\w&+#-]{0,30}")


def _qualified(title: str, parts: list[str]) -> bool:
    """ "Software Engineer, Web", "Développeur Web Python, Perl", "Pianist, Organist": after
    the title, one word each - the post's field or a second post, not a team or an
    organisation (those take more words or an organisation's word); only read so when
    another line names the employer (h53)."""
    return (
        parts[0] == title
        and all(
            _ONE_WORD.fullmatch(p) is not None
            and not p.isupper()  # "Servicio Social, CEDETEC": an acronym names a unit or a company
            and not _legal_named(p)
            and not set(_words(p)) & (_ORG_WORDS | _INSTITUTION_WORDS)
            for p in parts[1:]
        )
    )


_TRAILING_BRACKET = re.compile(r"^(.{2,}?)\s{0,2}\(([^()]{2,60})\)$")


def _placed_name(text: str) -> bool:
    """A name with its place in brackets and nothing else ("Microsoft (Bellevue, Estados
    Unidos)"): an employer's line, not a title's (h44)."""
    return len(_place_in_brackets(text.strip())) == 2


def _placed_parts(text: str) -> list[str]:
    """A line's parts, a place in brackets after a name its own part."""
    return [q for p in _town_off_before_country(_parts(text)) for q in _place_in_brackets(p)]


def _place_in_brackets(part: str) -> list[str]:
    """ "Skyworks Inc (Mexicali, México)": the employer and its place (h44)."""
    m = _TRAILING_BRACKET.match(part)
    if m and is_place(m.group(2)) and not is_place(m.group(1)) and not is_place(part):
        return [m.group(1), m.group(2)]
    return [part]


# German schools are compounds: "Realschule", "Berufskolleg", "Fachhochschule" (h50).
_SCHOOL_SUFFIXES = ("schule", "kolleg", "gymnasium", "universität", "akademie")


def _school_named(part: str) -> bool:
    # "Universita’ degli studi": an Italian keyboard's accent typed as an apostrophe (stop 50)
    words = [_APOSTROPHE_ACCENT.get(w, w) for w in _words(part)]
    return (
        bool(set(words) & _INSTITUTION_WORDS)
        or any(len(w) > 8 and w.endswith(_SCHOOL_SUFFIXES) for w in words)
        or any(w in part for w in (*_CJK_SCHOOL_WORDS, "大學"))
    )


_APOSTROPHE_ACCENT = {"universita’": "università", "universita'": "università"}


def _split_school(texts: list[str]) -> tuple[str | None, str | None]:
    """(institution, degree) from an education entry's texts."""
    parts = [p for text in texts for p in _parts(text) if not is_place(p)]
    if not parts:
        return None, None
    inst_i = next((k for k, p in enumerate(parts) if _school_named(p)), None)
    if inst_i is None:
        return (parts[1], parts[0]) if len(parts) > 1 else (None, parts[0])
    degree = next((p for k, p in enumerate(parts) if k != inst_i), None)
    return parts[inst_i], degree


@dataclass
class Entry:
    """One structured entry and the lines it was read from."""

    value: dict[str, str | None]
    sources: list[Source]
    anchor: Source  # the line with the dates
    months: tuple[int, int] | None  # (first, last) month index, for years of experience


def _month_index(ym: YM, *, is_start: bool) -> int:
    year, month = ym
    if not month:  # year only: the middle of the year, so "2016 - 2020" reads as four years
        month = 7 if is_start else 6
    return year * 12 + month - 1


def _interval(dates: DateRange, now: int) -> tuple[int, int] | None:
    start = _month_index(dates.start, is_start=True)
    end = now if dates.end is None else _month_index(dates.end, is_start=False)
    if end < start and dates.end is not None and dates.end[0] == dates.start[0]:
        end = start + 5  # "2019 - 2019"
    end = min(end, now)
    if start > now or end < start or start < now - 12 * 60:
        return None
    return start, end


def _company_line(e: _Entry) -> tuple[str, str | None] | None:
    """The company an entry's line names when the line is a company's alone: one line, no
    part a title ("Beckhoff Automation LLC, Savage, Minnesota  Jun 2022 – Present"), and
    the place it names, if any."""
    if len(e.header) != 1 or e.anchor.bbox is None or e.dates.span[0] == 0:
        return None  # a date column's row ("1846–1847  Governess, Thornfield Hall") is a role
    # "Potbelly Sandwich Shop (Seattle, WA)  May 2015-Present": its place in brackets (layout-59)
    parts = _placed_parts(e.header[0][1])
    placed = [is_place(p) for p in parts]  # asked once a part: is_place is no free check
    named = [p for p, place in zip(parts, placed, strict=True) if not place]
    if not named or any(_title_score(p) > 0 for p in parts):
        return None
    places = [p for p, place in zip(parts, placed, strict=True) if place]
    return named[0], ", ".join(places) or None


def _post_alone(e: _Entry) -> bool:
    """The entry's dated line names a post and no employer ("Senior Technologist (Azure
    Cloud/DevOps Architect) | Mississauga, Canada | Apr 2022 to Present" under "Infosys
    Limited | Feb 2011 to Present", set flush with it): a role of the company line above
    (stop 50)."""
    own = [t for ln, t in e.header if ln is e.anchor]
    title, employer, _ = _split_job(own)
    return title is not None and employer is None and _title_score(title) > 0


def _within(inner: DateRange, outer: DateRange) -> bool:
    start_ok = (inner.start[0], inner.start[1] or 12) >= (outer.start[0], outer.start[1] or 1)
    if outer.end is None:
        return start_ok
    if inner.end is None:
        return False
    return start_ok and (inner.end[0], inner.end[1] or 1) <= (outer.end[0], outer.end[1] or 12)


def _nested_roles(entries: list[_Entry]) -> list[tuple[_Entry, str | None, str | None]]:
    """(entry, the employer it takes from a company line above it, if any, and the place
    that line names). A company's line with the span of all its roles, then each role on an
    indented line of its own with dates inside that span ("Associate Application Engineer,
    Los Angeles, CA, Jan 2024 – Present"): the company line is no role, and its name is each
    role's employer (h47); its place is where each role was, unless the role names its own
    ("Northwind Analytics (Cork, Ireland)  March 2019 - Present" over two posts: layout-61)."""
    out: list[tuple[_Entry, str | None, str | None]] = []
    i = 0
    while i < len(entries):
        e = entries[i]
        company_line = _company_line(e)
        company, company_place = company_line or (None, None)
        j = i + 1
        while company is not None and e.anchor.bbox is not None and j < len(entries):
            role = entries[j].anchor
            if not (
                role.bbox is not None
                # a company's roles may go on over the page (stop 50)
                and role.page is not None
                and e.anchor.page is not None
                and 0 <= role.page - e.anchor.page <= 1
                and (role.bbox[0] >= e.anchor.bbox[0] + 4 or _post_alone(entries[j]))
                and _within(entries[j].dates, e.dates)
            ):
                break
            j += 1
        if j == i + 1:
            out.append((e, e.company, None))
            i += 1
            continue
        out += [(r, company, company_place) for r in entries[i + 1 : j]]
        i = j
    return out


# "MacWorks SàRL (20-50%)": the share of a week the role took, a Swiss and German CV's
# habit - not part of the employer's name (h49); "(Full-time, 40 hours/week)", "(20 h/semaine)":
# the hours of a week, after a title (layout-42).
_WORKLOAD = _bracket_at_end(
    r"(?:\d{1,3}\s?%?\s?[-–]\s?)?\d{1,3}\s?%"
    r"|(?:[^()]{0,30},\s?)?\d{1,2}(?:[-–]\d{1,2})?\s?(?:hours?|hrs?|h|heures|stunden|std\.?|horas)"
    r"\s?(?:/|per|a|par|pro|por)\s?(?:week|wk|semaine|woche|semana)",
    re.IGNORECASE,
)


# "MyBeezBox (Management, Python, Django)": what the role used, in brackets after the
# employer - a list of three or more, not part of its name (a place in brackets was split
# off before: "Microsoft (Bellevue, Estados Unidos)") (h49).
_LISTED = _bracket_at_end(r"([^()]{2,80}(?:,[^(),]{1,40}){2,})")
# ... or of two single words ("Homeloc (Python, Django)"): two names one word each are a
# stack, where a place's two parts were split off before (layout-31)
_PAIR_LISTED = _bracket_at_end(r"([\w.+#-]{1,20}),\s?([\w.+#-]{1,20})")
# "Kritik (website)", "Round Pegs Inc. (US – remote - website)": what the employer's name
# linked to and where the work was, in brackets - no part of the name (layout-31)
_NOTE_BRACKET = _bracket_at_end(r"([^()]{2,60})")
_NOTE_WORDS = frozenset(
    {"website", "site", "web", "link", "remote", "hybrid", "onsite", "on-site", "homepage",
     # layout-62: "(Remoto – Australia)" (v24's daguirre)
     "remoto", "remota", "híbrido", "híbrida", "hibrido", "presencial", "télétravail", "hybride"}
)  # fmt: skip
# "Auth0 (US)": a country's code in capitals in the brackets after a house, where the work
# was (layout-43; its note "(US – remote - website)" split at its dashes). Only codes no
# field or team is written as: "(IT)", "(AI)", "(HR)", "(QA)" name work, not countries.
_COUNTRY_CODES = frozenset(
    {"US", "USA", "U.S.", "U.S.A.", "UK", "U.K.", "UAE", "EU", "DE", "FR", "NL", "CH", "AT", "BE", "BR", "CA", "AU",
     "NZ", "ES", "PT", "PL", "CZ", "SE", "NO", "DK", "FI", "IE", "JP", "CN", "KR", "SG", "MX", "AR", "TR", "IL"}
)  # fmt: skip


def _where_note(items: list[str]) -> bool:
    """A bracketed note's items say where and how the work was: a link word or a country's
    code among them, and nothing but those and places ("US – remote - website")."""
    noted = [p.casefold() in _NOTE_WORDS or p in _COUNTRY_CODES for p in items]
    return any(noted) and all(n or is_place(p) for n, p in zip(noted, items, strict=True))


# "Leadvisor Technology Inc. (startup company)", "上海领脉网络科技（初创公司）": what kind of
# house it is, in brackets after its name, lower-case - no part of the name (layout-72; the
# description rule above wants three words). "Devsisters (Studio Kingdom)" stays.
_HOUSE_KIND = re.compile(
    r"\s{0,2}[(（](?:[a-z][\w-]*\s){0,3}(?:company|firm|agency|start-?up|scale-?up|consultancy|business|"
    r"non-?profit|corporation)[)）]\s*$"
    r"|\s{0,2}[(（](?:初创公司|创业公司|初創公司|創業公司|外企|国企|上市公司|スタートアップ)[)）]\s*$"
)


def _less_street(employer: str) -> str:
    """ "Happytal, 59 Rue Pernety, 75014 Paris, France", "CERN, Route de Meyrin 385, 1217
    Meyrin (Switzerland)" under the title: the house's street address, from its first part
    that is one, is no part of its name (layout-72; v19's ahalsey, tpapini)."""
    parts = employer.split(", ")
    for k in range(1, min(len(parts), 8)):
        if _STREET_ADDRESS.search(parts[k]) or _STREET_FIRST.match(parts[k]):
            return ", ".join(parts[:k])
    return employer


# A French or Swiss street, its number first or last: "59 Rue Pernety", "12 bis, avenue
# Foch", "Route de Meyrin 385" (_STREET_ADDRESS has the German, English and Latin forms).
_STREET_FIRST = re.compile(
    r"\d{1,4}(?:\s?(?:bis|ter))?,?\s(?i:rue|avenue|av\.|boulevard|bd\.?|route|chemin|allée|place|quai|impasse|"
    r"cours)\s"
    r"|(?i:route|chemin|rue|avenue|allée|quai)\s(?:(?:de|du|des|la|d['’])\s?){0,2}[A-ZÀ-Ý][\w'’-]+(?:\s[A-ZÀ-Ý][\w'’-]+)?"
    r"\s\d{1,4}[a-z]?$"
)


def _less_note(employer: str | None) -> str | None:
    """The employer less a bracketed note of a link and a place, or of a two-word stack; less
    a note of what kind of house it is, and its street address."""
    if not employer:
        return employer
    employer = _less_street(_HOUSE_KIND.sub("", employer) or employer)
    m = _NOTE_BRACKET.search(employer)
    if m and m.start() > 0:
        items = [p.strip(" .") for p in re.split(r"\s[-–—/·]\s|,\s?", m.group(1)) if p.strip(" .")]
        if _where_note(items):
            return employer[: m.start()].rstrip()
    pair = _PAIR_LISTED.search(employer)
    if pair and pair.start() > 0 and not any(is_place(p) for p in pair.groups()):
        return employer[: pair.start()].rstrip()
    return employer


_SPACED_DASH = re.compile(r"\s[-–—]\s")
# glued to the title only: "Full Stack Developer (Django / React)" set apart is the title as
# written (kassimi's labels keep it; docs/extraction.md, layout-59)
_STACK_BRACKET = re.compile(r"(?<=[^\s(])\(([^()]{2,80})\)\s*$")


# "Java/ JavaScript Developer." (a Google Docs CV's post line ended as a sentence; v24's
# cardoli): the full stop is no part of the post. Not an abbreviation's ("Sr.", "Corp.").
_FULL_STOP = re.compile(r"(?<=[^\W\d_]{4})\.$")


def _less_stop(title: str | None) -> str | None:
    if not title or not _FULL_STOP.search(title) or _LEGAL_FORM.fullmatch(title.split()[-1]):
        return title
    return title[:-1]


def _less_stack(title: str | None) -> str | None:
    """ "Summer Internship – Python, C#, Unity, Docker": the title less the tools its role
    used, listed after a spaced dash (two or more, most of them known skills; v13) - or in
    brackets glued to its end, by commas or slashes: "Full-Stack Engineer(Golang/JS)",
    "Database Kernel R&D(Golang/Rust)" (layout-72)."""
    if not title:
        return title
    bracket = _STACK_BRACKET.search(title)
    if bracket is not None and bracket.start() > 0:
        items = [p.strip(" .") for p in re.split(r"[,/]", bracket.group(1)) if p.strip(" .")]
        if _tools(items):
            return title[: bracket.start()].rstrip()
    dashes = list(_SPACED_DASH.finditer(title))
    if not dashes or dashes[-1].start() == 0:
        return title
    items = [p.strip(" .") for p in title[dashes[-1].end() :].split(",") if p.strip(" .")]
    return title[: dashes[-1].start()].rstrip() if _tools(items) else title


def _tools(items: list[str]) -> bool:
    """Two or more items, most of them (two in three) skills the taxonomy knows: a role's
    stack, not words of its title."""
    return len(items) >= 2 and 3 * sum(p.casefold() in lex.skills() for p in items) >= 2 * len(items)


def _less_tail(tail: re.Pattern[str], text: str | None) -> str | None:
    """The text less a trailing note (_WORKLOAD, _LISTED); the text as it was if that is all."""
    return tail.sub("", text) or text if text else text


# -- LinkedIn's profile export ----------------------------------------------------------------------
# LinkedIn's "Save to PDF" sets every role by type size alone, with no bullet or separator:
# the company (12 pt), under it the time spent there when it lists several roles ("5 years
# 4 months"), each role's title (11.5 pt), its dates with the time they span ("April 2016 -
# May 2018 (2 years 2 months)"), its place and its description (10.5 pt). The general
# reader took a place line for the next role's house ("Islāmābād"), a role's last
# description line for the house of the role under it ("Website: https://..."), and split
# "Quality Control - POI Data Validation" at its dash (layout-51, held-out v21's five
# exports read as development). In an export whose sizes show that order, each dated line's
# title is the larger line above it and its company the nearest still larger line; one
# dated line that does not fit (a scan's OCR sizes, an edited export) leaves the whole
# section to the general reader.
_TIME_SPANNED = re.compile(r"\s{0,2}[(（][^()（）]{1,30}[)）]\s{0,2}")


def _step(line: Line) -> float:
    """The line's type size to the half point: LinkedIn's sizes (10.5, 11.5, 12, 13, 15.8,
    26) stay apart, and a text layer's rounding noise does not."""
    return round(line.size * 2) / 2


def _linkedin_dates(text: str) -> DateRange | None:
    ranges = date_ranges(text) if len(text) <= 80 else []
    if len(ranges) != 1:
        return None
    start, end = ranges[0].span
    return ranges[0] if not text[:start].strip() and _TIME_SPANNED.fullmatch(text[end:]) else None


def _sized_run(body: list[Line], k: int, dated: list[DateRange | None]) -> list[Line]:
    """Line k with the undated line of its size right above it (a title or a company wrapped
    over two lines), in reading order; `dated` is each line's dates (_linkedin_dates)."""
    if k > 0 and _step(body[k - 1]) == _step(body[k]) and not dated[k - 1]:
        return [body[k - 1], body[k]]
    return [body[k]]


def _larger_above(body: list[Line]) -> list[int | None]:
    """For each line, the nearest line above it set larger: one pass with a stack (each
    line pushed and popped once), so a hostile section of many dated lines stays linear."""
    out: list[int | None] = []
    stack: list[int] = []
    for k, line in enumerate(body):
        while stack and _step(body[stack[-1]]) <= _step(line):
            stack.pop()
        out.append(stack[-1] if stack else None)
        stack.append(k)
    return out


def _export_body(lines: list[Line], section: str) -> list[Line] | None:
    """A LinkedIn export's section lines under its heading, page footers left out; None
    for any other document."""
    if not linkedin_export(lines):
        return None
    return [
        ln for ln in lines if ln.section == section and not ln.heading and not _PAGE_FOOTER.fullmatch(ln.text.strip())
    ]


def _linkedin_roles(lines: list[Line], now: int) -> list[Entry] | None:
    """The export's roles read by type size; None when it is no export or its sizes do not
    show that order."""
    body = _export_body(lines, "experience")
    if body is None:
        return None
    larger = _larger_above(body)
    dated = [_linkedin_dates(ln.text) for ln in body]  # once per line: the title runs look back at them
    out: list[Entry] = []
    for k, (line, dates) in enumerate(zip(body, dated, strict=True)):
        if dates is None:
            continue
        if k == 0 or _step(body[k - 1]) <= _step(line):
            return None
        title_lines = _sized_run(body, k - 1, dated)
        house = larger[k - len(title_lines)]
        if house is None:
            return None
        company_lines = _sized_run(body, house, dated)
        title = " ".join(ln.text.strip() for ln in title_lines)
        employer = " ".join(ln.text.strip() for ln in company_lines)
        nxt = body[k + 1] if k + 1 < len(body) else None
        location = nxt.text.strip() if nxt is not None and _step(nxt) <= _step(line) and is_place(nxt.text) else None
        if _studies(title, employer) or _volunteering(title):
            continue
        value: dict[str, str | None] = {
            "employer": employer,
            "title": title,
            "location": location,
            "start": ym_text(dates.start),
            "end": ym_text(dates.end),
        }
        sources = [ln.source("work_history.linkedin", ln.text) for ln in company_lines + title_lines]
        out.append(Entry(value, sources, line.source("work_history.dates"), _interval(dates, now)))
    return out or None


def work_history(lines: list[Line], as_of: date) -> list[Entry]:
    """{employer, title, location, start, end} per role of the experience section."""
    now = as_of.year * 12 + as_of.month - 1
    exported = _linkedin_roles(lines, now)
    if exported is not None:
        return _once(exported)
    out = []
    # A CV with no experience heading at all (its roles open the page: agonzalezro's) has
    # its roles at the top (layout-6).
    section = "experience" if any(ln.heading == "experience" for ln in lines) else "top"
    styled: list[tuple[_Entry, str | None, str | None]] = []
    body = _section_body(lines, section)
    nested = _nested_roles(_entries(body, section))
    if not nested and section == "experience":
        # "Work History" read first, its sidebar's heading out of its column, and the roles
        # left at the top with no heading above them (v21's roneil, Resume Builder): a dated
        # role nowhere under the heading is looked for at the top (layout-68)
        section = "top"
        body = _section_body(lines, section)
        nested = _nested_roles(_entries(body, section))
    employer_rows = _employer_rows(body, {ln.n for e, _, _ in nested for ln, _ in e.header})
    previous: tuple[_Entry, str | None] | None = None
    for k, (e, company, company_place) in enumerate(nested):
        if e.whole_title:
            below_title, employer, location = _split_job([t for _, t in e.header[1:]])
            parts = _parts(e.header[0][1])
            own = [p for p in parts if not is_place(p)]
            whole = plain(e.header[0][1]).strip(" ,;:|()[]–—-·•")
            title = (whole if len(own) == len(parts) else ", ".join(own)) or below_title
        else:
            title, employer, location = _split_job([t for _, t in e.header])
        if company is not None:
            # Under its company's line a role is read from its own dated line ("Industrial
            # Automation Engineering Internship, Houston, TX, Jun 2022 – Aug 2022", not the
            # bullet above it), and its one named part is its title, not an employer.
            own = [t for ln, t in e.header if ln is e.anchor or (e.company is not None and ln.n < e.anchor.n)]
            role_title, role_employer, role_location = _split_job(own)
            if role_title or role_employer:
                title, location = role_title or role_employer, role_location
            else:
                title = title or employer
            employer, location = company, location or company_place
        if (
            _studies(title, employer)
            or _volunteering(title)
            or _summary_row(title, employer)
            or _group_heading(e, title, employer, itertools.islice(nested, k + 1, None))
        ):
            continue
        house = None
        if employer is None and title is not None and company is None:
            row = _employer_row_above(e.anchor, employer_rows)
            # "Freelance Web Developer" under two roles at houses: working for oneself, at
            # no house of the role above (v28's sbrumbaugh, layout-72)
            freelance = _self_employed_title(title)
            house = None if row or freelance else _same_house(e, previous)
            employer = row or house or employer
        # A third role at the same house is compared with the role under the house's own
        # line, not with the second, whose header holds no employer line (v16)
        previous = previous if house is not None else (e, employer)
        value: dict[str, str | None] = {
            "employer": _capital_i(
                _less_note(
                    _less_tail(
                        _LISTED, _less_tail(_WORKLOAD, _less_tail(_HOW_LONG, _less_tail(_HOW_LONG_CUT, employer)))
                    )
                )
            ),
            # "Ingénieur Test Automation (3 ans)": how long the post lasted is no part of it (h50)
            "title": _capital_i(_less_tail(_CONTRACT_NOTE, _less_tail(_WORKLOAD, _less_tail(_HOW_LONG, title)))),
            "location": location,
            "start": ym_text(e.dates.start),
            "end": ym_text(e.dates.end),
        }
        sources = [ln.source("work_history.entry", ln.text) for ln, _ in e.header]
        out.append(Entry(value, sources, e.anchor.source("work_history.dates"), _interval(e.dates, now)))
        styled.append((e, title, employer))
    _by_house_style(out, styled, ("title", "employer"))
    for entry in out:  # after the house style, which may read a title out of its line again
        entry.value["title"] = _less_stop(_less_stack(entry.value["title"]))
    return _once(out)


def _once(entries: list[Entry]) -> list[Entry]:
    """Each entry once: an OCR'd page read twice over (a band of it read again; a landscape
    page scanned onto A4 - luisenmarroquin's) gives every role twice, word for word and date
    for date. The same post with the same dates is one post (layout-38)."""
    seen: set[tuple[str | None, ...]] = set()
    out = []
    for entry in entries:
        key = tuple(entry.value.values())
        if key not in seen:
            seen.add(key)
            out.append(entry)
    return out


# "DiRECTOR OF ENGiNEERiNG": Awesome-CV's small capitals come out of the text layer with a
# lower-case "i" inside capitals. A text whose only lower-case letter is "i" is all
# capitals ("iOS Developer" and "HiFi Audio" have others and stay).
_SMALL_CAPS_I = re.compile(r"\b(?=\w*[A-Z]\w*[A-Z])[A-Z]*i[A-Zi]*\b")


def _capital_i(text: str | None) -> str | None:
    if not text or "i" not in text or any(ch.islower() and ch != "i" for ch in text):
        return text
    return _SMALL_CAPS_I.sub(lambda m: m.group(0).upper() if len(m.group(0)) >= 4 else m.group(0), text)


def _self_employed_title(title: str) -> bool:
    words = re.findall(r"[\w'-]+", title.casefold())
    return any(w in _SELF_EMPLOYED for w in words)


def _same_house(e: _Entry, previous: tuple[_Entry, str | None] | None) -> str | None:
    """The employer of the role above when it stood on a line of its own over that role's
    dated line, and this role's dated line is set as that one was: a second role at the
    same house ("Codesa" / "Technical Lead | Jul 2024- Present" / bullets / "Backend
    Developer | Jul 2023 - Present"), which names no employer of its own (layout-33)."""
    above, employer = previous if previous is not None else (None, None)
    if above is None or employer is None:
        return None
    # the house's line alone, or with its place ("SOLARILLION FOUNDATION | Chennai, India": v16)
    own_line = any(ln.n < above.anchor.n and _house_line(t, employer) for ln, t in above.header)
    if not own_line or above.anchor.bbox is None or e.anchor.bbox is None:
        return None
    # set flush left, or flush right as a date column is ("June 2020 – October 2020" over
    # "August 2018 – June 2020": their left edges differ by the text's width; layout-42)
    flush = abs(above.anchor.bbox[0] - e.anchor.bbox[0]) <= 2 or abs(above.anchor.bbox[2] - e.anchor.bbox[2]) <= 2
    aligned = flush and abs(above.anchor.size - e.anchor.size) <= 0.3
    # one row: the dated line alone, or with the title its dates stand level with
    one_row = all(ln is e.anchor or _same_row(ln, e.anchor) for ln, _ in e.header)
    return employer if aligned and (one_row or _shaped_as_below_house(e, above, employer)) else None


def _shaped_as_below_house(e: _Entry, above: _Entry, employer: str) -> bool:
    """Whether the role's lines are set as the role above's lines under its house's line
    were, line for line: "SimpliSafe, Boston MA" / "Senior DevOps Engineer" / "June 2025 -
    Present" / bullets / "IT Infrastructure Engineer" / "April 2023 - June 2025" - the
    second role names no house of its own (v21's jwhite)."""
    rest = [ln for ln, t in above.header if not (ln.n < above.anchor.n and _house_line(t, employer))]
    mine = [ln for ln, _ in e.header]
    return (
        len(mine) >= 2
        and len(rest) == len(mine)
        and all(
            a.bbox is not None
            and b.bbox is not None
            and abs(a.bbox[0] - b.bbox[0]) <= 2
            and abs(a.size - b.size) <= 0.3
            for a, b in zip(rest, mine, strict=True)
        )
    )


def _house_line(text: str, employer: str) -> bool:
    """The line names the employer and nothing else but places."""
    if text.strip() == employer:
        return True
    parts = _placed_parts(text)
    return employer in parts and all(p == employer or is_place(p) for p in parts)


def _employer_rows(body: list[Line], used: set[int]) -> list[tuple[Line, str]]:
    """(line, organisation) of each "Organisation  City" row of the section that no entry
    took as its header: an employer's own line over its roles, a description between
    ("Auburn University: Campus Web Solutions  Auburn, AL" / "CWS is a software development
    unit ..." / "Associate Systems Engineer / Technical Lead  Jan 2023 - Present")."""
    out = []
    for line in body:
        if not line.place_row or line.n in used:
            continue
        named = [p for p in _placed_parts(line.text) if not is_place(p)]
        if len(named) == 1 and _title_score(named[0]) <= 0 and not date_ranges(line.text):
            out.append((line, named[0]))
    return out


def _employer_row_above(anchor: Line, rows: list[tuple[Line, str]]) -> str | None:
    """The organisation of the nearest employer row above a role that names none (layout-31);
    rows in reading order."""
    k = bisect.bisect_left(rows, anchor.n, key=lambda row: row[0].n)
    return rows[k - 1][1] if k else None


def _group_heading(
    e: _Entry, title: str | None, employer: str | None, after: Iterable[tuple[_Entry, str | None, str | None]]
) -> bool:
    """ "Additional Experience" over "2008–2024", then the roles of those years: a heading
    of a group of roles with the span of all of them, not a role - its span counted as
    years ran them together (layout-31)."""
    return (
        employer is None
        and title is not None
        and heading_kind(title) is not None
        and any(_within(later.dates, e.dates) for later, _, _ in after)
    )


_STUDENT_WORDS = frozenset(
    {"student", "studentin", "schüler", "schülerin", "étudiant", "étudiante", "estudiante", "estudante", "studente",
     "studentessa", "pupil"}
)  # fmt: skip


_VOLUNTEER = re.compile(
    r"(?<![^\W\d_])(?:volunteer|bénévole|benevole|voluntari[oa]|voluntário|voluntária|ehrenamtlich\w*)(?![^\W\d_])"
    r"|志愿者|志願者|志工",  # layout-41: Chinese is not spaced, no word boundary to look for
    re.IGNORECASE,
)


# "Earlier Career (2000 – 2010)", "Previous commercial experience", "Carrera temprana": a row
# that sums up older posts in a sentence below it (an HTML CV's, jcubic's), no post itself
# (layout-44; oramirez's labels list no such row - jcubic's count its years)
_SUMMARY_ROW = re.compile(
    r"(?i:(?:earlier|previous|prior|other|older|additional|further)\s(?:commercial\s|professional\s|work\s)?"
    r"(?:career|experiences?|positions|roles|employment|jobs)|carrera temprana|experiencias? (?:previas?|anteriores)|"
    r"otras experiencias|expériences? antérieures?|autres expériences|frühere (?:tätigkeiten|stationen)|"
    r"experiências anteriores|outras experiências|wcześniejsze doświadczenie(?: komercyjne)?)"
)


def _summary_row(title: str | None, employer: str | None) -> bool:
    return employer is None and title is not None and _SUMMARY_ROW.fullmatch(title.strip(" :")) is not None


def _volunteering(title: str | None) -> bool:
    """ "Student Volunteer, ICFP 2024" (waterlens's): unpaid help, no employment - the labels
    keep no volunteering in work history (the brief's convention). A career break dated
    among the posts ("Career Break for Advanced Training", "Pausa Profesional para
    Formación", v20's acastets) is no employment either (layout-48), nor a company's online
    job simulation ("Software Engineering Virtual Experience Program", a Forage course:
    v21's kmanna, layout-51)."""
    return title is not None and any(p.search(title) for p in (_VOLUNTEER, _CAREER_BREAK, _SIMULATION))


_CAREER_BREAK = re.compile(
    r"\b(?:career break|sabbatical|pausa profesional|pausa na carreira|pausa de carrera|pausa profissional"
    r"|berufliche auszeit|parental leave|congé parental|elternzeit|année sabbatique)\b",
    re.IGNORECASE,
)
_SIMULATION = re.compile(r"\b(?:virtual (?:work )?experience program(?:me)?|job simulation)\b", re.IGNORECASE)


# A grade or a degree in an entry's header: "Computer Science / B.S. / GPA 3.65" under "Work &
# Education" is a degree studied (layout-42); a doctorate is left out - a PhD post is a job.
_DEGREE_OR_GRADE = re.compile(
    r"\bGPA\b|(?<![\w.])[BM]\.\s?(?:S|Sc|A|Eng)\.(?!\w)|\b(?:Bachelor|Master)(?:['’]s)?\s(?:of|in|degree)\b"
    r"|学士|硕士|本科|學士|碩士"
)


def _studies(title: str | None, employer: str | None) -> bool:
    """ "Student" at "Full Stack Web Developer Schule" under the experience heading: a
    student at a school is studying, not employed (h51). A student post with more words
    ("Student assistant", "Werkstudent") is a job. A header naming a degree or a grade is
    studies too (_DEGREE_OR_GRADE)."""
    if any(_DEGREE_OR_GRADE.search(text) for text in (title, employer) if text):
        return True
    subject = _SUBJECT_STUDENT.fullmatch(title.strip(" .,")) if title else None
    if subject is not None and _title_score(subject.group(1)) <= 0 and not _WORKING.search(subject.group(1)):
        return True
    return bool(title and employer and title.strip(" .,").casefold() in _STUDENT_WORDS and _school_named(employer))


# "Software Engineering Student" at "42 Luanda" (v20's ahamuyel): a subject's student is
# studying, whatever the school's name says (layout-48). A doctoral student holds a post
# (_DEGREE_OR_GRADE's note), and a working student a job.
_SUBJECT_STUDENT = re.compile(
    r"(?i:(?!(?:ph\.?\s?d|doctoral|doctorate|working|graduate|research)\b)((?:[^\W\d_][\w&.-]*\s){1,4})student)"
)
# "Data Analyst Working Student" is a post: a title word or "working" before "student"
_WORKING = re.compile(r"(?i:\bworking\b|werk)")


# A CV sets every role's title in one style and its employer in another (bold and italic,
# say: 59% of development entries differ so, docs/extraction.md). Where most entries whose
# two parts were told apart by words agree on which style is the title's, every entry whose
# header is two stretches in those styles is read by them: the right way round where the
# words had it the wrong way, and whole where the words split a name at a dash.
MIN_STYLED_ENTRIES = 2
STYLE_AGREEMENT = 0.6


def _part_style(e: _Entry, part: str | None) -> int | None:
    if not part:
        return None
    for line, _ in e.header:
        at = line.text.find(part)
        if at >= 0:
            return style_of(line, at, at + len(part))
    return None


_SEGMENT_EDGES = " ,;:|–—-·•@/"
_LONE_STOP = re.compile(r"\s+\.$")


def _unbracketed(text: str) -> str:
    """Without a bracket at an end that opens or closes nothing inside ("(2019" / "Globex)"),
    keeping a name's own ("CodeSee (exited to GitKraken)")."""
    while text[:1] in "([" and text.count(")") + text.count("]") < text.count("(") + text.count("["):
        text = text[1:].strip(_SEGMENT_EDGES)
    while text[-1:] in ")]" and text.count(")") + text.count("]") > text.count("(") + text.count("["):
        text = text[:-1].strip(_SEGMENT_EDGES)
    return text


def _style_segments(e: _Entry) -> tuple[dict[int, str], str | None] | None:
    """The entry's header as its two named stretches of different styles ({style: text}),
    dates and places left out (a place is returned beside them); None unless the header
    is exactly that."""
    named: dict[int, str] = {}
    place = None
    for line, _ in e.header:
        if line.runs is None:
            return None
        stretches: list[tuple[int, str]] = []
        begin = 0
        for end, style, _ in line.runs:
            piece = line.text[begin:end]
            begin = end
            if stretches and stretches[-1][0] == style:
                stretches[-1] = (style, stretches[-1][1] + piece)
            else:
                stretches.append((style, piece))
        for style, piece in stretches:
            text = _unbracketed(_without_all(piece, date_ranges(piece)).strip(_SEGMENT_EDGES))
            # "at Optimiz.me since june 2020." in its own style: the house is what follows
            # "at", and the sentence's stop went with the dates (layout-48, v20's arousseau)
            text = _LEADING_AT.sub("", _LONE_STOP.sub("", text))
            # "Cargo: Desenvolvedor Front-end" in one style: the label is no part of the post
            # (layout-51, v21's zehguilherme; the words' reading had left it out already)
            text = _ENTRY_LABEL.sub("", text)
            if not any(ch.isalpha() for ch in text):
                continue
            if _YEAR.search(text):
                return None  # a date the range reader did not take ("2016 / 09 - ..."): unsure
            parts = _placed_parts(text)
            if not parts:
                continue
            places = [p for p in parts if is_place(p)]
            if places:
                place = place or places[0]
                text = ", ".join(p for p in parts if not is_place(p))
                if not text:
                    continue  # the stretch is a place only
            if style in named or len(text) > MAX_HEADER_CHARS or text.count("(") != text.count(")"):
                return None  # (a bracket closed in another style: the stretch is not the whole name)
            named[style] = text
    return (named, place) if len(named) == 2 else None


def _within_segment(value: str, segment: str) -> bool:
    """The words' reading is a comma part of the stretch or the stretch less an aside in
    brackets: "Software Engineer" of "Software Engineer, Equipo de Google Cloud" (a comma
    names the title and then its team, _whole_title_line), "Skyworks Inc" of "Skyworks Inc
    (Mexicali)"."""
    if value == segment:
        return False
    if value in (p.strip() for p in segment.split(",")):
        return True
    return segment.startswith(value) and bool(re.fullmatch(r"\s*\([^()]*\)", segment[len(value) :]))


def _less_contract(employer: str) -> str:
    """ "Addiction Treatment Center | Internship" in the house's style: the contract is no
    part of the house (v28's mmamdoh, layout-72) - while a named part is left."""
    parts = _parts(employer)
    kept = [p for p in parts if not _CONTRACT_PART.fullmatch(_bare(p))]
    return ", ".join(kept) if kept and len(kept) < len(parts) else employer


def _by_house_style(
    out: list[Entry], styled: list[tuple[_Entry, str | None, str | None]], keys: tuple[str, str]
) -> None:
    """Read each entry's two ``keys`` by the CV's house style where its header is two
    stretches in the house's two styles: whole, and the right way round."""
    pairs = [(_part_style(e, first), _part_style(e, second)) for e, first, second in styled]
    told = Counter((t, m) for t, m in pairs if t is not None and m is not None and t != m)
    if not told:
        return
    (first_style, second_style), agree = told.most_common(1)[0]
    if agree < MIN_STYLED_ENTRIES or agree <= STYLE_AGREEMENT * sum(told.values()):
        return
    one, other = keys
    for entry, (e, _, _) in zip(out, styled, strict=True):
        found = _style_segments(e)
        if found is None or set(found[0]) != {first_style, second_style}:
            continue
        named, place = found
        for key, style in ((one, first_style), (other, second_style)):
            current = entry.value[key]
            # "Software Engineer, Equipo de Google Cloud": a comma names the title and then
            # its team, which the words' reading had already left out (_whole_title_line).
            if current is None or not _within_segment(current, named[style]):
                entry.value[key] = named[style] if key != "employer" else _less_contract(named[style])
        if "location" in entry.value and place and not entry.value["location"]:
            entry.value["location"] = place


# The export's schools: each school at 12 pt, under it at 10.5 pt its degree and field with
# the years after a middle dot ("Bachelor of Science, Computer Science · (2015 - 2019)"),
# wrapped when long, or no years at all. The general reader took the degree line's field
# for the institution ("Computer Science", stop 62's newcomer check) and read one school
# with the next one's degree (v21's aravi); layout-54 reads the export's schools by size as
# its roles. A section whose sizes do not show that order is the general reader's.
_SCHOOL_YEARS = re.compile(r"\s{0,2}·\s{0,2}[(（]([^()（）]{1,40})[)）]\s{0,2}$")
_SCHOOL_LINES = 4  # a degree line wraps once or twice; more under one school is no export's


def _linkedin_school(school: Line, under: list[Line]) -> Entry:
    text = " ".join(ln.text.strip() for ln in under)
    years = _SCHOOL_YEARS.search(text)
    dates = None
    if years is not None:
        found = date_ranges(years.group(1))
        dates = found[0] if found else single_date(years.group(1))
        text = text[: years.start()]
    value: dict[str, str | None] = {
        "institution": school.text.strip(),
        "degree": text.strip(" ,") or None,
        "start": ym_text(dates.start) if dates else None,
        "end": ym_text(dates.end) if dates else None,
    }
    sources = [ln.source("education.linkedin", ln.text) for ln in [school, *under]]
    return Entry(value, sources, (under[-1] if under else school).source("education.dates"), None)


def _linkedin_schools(lines: list[Line]) -> list[Entry] | None:
    """The export's schools read by type size; None when it is no export or its sizes do not
    show that order."""
    body = _export_body(lines, "education")
    if not body or _step(body[0]) <= min(_step(ln) for ln in body):
        return None  # no school line larger than its degree lines first
    groups: list[tuple[Line, list[Line]]] = []
    for line in body:
        if _step(line) == _step(body[0]):
            groups.append((line, []))
        elif _step(line) < _step(body[0]) and len(groups[-1][1]) < _SCHOOL_LINES:
            groups[-1][1].append(line)
        else:
            return None
    return [_linkedin_school(school, under) for school, under in groups]


def education_entries(lines: list[Line]) -> list[Entry]:
    """{institution, degree, start, end} per dated entry of the education section; a section
    with no dates at all ("MSc Data Science, University of Manchester") gives one entry per
    line naming an institution, with no dates."""
    exported = _linkedin_schools(lines)
    if exported is not None:
        return exported
    out = []
    styled: list[tuple[_Entry, str | None, str | None]] = []
    for e in _entries(_section_body(lines, "education"), "education"):
        institution, degree = _split_school([t for _, t in e.header])
        value: dict[str, str | None] = {
            "institution": institution,
            "degree": degree,
            "start": ym_text(e.dates.start),
            "end": ym_text(e.dates.end),
        }
        out.append(
            Entry(
                value,
                [ln.source("education.entry", ln.text) for ln, _ in e.header],
                e.anchor.source("education.dates"),
                None,
            )
        )
        styled.append((e, degree, institution))
    if out:
        _by_house_style(out, styled, ("degree", "institution"))
        return _once(out)
    for line in lines:
        if line.section != "education" or line.heading or not _is_header(line) or len(out) >= 10:
            continue
        institution, degree = _split_school([line.text])
        if institution is not None:
            value = {"institution": institution, "degree": degree, "start": None, "end": None}
            out.append(Entry(value, [line.source("education.entry")], line.source("education.entry"), None))
    return out


def years_from(entries: list[Entry]) -> tuple[float, list[Source]] | None:
    """Years of experience: the union of the entries' month ranges (overlaps merged, both
    ends inclusive), with the anchor line of each entry that counted."""
    counted = [(e.months, e) for e in entries if e.months is not None]
    if not counted:
        return None
    total = months_in_union([m for m, _ in counted if m is not None])
    sources = []
    for _, entry in counted[:10]:
        v = entry.value
        label = " · ".join(x for x in (v["title"], v["employer"], f"{v['start']} – {v['end']}") if x)
        src = entry.anchor
        sources.append(
            Source(text=label[:500], rule="years.work_history", page=src.page, bbox=src.bbox, part=src.part,
                   index=src.index)
        )  # fmt: skip
    return round(total / 12, 1), sources
