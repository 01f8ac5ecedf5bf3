"""A parse answer as lines in reading order, each with where it came from and its section.

Schema 2 answers give PDF/scan lines with boxes and font sizes and DOCX elements with
part/index/style; schema 1 answers (accepted for one release) fall back to block text,
DOCX paragraphs and table rows, or plain text lines.
"""

# ruff: noqa: RUF001 (CV text has typographic dashes, quotes and colons: the rules must read them)

from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import re
import statistics
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from ats.extraction import _lexicon as lex
from ats.extraction._lexicon import HEADINGS
from ats.extraction.data import Source

# Bounds that keep every rule linear in the input: CV lines are short, so rules read at
# most this much of a line and this many lines (emails and phones scan the whole text).
MAX_LINE_CHARS = 2000
MAX_LINES = 5000

_HEADING_KIND = {name: kind for kind, names in HEADINGS.items() for name in names}
_HEADING_STRIP = re.compile(r"^[\W\d_]{0,8}|[\W_]{0,8}$")
# A heading's icon read by OCR as a letter or two and a bracket: "Ii) ", "ś-)".
_ICON_PREFIX = re.compile(r"\S{1,3}[)\]]\s{0,2}(?=[^\W\d_])")
_LETTER_ICON = re.compile(r"[A-Z]\s{1,2}(?=[^\W\d_]{3})")
# A Chinese heading's icon as OCR read it: one Han character glued before it ("念教育经历",
# "党工作经历", "好技能") or a letter and a space ("i 杂项") - the whole line a heading's length.
_HAN_RANGE = "\u3400-\u4dbf\u4e00-\u9fff"  # Han characters (CJK Unified Ideographs and Extension A)
_HAN_ICON = re.compile(f"(?:[{_HAN_RANGE}]|[^\\W\\d_]\\s{{1,2}})(?=[{_HAN_RANGE}]{{2,6}}$)")
_HEADING_SPLIT = re.compile(r"\s{0,3}(?:&|/|,|\+|\band\b|\bund\b|\bet\b|\by\b|\be\b|\ben\b|\bi\b)\s{0,3}")
# A word that narrows a heading without changing its section.
_HEADING_MODIFIERS = frozenset(
    {"selected", "key", "recent", "notable", "featured", "major", "personal", "side", "additional", "further",
     "relevant", "ausgewählte", "weitere", "wichtige", "relevante",
     # h44: "Berufliche Erfahrung", "Praktische Erfahrung", "Research Experience"
     "berufliche", "beruflicher", "praktische", "praktischer", "professional", "technical", "technische",
     "academic", "akademische", "industry",
     # stop 50: "Latest Professional Experience", "Top Skills"
     "latest", "previous", "earlier", "past", "current", "top",
     # v15: "Deep Expertise", "Core Expertise", "Main Skills"
     "core", "deep", "main", "primary",
     # layout-51: LinkedIn's export in Portuguese, Spanish, French ("Principais competências")
     "principais", "principales", "principaux",
     # layout-62: "Career Objective" set larger than the name above it (v24's abringhurst)
     "career"}
)  # fmt: skip
_DOT_LEADER = re.compile(r"(?:\s?\.){4,}\s*$")
# A rule drawn after a heading, as OCR reads it: "WORK EXPERIENCE ~~~M" (Europass's rule and
# the letter its end was read as), "Honors & Awards — — — —" (layout-38). Two rule characters
# at least: "Skills - IT" keeps its words.
_RULE_CHARS = "~_=—–―-"
_RULE_AFTER = re.compile(rf"(?:\s+[{re.escape(_RULE_CHARS)}]+){{1,8}}[^\s{re.escape(_RULE_CHARS)}]{{0,2}}$")
# The rule typed straight after the heading's last letter, "Skills______...": four rule
# characters at least, so a hyphenated word ("E-Mail", "Full-Stack") keeps its letters
# (v22's felipemiotto, a Google Docs CV; layout-56).
_RULE_GLUED = re.compile(rf"(?<=[^\W\d_])[{re.escape(_RULE_CHARS)}]{{4,}}[^\s{re.escape(_RULE_CHARS)}]{{0,2}}$")
_LABEL = re.compile(r"^\s{0,4}([^\W\d_][^:：]{0,40}?)\s{0,3}[:：]\s{0,3}(\S.*)$")


@dataclass(slots=True)
class Line:
    """One line of the document as the rules see it."""

    text: str
    n: int  # reading order
    page: int | None = None
    bbox: tuple[float, float, float, float] | None = None
    part: str | None = None
    index: int | None = None
    size: float = 0.0
    style: str | None = None
    label: str | None = None  # the label cell before this cell in a table row ("E-Mail")
    section: str = "top"
    heading: str | None = None  # the section this line opens, if it is a heading
    # A DOCX line's box on the viewer's laid-out page (the answer's element `at`): only for
    # its provenance - the rules never see it, so a DOCX reads exactly as before.
    shown: tuple[int, tuple[float, float, float, float]] | None = None
    # Dates set flush right level with an entry's first bullet (rendercv), joined to it:
    # the bullet is the entry's description, not its "Title, Employer".
    dates_beside_bullet: bool = False
    # An entry header with its place read onto it ("Globex" + "London, UK": _history).
    place_row: bool = False
    # A date column's cell joined with the text right of it ("2016  DevOps Engineer, ..."):
    # the row opens an entry, and the lines above it are the previous entry's (layout-12).
    date_column: bool = False
    # A digital line's style runs from the parse answer: (end, style bits, size) per
    # stretch, ends into ``text`` (bold 1, italic 2); None where unknown (OCR, DOCX, a
    # line whose text was changed after the parse).
    runs: tuple[tuple[int, int, float], ...] | None = None
    # Separator bars the line's ends had before they were trimmed ("| SOFTWARE ENGINEER"):
    # 1 at its start, 2 at its end; put back between OCR's pieces of one row when joined.
    bars: int = 0

    def source(self, rule: str, text: str | None = None) -> Source:
        page, bbox = self.page, self.bbox
        if page is None and self.shown is not None:
            page, bbox = self.shown
        return Source(
            text=(text if text is not None else self.text)[:500],
            rule=rule,
            page=page,
            bbox=bbox,
            part=self.part,
            index=self.index,
        )

    @property
    def in_contact(self) -> bool:
        """Top of the CV, a contact section or a page header: the candidate's own details."""
        return self.section in ("top", "contact", "header")


# TeX's ligature glyphs ("ﬁrewall", "Pontiﬁcia", "openoﬃce"): the letters they stand for
# (layout-6). Only these: NFKC would also fold superscripts and full-width forms.
# And the two Unicode hyphens (U+2010, U+2011 non-breaking): some fonts' text layers give
# every hyphen as one of them - "Oct. 2015 <U+2011> Present" (layout-30) - and no
# rule reads them as the hyphen-minus they stand for.
_LIGATURES = str.maketrans(
    {"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st", "\u2010": "-", "\u2011": "-"}
)


def _clean(text: str) -> str:
    return _trimmed(_normalised(text))


def _normalised(text: str) -> str:
    text = text[:MAX_LINE_CHARS]
    if _SPACING_ACCENT.search(text):
        text = _SPACING_ACCENT.sub(lambda m: m.group(2) + _COMBINING[m.group(1)], text)
    return unicodedata.normalize("NFC", text).translate(_LIGATURES).strip()


def _trimmed(text: str) -> str:
    """The line less what stands at its ends and belongs to no text: an icon's glyph name,
    a separator bar ("Spörl |", "| MARCEL WELK": left by the row the line was cut from, on a
    scan or in a text layer's pieces; stop 50). Always a piece of ``text``."""
    text = _without_glyph_names(text)
    return _BAR_AT_ENDS.sub("", text) if "|" in text else text


def _cut_runs(
    runs: tuple[tuple[int, int, float], ...] | None, start: int, length: int
) -> tuple[tuple[int, int, float], ...] | None:
    """Runs of ``text[start : start + length]`` from the runs of ``text``."""
    if runs is None:
        return None
    out = tuple((min(end, start + length) - start, style, size) for end, style, size in runs if end > start)
    kept = [run for k, run in enumerate(out) if k == 0 or out[k - 1][0] < length]
    return tuple(kept) or None


_BAR_AT_ENDS = re.compile(r"^\|\s+(?=\S)|(?<=\S)\s+\|$")


def _without_glyph_names(text: str) -> str:
    """An icon font's glyph name at either end of a line taken off ("Vancouver, BC
    Map-marker" -> "Vancouver, BC"); "Calendar" too where the rest holds a year (AltaCV's
    "December 2023 - Present Calendar"; stop 50)."""
    words = text.split(" ")
    if len(words) < 2:
        return text
    if words[-1].casefold() in lex.ICON_GLYPH_NAMES or (words[-1] == "Calendar" and _YEAR.search(text)):
        words = words[:-1]
    if len(words) >= 2 and words[0].casefold() in lex.ICON_GLYPH_NAMES:
        words = words[1:]
    return " ".join(words).strip()


# TeX's old fonts set an accent as its own glyph before the letter, and the text layer
# gives "Universit¨at", "Pers¨onliche" (h44): the accent goes back on its letter.
_COMBINING = {
    "¨": "\u0308", "´": "\u0301", "ˆ": "\u0302", "˜": "\u0303", "¸": "\u0327", "ˇ": "\u030c",
    "`": "\u0300",  # "VIGN`ERES" (h49): the grave, as the same fonts set it
}  # fmt: skip
# The grave only inside a word: "`kubectl`" is a code span, not an accent.
_SPACING_ACCENT = re.compile(r"([¨´ˆ˜¸ˇ]|(?<=[^\W\d_])`)([^\W\d_])")


# A letter-spaced text as a PDF's text layer gives it: a space after every letter, two
# between words where the gap is wider, none where it is not (Canva's "S p e c i a l i z e d
# I T", "P r o f e s s i o n a l E x p e r i e n c e s"; v13). Its words are rejoined, and
# split again where a lower-case letter meets a capital.
_SPACED_MARKS = frozenset("'’-&.")


def _unspaced(text: str) -> str:
    tokens = text.split()
    if len(tokens) < 4 or len(text) > MAX_LINE_CHARS or sum(len(t) == 1 for t in tokens) < 0.75 * len(tokens):
        return text
    out = ""
    joined = False  # whether the segment before was letter-spaced words
    for raw in re.split(r"\s{2,}", text):
        letters = raw.split()
        spaced = len(letters) >= 2 and all(len(t) == 1 and (t.isalpha() or t in _SPACED_MARKS) for t in letters)
        # "E D U CAT I O N": a kerned pair or three set without their spaces, in capitals
        # spaced otherwise (stop 50)
        spaced = spaced or (
            sum(len(t) == 1 for t in letters) >= 4
            and sum(len(t) > 1 for t in letters) == 1
            and all(t.isalpha() and t.isupper() and len(t) <= 3 for t in letters)
        )
        seg = raw
        if spaced:
            word = letters[0]
            for prev, ch in itertools.pairwise(letters):
                word += f" {ch}" if prev.islower() and ch.isupper() else ch
            seg = " ".join(_job_word_apart(w) for w in word.split())
        # "J a n e   D o e": the wider gap between two spaced words is a word's space; a
        # wide gap before other text ("W e b d e v e l o p e r  05/2025") stays wide
        out += ("" if not out else " " if spaced and joined else "  ") + seg
        joined = spaced
    return out


_LONGEST_JOB_WORD = max(map(len, lex.JOB_WORDS))


def _job_word_apart(word: str) -> str:
    """ "Webdeveloper" -> "Web developer": a job word the letter-spacing glued on. Only
    the tails a job word can be are tried, so a hostile thousand-letter word costs no more
    than a short one."""
    low = word.casefold()
    for k in range(max(2, len(word) - _LONGEST_JOB_WORD), len(word) - 4):
        if low[k:] in lex.JOB_WORDS:
            return f"{word[:k]} {word[k:]}"
    return word


def _fold(text: str) -> str:
    """Case- and accent-folded ("Références" -> "references")."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


_FOLDED_KIND = {_fold(name): kind for name, kind in _HEADING_KIND.items()}
_FOLDED_NAMES = list(_FOLDED_KIND)
# A Chinese heading with one character OCR read as Latin ("I作经历": 工 as "I"), keyed by
# the heading with that place as "?". A Han character read as another Han character is not
# matched: "项目经理" (a post) is one stroke from "项目经验" (layout-41).
_HAN = re.compile(f"[{_HAN_RANGE}]")
_HAN_OCR_KIND = {
    f"{name[:i]}?{name[i + 1 :]}": kind
    for name, kind in _HEADING_KIND.items()
    if len(name) >= 3 and all(_HAN.match(ch) for ch in name)
    for i in range(len(name))
}


def _han_misread(text: str) -> str | None:
    """The section of a Chinese heading of 3+ characters with one read as not Han."""
    compact = text.replace(" ", "")
    if not 3 <= len(compact) <= 8:
        return None
    odd = [i for i, ch in enumerate(compact) if not _HAN.match(ch)]
    if len(odd) != 1:
        return None
    i = odd[0]
    return _HAN_OCR_KIND.get(f"{compact[:i]}?{compact[i + 1 :]}")


def _less_rule(text: str) -> str:
    rule = _RULE_AFTER.search(text)
    if rule and rule.start() > 0 and sum(ch in _RULE_CHARS for ch in rule.group()) >= 2:
        return text[: rule.start()]
    glued = _RULE_GLUED.search(text)
    return text[: glued.start()] if glued else text


def heading_kind(text: str) -> str | None:
    """The section a heading line opens, or None when the line is not a heading.

    Exact first; then accent-folded, then one edit away for headings of 8+ letters: OCR
    reads "Références" as "Reéférences" and "Compétences" as "Competences".
    """
    # The rules ask about one line several times, and a worker meets the same headings in
    # every CV; a short line's answer is kept (a pure function of its text; the cache holds
    # at most HEADING_CACHE lines of at most MAX_CACHED_HEADING characters).
    return _heading_kind_cached(text) if len(text) <= MAX_CACHED_HEADING else _heading_kind(text)


MAX_CACHED_HEADING = 80
HEADING_CACHE = 4096


def _heading_kind(text: str) -> str | None:
    leader = _DOT_LEADER.search(text[:200])
    if leader:  # "Education. . . . . . ." (a rule drawn with dots): a heading, whatever its words
        return _leader_heading(text[: leader.start()])
    if 60 < len(text) <= 200:
        # "Technical Skills ------...------": a rule typed with hyphens on the heading's own
        # line (a Canva CV, v21's yassila; layout-52) makes a heading longer than any
        text = _less_rule(text)
    if len(text) > 60:
        return None
    text = _less_rule(text)
    key = _HEADING_STRIP.sub("", text).casefold().strip()
    key = " ".join(key.split())
    if not key or len(key.split()) > 5:
        return None
    kind = _HEADING_KIND.get(key)
    first, _, rest = key.partition(" ")
    if kind is None and first in _HEADING_MODIFIERS and rest:
        kind = _HEADING_KIND.get(rest)  # "Selected Projects", "Recent Publications" (layout-12)
    # "Internship and Research Thesis: Physics" (an entry's title under an education heading,
    # v21's abcontarini; layout-53) names its subject after a colon: no heading of two topics
    if kind is None and ":" not in key:
        parts = [p.strip() for p in _HEADING_SPLIT.split(key, maxsplit=3)]
        kind = _HEADING_KIND.get(parts[0])
        if (
            kind is None
            and parts[0]  # "and frameworks.": a description's line ends there, no heading opens (layout-70)
            and not any(ch.isdigit() for ch in text)
            and all(len(p.split()) <= 2 for p in parts)
            and any(_HEADING_KIND.get(p) == "skills" for p in parts[1:])
        ):
            kind = "skills"  # "Entornos y tecnologías", "Methods and Tools" (h45)
        # "Languages and Technologies", "Languages & Tools": programming languages, a skills
        # list (layout-6; it read as spoken languages, and its skills were not looked for)
        if kind == "languages" and any(_HEADING_KIND.get(p) == "skills" for p in parts[1:]):
            kind = "skills"
    if kind is None:
        folded = _fold(key)
        kind = _FOLDED_KIND.get(folded)
        if kind is None and len(folded) >= 8:
            match = process.extractOne(folded, _FOLDED_NAMES, scorer=Levenshtein.distance, score_cutoff=1)
            if match is not None:
                kind = _FOLDED_KIND[match[0]]
    if kind is None:
        kind = _heading_behind_icon(text)
    return kind


# A Chinese heading is a compound: its topics, then what they are ("工作与实践经历" work and
# practice experience, "实习与工作经历", "个人能力"). One the lexicon does not hold reads by
# its topic: work or internships first, then education, then projects (layout-41).
_CJK_HEADING = re.compile(r"[\u4e00-\u9fff与及和、/&]{0,8}(?:经历|经验|背景|履历|經歷|經驗|能力)")
_CJK_TOPICS = (
    # (not "实践" alone: a student's "实践经历" are campus activities, as "activities" are)
    ("experience", ("工作", "实习", "實習", "职业", "職業")),
    ("education", ("教育", "学习", "學習")),
    ("other", ("项目", "項目", "专案", "專案")),
)


def _cjk_compound_heading(key: str) -> str | None:
    if not _CJK_HEADING.fullmatch(key) or "的" in key:
        return None  # "丰富的项目经验" (rich project experience) is a phrase, not a heading
    for kind, topics in _CJK_TOPICS:
        if any(topic in key for topic in topics):
            return kind
    # "个人能力", "专业能力": what the person can do; a language's level is read by its own heading
    return "skills" if key.endswith("能力") and "语言" not in key and "語言" not in key else None


def _heading_behind_icon(text: str) -> str | None:
    """A heading as OCR read it with its icon, or with one Chinese character misread; a
    Chinese heading by its parts."""
    cjk = _han_misread(text) or _cjk_compound_heading(text.strip())
    if cjk:
        return cjk
    icon = _ICON_PREFIX.match(text) or _LETTER_ICON.match(text)
    if icon:
        # "Ii) PROFESSIONAL EXPERIENCE", "B Publications", "Q Awards & Certificates": a
        # heading's icon as OCR read it (h49; a capital alone, layout-40: weitian li's
        # scans, whose awards read as roles under "Internships")
        return heading_kind(text[icon.end() :])
    han = _HAN_ICON.match(text)
    # a Chinese scan's icon (layout-41): one character only, and the rest a heading as it
    # stands - "我的技能" is no heading with two icons before "技能"
    return _HEADING_KIND.get(text[han.end() :]) if han else None


_heading_kind_cached = functools.lru_cache(maxsize=HEADING_CACHE)(_heading_kind)


def _leader_heading(text: str) -> str:
    """The kind of a heading drawn with a dot leader (layout-6): its words as a heading, else
    the first of its words that is a one-word heading ("Non-exhaustive list of technologies I
    used" -> skills), else "other"."""
    kind = heading_kind(text) if len(text) <= 60 else None
    if kind is None:
        words = (w.strip(",.;:()").casefold() for w in text.split()[:20])
        kind = next((_HEADING_KIND[w] for w in words if w in _HEADING_KIND), "other")
    return kind


def label_of(text: str) -> tuple[str, str] | None:
    """("label", "value") for a "Label: value" line."""
    m = _LABEL.match(text[:300])
    if not m:
        return None
    return m.group(1).strip().casefold(), m.group(2).strip()


def _bbox(value: Any) -> tuple[float, float, float, float] | None:
    if isinstance(value, list | tuple) and len(value) == 4:
        return (float(value[0]), float(value[1]), float(value[2]), float(value[3]))
    return None


def _shown(value: Any) -> tuple[int, tuple[float, float, float, float]] | None:
    """[page, x0, y0, x1, y1] (checked by ats.sandbox.validate) -> (page, bbox)."""
    if isinstance(value, list | tuple) and len(value) == 5:
        bbox = _bbox(list(value[1:]))
        if bbox is not None:
            return int(value[0]), bbox
    return None


def _pdf_lines(blocks: Sequence[Mapping[str, Any]]) -> list[Line]:
    out: list[Line] = []
    for block in blocks:
        page = int(block.get("page") or 1)
        lines = block.get("lines")
        if not lines:  # schema 1: the block's box for each of its lines
            lines = [
                {"bbox": block.get("bbox"), "text": t, "size": 0.0} for t in str(block.get("text", "")).split("\n")
            ]
        for line in lines:
            raw = str(line.get("text", ""))
            normal = _normalised(raw)
            trimmed = _trimmed(normal)
            text = _unspaced(trimmed)
            # the runs hold where the text is the text layer's, or a piece of it (trimmed)
            runs = None
            if normal == raw and text == trimmed and (start := raw.find(trimmed)) >= 0:
                runs = _cut_runs(_runs(line.get("runs"), len(raw)), start, len(trimmed))
            if text:
                out.append(
                    Line(
                        text,
                        len(out),
                        page=page,
                        bbox=_bbox(line.get("bbox")),
                        size=float(line.get("size") or 0),
                        runs=runs,
                        bars=_bars(normal, trimmed),
                    )
                )
            if len(out) >= MAX_LINES:
                return out
    return out


def _bars(normal: str, trimmed: str) -> int:
    """Which separator bars _trimmed took off the line's ends: 1 the start's, 2 the end's."""
    if normal == trimmed:
        return 0
    return (1 if normal.lstrip().startswith("|") and not trimmed.startswith("|") else 0) | (
        2 if normal.rstrip().endswith("|") and not trimmed.endswith("|") else 0
    )


# -- one row read as pieces ---------------------------------------------------------------------
# OCR gives a row as several lines where its words stand a little apart: "May" | "2013 - Aug"
# | "2013", "GOOGLE" | "| SOFTWARE ENGINEERING INTERN". The same CV's text layer gives each
# as one line, which is what the rules read (a date range, "Employer | Title"). Pieces that
# follow each other in reading order - after the column walk, so never across a gutter - on
# one row, of one height and size, less than a word space or two apart, are read as one line
# (layout-38), with the bars the pieces' ends had between them ("GOOGLE | SOFTWARE ...").

ROW_PIECE_GAP = 0.8  # of the lower piece's height between them, at most
ROW_PIECE_OVERLAP = 0.6  # of the lower piece's height, shared vertically
ROW_PIECE_HEIGHTS = 1.6  # at most this ratio of the two heights
ROW_PIECE_SIZES = 1.4  # at most this ratio of the two font sizes (OCR's estimates)


def _heights(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> tuple[float, float, float]:
    """Two boxes' heights, the lower and the taller, and the height they share (negative
    when one is wholly above the other): what the row tests below measure against."""
    ha, hb = a[3] - a[1], b[3] - b[1]
    return min(ha, hb), max(ha, hb), min(a[3], b[3]) - max(a[1], b[1])


def _side_by_side(prev: Line, line: Line) -> bool:
    """Two lines of one row and one type, the second a word space or two right of the first."""
    a, b = prev.bbox, line.bbox
    if prev.page != line.page or a is None or b is None:
        return False
    low, high, shared = _heights(a, b)
    sizes = sorted((prev.size, line.size))
    return (
        low > 0
        and high <= ROW_PIECE_HEIGHTS * low
        and shared >= ROW_PIECE_OVERLAP * low
        and -1.0 <= b[0] - a[2] <= ROW_PIECE_GAP * low
        # and of one size: a photo read as "J zà" (124 pt) stands beside the name (70 pt)
        and sizes[0] > 0
        and sizes[1] <= ROW_PIECE_SIZES * sizes[0]
    )


def _row_piece(prev: Line, line: Line) -> bool:
    if not _side_by_side(prev, line):
        return False
    ta, tb = prev.text, line.text
    if len(ta) < 2 or len(tb) < 2:
        return False  # a bullet or an icon OCR read as a letter ("e", "K") is no word of the row
    if ta.endswith("-") and ta[-2:-1].isalpha():
        return False  # "integration for com-": a column's line broken at its edge, not a piece of this row
    # a heading stands alone: "Education" after a row of rating stars read as "RTEA A k kk k"
    return not (heading_kind(ta) or heading_kind(tb))


# Tesseract cuts a Chinese row into pieces whose boxes overlap or stand a character or two
# apart, with sizes guessed from glyph widths that differ piece to piece: "西安" | "欧亚学院,
# 西安, 陕西", "中科视拓(北京)科技" | "有限公司(SeetaTech Inc.)", "保证了业务" | "稳定。", "2026" |
# "年" | "09月- 2027". The same CV's text layer gives each row as one line. Pieces that meet
# Han to Han (or at CJK punctuation, or a digit beside a date's 年, 月 or 日) on one row, the
# second starting right of the first's start, are one run of text, written without a space
# (layout-41); the column walk has already kept the gutter.
HAN_PIECE_GAP = 2.0  # of the lower piece's height between them, at most
_HAN_CHAR = f"[{_HAN_RANGE}\u3000-\u303f\uff01-\uff0f\uff1a-\uff1f]"  # and CJK punctuation
_HAN_END = re.compile(f"{_HAN_CHAR}$")
_HAN_START = re.compile(f"^{_HAN_CHAR}")
_DATE_HAN = frozenset("年月日")


def _han_piece(prev: Line, line: Line) -> bool:
    a, b = prev.bbox, line.bbox
    if prev.page != line.page or a is None or b is None:
        return False
    han_end, han_start = _HAN_END.search(prev.text), _HAN_START.match(line.text)
    if not (
        (han_end and han_start)
        or (prev.text[-1:] in _DATE_HAN and line.text[:1].isdigit())
        or (line.text[:1] in _DATE_HAN and prev.text[-1:].isdigit())
    ):
        return False
    low, _, shared = _heights(a, b)
    return low > 0 and shared >= ROW_PIECE_OVERLAP * low and a[0] < b[0] and b[0] - a[2] <= HAN_PIECE_GAP * low


def _row_pieces_joined(lines: list[Line]) -> list[Line]:
    """The OCR'd lines with each row's pieces joined (above): one pass, a joined line capped
    at MAX_WRAPPED characters."""
    out: list[Line] = []
    for line in lines:
        prev = out[-1] if out else None
        han = prev is not None and _han_piece(prev, line)
        if prev is None or not (han or _row_piece(prev, line)) or len(prev.text) + len(line.text) + 3 > MAX_WRAPPED:
            out.append(line)
            continue
        a, b = prev.bbox, line.bbox
        assert a is not None and b is not None
        if han and not (prev.bars & 2 or line.bars & 1):
            bar = ""  # Chinese is written without spaces
        elif prev.text.endswith("@") or (line.text.startswith("@") and not line.text[1:2].isspace()):
            # "lucia.gomez.pena@" | "| yahoo.es": one address, whatever OCR set between ("@ x.blog"
            # is an icon before a link)
            bar = ""
        else:
            bar = " | " if prev.bars & 2 or line.bars & 1 else " "
        out[-1] = dataclasses.replace(
            prev,
            text=prev.text + bar + line.text,
            bbox=(a[0], min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])),
            size=max(prev.size, line.size),
            runs=None,
            bars=(prev.bars & 1) | (line.bars & 2),
        )
    return _renumbered(out) if len(out) != len(lines) else lines


_CONNECTORS = frozenset({"—", "–", "-", "|", "@"})
DASH_ROW_GAP = 3.0  # of the row's height between the connector and each neighbour, at most


def _on_row(a: Line, b: Line) -> bool:
    """b starts right of a's end, on a's row (half the lower line's height shared)."""
    if a.page != b.page or a.bbox is None or b.bbox is None:
        return False
    low, _, shared = _heights(a.bbox, b.bbox)
    return low > 0 and shared >= 0.5 * low and -1.0 <= b.bbox[0] - a.bbox[2] <= DASH_ROW_GAP * low


def _dash_rows_joined(lines: list[Line]) -> list[Line]:
    """A row "TECH LEAD (REMOTE) — Autopay  July 2022 - Present" whose text layer gives the
    title, the dash and the employer as three lines (a LaTeX class's \\hfill pieces, dlevy's;
    v15): one line, so the entry reads its title and employer from one header. Only a lone
    connector between two pieces of its own row joins them."""
    out: list[Line] = []
    k = 0
    while k < len(lines):
        line = lines[k]
        if (
            out
            and k + 1 < len(lines)
            and line.text.strip() in _CONNECTORS
            and _on_row(out[-1], line)
            and _on_row(line, lines[k + 1])
        ):
            prev, nxt = out[-1], lines[k + 1]
            assert prev.bbox is not None and nxt.bbox is not None
            out[-1] = dataclasses.replace(
                prev,
                text=f"{prev.text} {line.text.strip()} {nxt.text}",
                bbox=(prev.bbox[0], min(prev.bbox[1], nxt.bbox[1]), nxt.bbox[2], max(prev.bbox[3], nxt.bbox[3])),
                size=max(prev.size, nxt.size),
                runs=None,
            )
            k += 2
            continue
        out.append(line)
        k += 1
    return _renumbered(out) if len(out) != len(lines) else lines


def lone_bullet(line: Line) -> bool:
    """A bullet the text layer gives as a line of its own (a glyph of _BULLETS; not a dash
    or an asterisk, which stand alone for other reasons)."""
    return line.text.strip() in _LONE_BULLETS


def after_lone_bullet(prev: Line | None, line: Line) -> bool:
    """Whether a line is a list item's text whose bullet the text layer gives as a line of
    its own, just before it on its row ("●" at x 54, "Accounts receivable, collections" at
    x 72: a Google Docs list, v22's editapesa)."""
    return prev is not None and lone_bullet(prev) and _on_row(prev, line)


def _renumbered(lines: list[Line]) -> list[Line]:
    """The lines with their reading order (`n`) set to their place in the list."""
    for n, line in enumerate(lines):
        line.n = n
    return lines


def _header_drawn_last(lines: list[Line]) -> list[Line]:
    """The first page's last lines, when all of them stand above the page's first line: a
    header the exporter drew after the body (FlowCV: the name and contact block came after
    the experience section, and were read as part of it). Read first (h50)."""
    page_one = [ln for ln in lines if ln.page == 1]
    if len(page_one) < 4 or page_one[0].bbox is None:
        return lines
    first_top = page_one[0].bbox[1]
    k = len(page_one)
    while k > 1 and (box := page_one[k - 1].bbox) is not None and box[3] <= first_top:
        k -= 1
    moved = page_one[k:]
    if len(moved) < 2 or len(moved) > len(page_one) // 2:
        return lines
    return _renumbered(moved + page_one[:k] + [ln for ln in lines if ln.page != 1])


def _runs(value: Any, length: int) -> tuple[tuple[int, int, float], ...] | None:
    """The answer's runs of a line (checked by the trusted side's validator; read again
    here as the extractor takes any answer-shaped mapping)."""
    if not isinstance(value, list) or not value:
        return None
    out: list[tuple[int, int, float]] = []
    for run in value:
        if not (isinstance(run, list) and len(run) == 3 and all(isinstance(v, int | float) for v in run)):
            return None
        end = int(run[0])
        if not (out[-1][0] if out else 0) < end <= length:
            return None
        out.append((end, int(run[1]) & 3, float(run[2])))
    return tuple(out) if out[-1][0] == length else None


def style_of(line: Line, start: int, end: int) -> int | None:
    """The style bits of ``line.text[start:end]`` when all its letters share one, else None."""
    if line.runs is None or not 0 <= start < end <= len(line.text):
        return None
    found: set[int] = set()
    begin = 0
    for stop, style, _ in line.runs:
        if stop > start and begin < end and any(ch.isalnum() for ch in line.text[max(begin, start) : min(stop, end)]):
            found.add(style)
        begin = stop
    return found.pop() if len(found) == 1 else None


def without_head(line: Line, k: int) -> tuple[tuple[int, int, float], ...] | None:
    """Runs of ``line.text[k:]``."""
    return _cut_runs(line.runs, k, len(line.text) - k)


def _shifted(runs: tuple[tuple[int, int, float], ...] | None, by: int) -> tuple[tuple[int, int, float], ...] | None:
    return None if runs is None else tuple((end + by, style, size) for end, style, size in runs)


def joined_runs(first: Line, second: Line, gap: int) -> tuple[tuple[int, int, float], ...] | None:
    """Runs of ``first.text + gap spaces + second.text``: the gap goes with the second."""
    tail = _shifted(second.runs, len(first.text) + gap)
    return None if first.runs is None or tail is None else first.runs + tail


def _docx_lines(elements: Sequence[Mapping[str, Any]]) -> list[Line]:
    # A table row "E-Mail | jane@example.com": the first cell labels the others.
    row_label: dict[tuple[Any, ...], str] = {}
    for el in elements:
        if "row" in el and el.get("col") == 0:
            text = str(el.get("text", "")).strip()
            if 0 < len(text) <= 30 and not any(ch.isdigit() or ch == "@" for ch in text):
                row_label[(el["part"], el["table"], el["row"])] = text.rstrip(":").strip()
    out: list[Line] = []
    for el in elements:
        label = None
        if "row" in el and el.get("col", 0) > 0:
            label = row_label.get((el["part"], el["table"], el["row"]))
        at = el.get("at") or []
        for k, raw in enumerate(str(el.get("text", "")).split("\n")):
            text = _clean(raw)
            if text:
                out.append(
                    Line(
                        text,
                        len(out),
                        part=str(el["part"]),
                        index=int(el["index"]),
                        style=el.get("style"),
                        label=label,
                        shown=_shown(at[k] if k < len(at) else None),
                    )
                )
            if len(out) >= MAX_LINES:
                return out
    return out


def _schema1_docx_lines(answer: Mapping[str, Any]) -> list[Line]:
    elements: list[dict[str, Any]] = [
        {"part": "body", "index": i, "text": p, "style": None} for i, p in enumerate(answer.get("paragraphs") or [])
    ]
    cell = 0
    for t, table in enumerate(answer.get("tables") or []):
        for r, row in enumerate(table):
            for c, text in enumerate(row):
                elements.append({"part": "table", "index": cell, "text": text, "table": t, "row": r, "col": c})
                cell += 1
    return _docx_lines(elements)


# -- two columns read across ---------------------------------------------------------------------
# OCR of a two-column CV (a sidebar beside the main column) can give lines row by row across
# both columns: "Python, C/C++, Rust" (sidebar) between a role's title and its employer
# (main), and the sidebar's "Skills" heading in the middle of the experience. A digital PDF
# gives each column as its own blocks, which is what the rules read. So an OCR'd page whose
# lines fall on both sides of a clear vertical gutter and switch sides often in reading
# order is read column by column: between full-width lines, the left column's lines, then
# the right's. (Digital pages keep their order: their blocks are in column order already,
# and reordering them lost more than it gained on the development half.)

COLUMN_BINS = 200
MIN_COLUMN_LINES = 5
MAX_SPANNING_SHARE = 0.08  # of a page's lines that may cross the gutter (a header, a rule)
MIN_SWITCH_SHARE = 0.2  # of a page's lines at which reading order changes column
SPAN_SLACK = 0.2  # of a line's width that may cross the gutter and still leave it in its column
DATE_COLUMN_SHARE = 0.5  # of a column's lines holding a year: a date column, read row by row


def _gutter(page: list[Line]) -> float | None:
    """The x of a page's vertical gutter between two columns, if it has one."""
    boxes = [ln.bbox for ln in page if ln.bbox is not None]
    if len(boxes) < 2 * MIN_COLUMN_LINES:
        return None
    left, right = min(b[0] for b in boxes), max(b[2] for b in boxes)
    step = (right - left) / COLUMN_BINS
    if step <= 0:
        return None
    cover = [0] * (COLUMN_BINS + 1)
    for x0, _, x1, _ in boxes:
        a, b = int((x0 - left) / step) + 1, int((x1 - left) / step)
        if a <= b:
            cover[a] += 1
            cover[min(b, COLUMN_BINS)] -= 1
    running, counts = 0, []
    for k in range(COLUMN_BINS):
        running += cover[k]
        counts.append(running)
    middle = range(COLUMN_BINS // 5, 4 * COLUMN_BINS // 5 + 1)
    best = min(counts[k] for k in middle)
    if best > MAX_SPANNING_SHARE * len(boxes):
        return None
    # The middle of the widest stretch at the least cover: a line that runs a glyph into
    # the gutter shifts neither edge of it far - but not a stretch with only dates on its
    # right: the gap between a main column's titles and its right-aligned dates is often
    # wider than the gutter before it (h51).
    runs: list[tuple[int, int]] = []
    for k in middle:
        if counts[k] == best:
            if runs and runs[-1][1] == k - 1:
                runs[-1] = (runs[-1][0], k)
            else:
                runs.append((k, k))

    def at(run: tuple[int, int]) -> float:
        return left + ((run[0] + run[1]) / 2 + 0.5) * step

    def dates_right(run: tuple[int, int]) -> bool:
        x = at(run)
        right = [ln.text for ln in page if ln.bbox is not None and ln.bbox[0] >= x]
        return sum(1 for t in right if date_cell(t)) >= DATE_COLUMN_SHARE * len(right)

    by_width = sorted(runs, key=lambda r: r[0] - r[1])
    return at(next((r for r in by_width if not dates_right(r)), by_width[0]))


def _by_page(lines: Iterable[Line]) -> dict[int | None, list[Line]]:
    """The lines of each page, in their order."""
    pages: dict[int | None, list[Line]] = {}
    for line in lines:
        pages.setdefault(line.page, []).append(line)
    return pages


def _by_columns(lines: list[Line]) -> list[Line]:
    out: list[Line] = []
    for page in _by_page(lines).values():
        out += _page_by_columns(page)
    if out == lines:
        return lines
    return _renumbered(out)


def _page_by_columns(page: list[Line]) -> list[Line]:
    gutter = _gutter(page)
    if gutter is None:
        return page

    def side(line: Line) -> int:
        assert line.bbox is not None
        x0, _, x1, _ = line.bbox
        # A line OCR ran a glyph or two over the gutter ("...langue mater- p") stays in its
        # column: only a line with a real share on both sides spans them (h49).
        over = min(gutter - x0, x1 - gutter) / max(x1 - x0, 1.0)
        if over <= SPAN_SLACK:
            return 0 if (x0 + x1) / 2 <= gutter else 1
        return 2

    sides = [side(ln) if ln.bbox is not None else 2 for ln in page]
    placed = [s for s in sides if s < 2]
    switches = sum(1 for a, b in itertools.pairwise(placed) if a != b)
    if min(placed.count(0), placed.count(1)) < MIN_COLUMN_LINES or switches < MIN_SWITCH_SHARE * len(page):
        return page
    for column in (0, 1):
        texts = [ln.text for ln, s in zip(page, sides, strict=True) if s == column]
        if sum(1 for t in texts if _YEAR.search(t)) >= DATE_COLUMN_SHARE * len(texts):
            return page  # a date column beside its roles: the rows belong together
    out: list[Line] = []
    columns: tuple[list[Line], list[Line]] = ([], [])
    for line, s in zip(page, sides, strict=True):
        if s == 2:
            out += columns[0] + columns[1] + [line]
            columns = ([], [])
        else:
            columns[s].append(line)
    return out + columns[0] + columns[1]


# A text layer that climbs the page: of the distance its order travels up and down a page,
# this much more up, and at least this far, than any top-down page with columns does (the
# development half's: at most 1.24 times).
UPWARD_SHARE = 1.5
MIN_UPWARD_PT = 500.0


def _travel(page: list[Line]) -> tuple[float, float]:
    """How far the page's text order travels up the page and how far down, line to line."""
    up = down = 0.0
    for a, b in itertools.pairwise(ln for ln in page if ln.bbox is not None):
        step = _top(b) - _top(a)
        up, down = (up - step, down) if step < 0 else (up, down + step)
    return up, down


def _bottom_up(page: list[Line]) -> bool:
    """Whether the page's text layer runs up the page: an InDesign export gave its blocks from
    the page's foot to its head (v15's mquezada), so every section came after its entries."""
    up, down = _travel(page)
    return up >= MIN_UPWARD_PT and up > UPWARD_SHARE * down


# A design tool's export (Canva) that gives a page's section headings as a layer of their
# own, apart from their bodies and out of the page's order: this many headings in a row in
# the text order, nothing between them, one of them above the one before it, set at least
# this far apart (layout-41). A column of headings given top-down (an HTML export's sidebar,
# brunopc's) is the page's own order and stays.
MIN_HEADINGS_FIRST = 3
MIN_HEADINGS_SPREAD_PT = 200.0


def _headings_apart(page: list[Line]) -> float | None:
    """The top of the page's highest heading, when the page gives its headings apart from
    their bodies (above); else None."""
    # the run's length, highest and lowest top, last top, and whether it went up the page
    # (kept as it goes: linear on a hostile page of ten thousand headings)
    count, high, low, last, climbed = 0, 0.0, 0.0, 0.0, False
    for line in page:
        if len(line.text) <= MAX_CACHED_HEADING and line.bbox is not None and heading_kind(line.text):
            top = _top(line)
            climbed = count > 0 and (climbed or top < last)
            high, low = (top, top) if count == 0 else (min(high, top), max(low, top))
            count, last = count + 1, top
            if count >= MIN_HEADINGS_FIRST and low - high >= MIN_HEADINGS_SPREAD_PT and climbed:
                return _highest_heading(page)
        else:
            count, climbed = 0, False
    return None


def _highest_heading(page: list[Line]) -> float:
    """The top of the page's highest heading; 0 (the page's head) when it has none."""
    return min((_top(ln) for ln in page if ln.bbox is not None and heading_kind(ln.text)), default=0.0)


# A design tool's text layer in the order its boxes were placed on the canvas (Canva, Adobe
# XD, Illustrator): a column's lines climb back up the page again and again. Counted per
# line: a step up the page within one column, more than this many line heights.
# layout-72: three steps and one line in twenty (were five, and one in fourteen) - v28's
# sbrumbaugh (Canva) gives each layer top-down, a page's duties, then its roles' lines, then
# its heading, three climbs in 50 lines; development's top-down pages with columns still
# climb too little for the travel test below.
SCRAMBLED_STEP = 1.5
SCRAMBLED_SHARE = 0.05
MIN_SCRAMBLED_STEPS = 3
SCRAMBLED_UP = 0.75


def _scrambled(page: list[Line]) -> bool:
    """Whether a page with two columns gives its lines in canvas order (above): within a
    column, steps up the page again and again, and its order travelling about as far up as
    down - a top-down page with columns climbs about half as far as it descends (one climb per
    column), and a page with no gutter has no column to be read by (one pass: linear)."""
    gutter = _gutter(page) if len(page) >= 2 * MIN_COLUMN_LINES else None
    if gutter is None:
        return False
    right = [ln.bbox is not None and (ln.bbox[0] + ln.bbox[2]) / 2 > gutter for ln in page]
    steps = 0
    for k, (a, b) in enumerate(itertools.pairwise(page)):
        assert a.bbox is not None
        if right[k] == right[k + 1] and _top(b) - _top(a) < -SCRAMBLED_STEP * max(a.bbox[3] - a.bbox[1], 4.0):
            steps += 1
    if steps < MIN_SCRAMBLED_STEPS or steps < SCRAMBLED_SHARE * len(page):
        return False
    up, down = _travel(page)
    return up >= SCRAMBLED_UP * down


def _columns_down(lines: list[Line]) -> list[Line]:
    """Lines read a column at a time, each top-down: the left column (with any line across
    the gutter, by its height), then the right; one column top-down when there is no gutter."""
    gutter = _gutter(lines)
    if gutter is None:
        return sorted(lines, key=_row_order)
    right = {ln.n for ln in lines if ln.bbox is not None and ln.bbox[0] >= gutter}
    left = [ln for ln in lines if ln.n not in right]
    return [*sorted(left, key=_top), *sorted((ln for ln in lines if ln.n in right), key=_top)]


def _row_order(line: Line) -> tuple[int, float]:
    """A line's place read row by row, each row left to right."""
    return round(_top(line)), line.bbox[0] if line.bbox else 0.0


def _top_down(page: list[Line]) -> list[Line]:
    return _page_by_columns(sorted(page, key=_row_order))


def _bottom_up_pages(lines: list[Line]) -> list[Line]:
    """Each page whose text layer runs up the page read top-down instead, by its columns; a
    page that gives its headings apart from their bodies the same below its highest heading
    (the name and contact lines above it kept in their order: "MIKEL" / "ECHEVERRIA" beside
    the contact column); and a page in a design tool's canvas order (_scrambled) by its columns
    below its highest heading, the lines above it row by row."""
    out: list[Line] = []
    changed = False
    for page in _by_page(lines).values():
        if not all(ln.bbox is not None for ln in page):
            out += page
        elif _bottom_up(page):
            out += _top_down(page)
            changed = True
        elif (first := _headings_apart(page)) is not None:
            out += [ln for ln in page if _top(ln) < first] + _columns_down([ln for ln in page if _top(ln) >= first])
            changed = True
        elif _scrambled(page):
            first = _highest_heading(page)
            above = sorted((ln for ln in page if _top(ln) < first), key=_row_order)
            out += above + _columns_down([ln for ln in page if _top(ln) >= first])
            changed = True
        else:
            out += page
    return _renumbered(out) if changed else lines


# OCR reads the capital I of "AI" as a lower-case l: "Nexus Al", "Al Research Institute",
# "Generative Al for Work" (scans of held-out v17's and earlier documents, layout-43). Read
# back only where "AI" is the word: before a word an AI house or post goes on with, or at
# the end of a name; "Al Ain", "Al Rajhi Bank", "Al-Ahli" (Arabic's article) stay.
# layout-71 (development's scans): "Al Software Engineer", "Martes Al - https://...", a
# name's glued "GenieAl" / "OpenAl" / "Pydantic-Al", and "AIl" (the I read twice);
# "Gen al" / "Generative Al" whatever follows.
_OCR_AI = re.compile(
    r"(?<![\w-])Al(?=\s+(?:Research|Engineer|Engineering|Platform|Cloud|Product|Trainer|Consultant|Labs?|"
    r"Systems|Solutions|Developer|Intern|Specialist|Scientist|Assistant|Agents?|Software|Automation|Integration|"
    r"Lead|Infrastructure|Architect|Safety|Ethics|Models?|Tools|Applications?|for|and|&)\b|-based\b"
    r"|\s*[,)/|]|\s[-–—]\s|\s{2,}|\s*$)"
    r"|(?<=[a-z])Al(?![\w-])|(?<=[a-z]-)Al(?![\w-])|(?<![\w-])AIl(?![\w-])"
    r"|(?<=\b[Gg]en\s)[Aa]l\b|(?<=\bGenerative\s)Al\b"
)
# OCR reads "rn" as "m": "Gen AI Intem", "Intemship", "Intemational" - words no language
# writes, read back (layout-71).
_OCR_RN = re.compile(r"\b([Ii])nte(m|ms|mship|mships|mational|mationally)\b")


def _ocr_rn(m: re.Match[str]) -> str:
    return f"{m.group(1)}ntern{m.group(2)[1:]}"  # "Inte" + "rn" for the "m"


def _ai_read_back(lines: list[Line]) -> list[Line]:
    out = []
    for ln in lines:
        text = _OCR_AI.sub("AI", ln.text) if "Al" in ln.text or "al" in ln.text or "AIl" in ln.text else ln.text
        text = _OCR_RN.sub(_ocr_rn, text) if "nte" in text else text
        out.append(ln if text == ln.text else dataclasses.replace(ln, text=text))
    return out


def lines_of(answer: Mapping[str, Any]) -> list[Line]:
    """The answer's lines in reading order, with sections assigned."""
    if answer.get("elements"):
        lines = _docx_lines(answer["elements"])
    elif answer.get("blocks"):
        lines = _without_overprints(_pdf_lines(answer["blocks"]))
        if answer.get("ocr_used"):
            lines = _ai_read_back(_row_pieces_joined(_by_columns(lines)))
        else:
            lines = _dash_rows_joined(_header_drawn_last(_bottom_up_pages(lines)))
    elif answer.get("paragraphs") or answer.get("tables"):
        lines = _schema1_docx_lines(answer)
    else:
        lines = []
        for i, raw in enumerate(str(answer.get("text") or "").split("\n")[:MAX_LINES]):
            text = _clean(raw)
            if text:
                lines.append(Line(text, len(lines), part="text", index=i))
    lines = join_open_ranges(join_date_rows(join_wrapped(lines)))
    _assign_sections(lines, ocr=bool(answer.get("ocr_used")))
    return lines


# -- text drawn more than once ---------------------------------------------------------------------
# A shadow or a fake bold draws one text several times, a point or less apart ("Ansys" sixteen
# times over itself, a Typst CV's glow; layout-30): the text layer gives each drawing as a line.
# Only the first is read; the same text elsewhere on the page (two roles at one employer) stays.
OVERPRINT_PT = 2.0


def _without_overprints(lines: list[Line]) -> list[Line]:
    out: list[Line] = []
    for line in lines:
        prev = out[-1] if out else None
        if (
            prev is not None
            and line.text == prev.text
            and line.page == prev.page
            and line.bbox is not None
            and prev.bbox is not None
            and all(abs(a - b) <= OVERPRINT_PT for a, b in zip(line.bbox, prev.bbox, strict=True))
        ):
            continue
        out.append(line)
    out = _without_pieces(out)
    return _renumbered(out) if len(out) != len(lines) else out


def _without_pieces(lines: list[Line]) -> list[Line]:
    """A line drawn whole and again in pieces ("Ansys, Synopsys" over "Ansys" and "Synopsys",
    each name a link): the pieces, inside the whole's box on its row, are not read (layout-31;
    each piece was a line, and the employer read as "Synopsys" under the title "Ansys").
    Linear: lines are bucketed by page and row."""
    rows: dict[tuple[int | None, int], list[Line]] = {}
    for line in lines:
        if line.bbox is not None:
            rows.setdefault((line.page, round(line.bbox[1])), []).append(line)
    pieces: set[int] = set()
    for line in lines:
        if line.bbox is None or len(line.text) < MIN_PIECE_WHOLE:
            continue
        x0, y0, x1, y1 = line.bbox
        for key in ((line.page, round(y0) + d) for d in (-1, 0, 1)):
            for other in rows.get(key, [])[:MAX_ROW_SCAN]:
                box = other.bbox
                if (
                    other is not line
                    and box is not None
                    and len(other.text) < len(line.text)
                    and other.text in line.text
                    and box[0] >= x0 - OVERPRINT_PT
                    and box[2] <= x1 + OVERPRINT_PT
                    and abs(box[3] - y1) <= OVERPRINT_PT
                ):
                    pieces.add(id(other))
    return [line for line in lines if id(line) not in pieces] if pieces else lines


MIN_PIECE_WHOLE = 5  # characters: a whole line made of pieces


# -- lines a PDF wrapped -------------------------------------------------------------------------
# Justified TeX text breaks a word with a hyphen ("Education Na-" / "tionale") and an entry's
# header over lines ("ONAC, Lycées privés hors" / "contrat ACADIS"); the text layer gives
# each piece as a line. A line that starts in lower case right below another, in its column
# (or its hanging indent), continues it.

MAX_WRAPPED = 400  # a joined line stays a line
HANGING_INDENT = 120.0
_OCR_BULLET = re.compile(r"[a-z]\s")
MIN_WRAPPED = 45  # characters of a line that ran to its column's width


MAX_UNFINISHED_COMMA = 30
_UNFINISHED = re.compile(r"(?:[^\W\d_],|\s(?:and|of|for|und|für|et|de|e|y|i|en|van|von))$", re.IGNORECASE)


def _unfinished(head: str) -> bool:
    if not _UNFINISHED.search(head[-12:]):
        return False
    # ... but a list's line ending on a comma ("Python, Go, Docker,") is one of its own.
    return not (head.endswith(",") and (len(head) > MAX_UNFINISHED_COMMA or head.count(",") > 2))


def _flush_gap(above: Line, below: Line) -> float | None:
    """The gap from a line down to the next, when that one starts flush under it (x within
    3 pt, same page); None when it does not."""
    if above.bbox is None or below.bbox is None or above.page != below.page:
        return None
    if abs(above.bbox[0] - below.bbox[0]) > FLUSH_X:
        return None
    return below.bbox[1] - above.bbox[3]


FLUSH_X = 3.0


def _flush_below(prev: Line, line: Line) -> bool:
    gap = _flush_gap(prev, line)
    assert prev.bbox is not None
    return gap is not None and -2.0 <= gap <= 0.5 * max(prev.bbox[3] - prev.bbox[1], 1.0)


# "Site Reliability" / "Engineer", "Co-founder and Lead" / "Engineer": a narrow column's post
# wrapped before its head noun (psrpinto's wkhtmltopdf table, layout-43). Only a line of two
# to five words that ends on a word a post goes on from, over the head noun alone: "Google"
# over "Engineer" (a house, then a post) stays two lines.
_POST_NOUNS = frozenset(
    {"engineer", "developer", "manager", "scientist", "analyst", "consultant", "designer", "architect", "director",
     "specialist", "administrator", "officer", "assistant", "intern", "coordinator", "technician", "researcher"}
)  # fmt: skip
_POST_MODIFIERS = frozenset(
    {"lead", "senior", "junior", "principal", "staff", "chief", "reliability", "software", "systems", "data",
     "research", "technical", "support", "development", "web", "frontend", "backend", "full-stack", "devops", "qa",
     "test", "sales", "project", "product", "program", "marketing", "security", "network", "cloud", "platform",
     "infrastructure", "solutions", "application", "applications", "learning", "mobile", "ux", "ui", "graphic",
     "teaching"}
)  # fmt: skip


def _post_noun_below(head: str, text: str) -> bool:
    words = head.split()
    return (
        text.strip().casefold() in _POST_NOUNS
        and 2 <= len(words) <= 5
        and words[-1].casefold() in _POST_MODIFIERS
        and not _YEAR.search(head)
    )


def _continues(prev: Line, line: Line) -> bool:
    if prev.bbox is None or line.bbox is None or prev.page != line.page:
        return False
    head = prev.text.rstrip()
    # "ONAC, Lycées privés hors contrat ACADIS &" / "DWIGHT MOODY": a line ending on "&"
    # is unfinished whatever case the next one starts in (layout-6).
    ampersand = head.endswith(" &") and line.text[:1].isalpha()
    # "Co-founder and Lead" / "Engineer", "Remote | Lisbon," / "Portugal": a narrow column's
    # line that stops on a comma or a joining word goes on below it, flush (h44).
    if (not ampersand and _unfinished(head) and line.text[:1].isalpha()) or _post_noun_below(head, line.text):
        return _flush_below(prev, line)
    if (not ampersand and not line.text[:1].islower()) or len(head) + len(line.text) > MAX_WRAPPED:
        return False
    if _OCR_BULLET.match(line.text):
        return False  # "e Migrated the platform": OCR reads a bullet as a letter
    hyphenated = len(head) >= 2 and head.endswith("-") and head[-2].isalpha()
    # Without a hyphen, only a line that ran to its column's width and stopped mid-phrase:
    # a list item ("Git, MySQL,") or a short label line is followed by its own line.
    if not hyphenated and not ampersand and (len(head) < MIN_WRAPPED or not head[-1].isalpha()):
        return False
    height = prev.bbox[3] - prev.bbox[1]
    below = line.bbox[1] - prev.bbox[3]
    return -2.0 <= below <= 0.8 * max(height, 1.0) and prev.bbox[0] - 5 <= line.bbox[0] <= prev.bbox[0] + HANGING_INDENT


def join_wrapped(lines: list[Line]) -> list[Line]:
    """Each line that continues the one before it (see above) joined onto it."""
    out: list[Line] = []
    for line in lines:
        prev = out[-1] if out else None
        if prev is None or not _continues(prev, line):
            out.append(line)
            continue
        head = prev.text
        last = head.rsplit(maxsplit=1)[-1]
        if head.endswith("-") and ("@" in last or "://" in last or last.startswith("www.")):
            text = head + line.text  # "jane@example-" + "company.com": the hyphen is the address's
        elif len(head) >= 2 and head.endswith("-") and head[-2].isalpha():
            text = head[:-1] + line.text  # "Na-" + "tionale"
        else:
            text = f"{head} {line.text}"
        a, b = prev.bbox, line.bbox
        assert a is not None and b is not None
        out[-1] = Line(
            text,
            prev.n,
            page=prev.page,
            bbox=(min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])),
            size=prev.size,
            runs=joined_runs(prev, line, 1) if text == f"{head} {line.text}" else None,
        )
    return _renumbered(out)


# -- dates in their own column -----------------------------------------------------------------
# TeX CV classes (moderncv, cv4tw, europasscv, the cv class) set an entry's dates in a narrow
# column of their own, left or right of "Title, Employer"; the PDF's text layer gives that
# column as a separate block, so the dates and the entry they date are far apart in reading
# order (and the text column reads as a new column: section "top"). A date cell and the line
# beside it on the same row are read as one line, "dates  Title, Employer", where the
# dates' column puts it in reading order.

_YEAR = re.compile(r"(?<!\d)(?:18|19|20)\d\d(?!\d)")
_DATE_WORDS = frozenset(
    {*lex.MONTHS, *lex.PRESENT_WORDS, *(w.rstrip(".") for w in lex.PRESENT_WORDS), *lex.SINCE_WORDS,
     "to", "bis", "until", "till", "and", "à", "au", "a", "al",
     "tot", "do", "hasta", "exp", "expected", "date", "jusqu", "t", "m", "summer", "winter", "spring", "fall",
     "autumn", "still", "on"}
)  # fmt: skip
_LETTER_RUNS = re.compile(r"[^\W\d_]+")
MAX_DATE_CELL = 40
MAX_ROW_GAP = 320.0  # points between right-aligned dates and the line left of them
MAX_COLUMN_GAP = 150.0  # points between a date column and the text right of it
MAX_ROW_SCAN = 40  # lines of one row looked at per date cell: linear on a hostile page
RIGHT_EDGE = 15.0  # right-aligned dates end this close to the page's rightmost text
_BULLETS = tuple("•◦▪▫‣∙*●○■□➢➤►✓✔–—-")
_LONE_BULLETS = frozenset(_BULLETS) - frozenset("*–—-")


_REMOTE = frozenset(
    {"remote", "remote-first", "hybrid", "homeoffice", "home office", "télétravail", "en remoto", "remoto", "remota",
     "à distance", "a distancia", "híbrido",
     "удаленно", "удалённо", "удаленная работа", "uzaktan", "hibrit", "zdalnie", "na dálku",  # layout-30
     "fernarbeit", "remote work", "remote-arbeit", "on-site", "onsite", "vor ort", "presencial",  # layout-33
     "worldwide", "anywhere", "weltweit", "mundial", "global", "international", "distributed",  # stop 50
     "remote-friendly", "fully remote", "full remote", "100% remote",
     "远程", "遠程", "遠端", "远程办公", "遠距", "リモート", "원격", "재택",  # layout-41
     "teletrabajo", "teletrabalho", "telelavoro", "trabajo remoto", "trabalho remoto"}  # layout-44
)  # fmt: skip
# The world's regions a role is set in ("Management & Analytics Consultant, Mexico City and
# Latin America": jbetancourt's, v15) - places, never an employer (layout-40)
_WORLD_REGIONS = frozenset(
    {"europe", "latin america", "north america", "south america", "central america", "asia", "africa",
     "middle east", "emea", "apac", "latam", "dach", "benelux", "nordics", "scandinavia", "oceania",
     "caribbean", "southeast asia", "east asia", "western europe", "eastern europe", "mena", "europa",
     "américa latina", "latinoamérica", "amérique latine", "lateinamerika", "asie", "afrique"}
)  # fmt: skip


def plain(text: str) -> str:
    """The text without icon glyphs: templates (AltaCV, Awesome-CV, rendercv) set a
    calendar or map-pin icon from an icon font (private-use code points) or an emoji
    before an entry's dates and place."""
    if text.isascii():
        return text
    return "".join(" " if unicodedata.category(ch) in ("Co", "So") else ch for ch in text)


_PARENTHESISED = re.compile(r"([^()]{2,40}?)\s?\(([^()]{2,30})\)")


_ORGANISATION_WORDS = frozenset(
    {"university", "college", "school", "institute", "universidad", "université", "universität", "universidade",
     "università", "uniwersytet", "hospital", "bank", "inc", "inc.", "ltd", "ltd.", "llc", "gmbh", "corp", "corp.",
     "corporation", "limited", "plc", "ag", "s.a.", "sarl", "b.v.",
     "company", "group", "laboratory", "lab", "labs", "centre", "center", "foundation", "agency", "ministry"}
)  # fmt: skip


_CITY_CODE = re.compile(r"(\w[\w .'-]{1,40}?)\s+([A-Z]{2,3})")
# "Brasília - DF", "Santa Cruz do Sul - RS", "São Paulo/SP": Brazil writes a town's state
# after a dash or a slash; "Asa Norte, Brasília - DF" puts its district first (layout-46).
_TOWN_DASH_UF = re.compile(r"([^\W\d_][^\d,;:()|@]{1,40}?)\s{0,2}(?:\s[-–—]\s|/)\s{0,2}([A-Z]{2})")
_BRAZIL_UF = frozenset(
    {"AC", "AL", "AP", "AM", "BA", "CE", "DF", "ES", "GO", "MA", "MT", "MS", "MG", "PA", "PB", "PR", "PE", "PI",
     "RJ", "RN", "RS", "RO", "RR", "SC", "SP", "SE", "TO"}
)  # fmt: skip
_REGIONS = frozenset(lex.COUNTRIES.values())
# "Canada/USA" (layout-42): a slash between two names needs no spaces
_TWO_PLACES = re.compile(r"\s+(?:&|and|/)\s+|(?<=[^\W\d_])/(?=[^\W\d_])")


# ISO 3166-1's alpha-3 country codes (249; as Debian's iso-codes 4.15 lists them): "Santiago,
# CHL", "Lima, PER" - awesome-cv's place column (v28's bgbustamante, layout-72).
_ISO_ALPHA3 = frozenset(
    {
     "ABW", "AFG", "AGO", "AIA", "ALA", "ALB", "AND", "ARE", "ARG", "ARM", "ASM", "ATA", "ATF", "ATG",
     "AUS", "AUT", "AZE", "BDI", "BEL", "BEN", "BES", "BFA", "BGD", "BGR", "BHR", "BHS", "BIH", "BLM",
     "BLR", "BLZ", "BMU", "BOL", "BRA", "BRB", "BRN", "BTN", "BVT", "BWA", "CAF", "CAN", "CCK", "CHE",
     "CHL", "CHN", "CIV", "CMR", "COD", "COG", "COK", "COL", "COM", "CPV", "CRI", "CUB", "CUW", "CXR",
     "CYM", "CYP", "CZE", "DEU", "DJI", "DMA", "DNK", "DOM", "DZA", "ECU", "EGY", "ERI", "ESH", "ESP",
     "EST", "ETH", "FIN", "FJI", "FLK", "FRA", "FRO", "FSM", "GAB", "GBR", "GEO", "GGY", "GHA", "GIB",
     "GIN", "GLP", "GMB", "GNB", "GNQ", "GRC", "GRD", "GRL", "GTM", "GUF", "GUM", "GUY", "HKG", "HMD",
     "HND", "HRV", "HTI", "HUN", "IDN", "IMN", "IND", "IOT", "IRL", "IRN", "IRQ", "ISL", "ISR", "ITA",
     "JAM", "JEY", "JOR", "JPN", "KAZ", "KEN", "KGZ", "KHM", "KIR", "KNA", "KOR", "KWT", "LAO", "LBN",
     "LBR", "LBY", "LCA", "LIE", "LKA", "LSO", "LTU", "LUX", "LVA", "MAC", "MAF", "MAR", "MCO", "MDA",
     "MDG", "MDV", "MEX", "MHL", "MKD", "MLI", "MLT", "MMR", "MNE", "MNG", "MNP", "MOZ", "MRT", "MSR",
     "MTQ", "MUS", "MWI", "MYS", "MYT", "NAM", "NCL", "NER", "NFK", "NGA", "NIC", "NIU", "NLD", "NOR",
     "NPL", "NRU", "NZL", "OMN", "PAK", "PAN", "PCN", "PER", "PHL", "PLW", "PNG", "POL", "PRI", "PRK",
     "PRT", "PRY", "PSE", "PYF", "QAT", "REU", "ROU", "RUS", "RWA", "SAU", "SDN", "SEN", "SGP", "SGS",
     "SHN", "SJM", "SLB", "SLE", "SLV", "SMR", "SOM", "SPM", "SRB", "SSD", "STP", "SUR", "SVK", "SVN",
     "SWE", "SWZ", "SXM", "SYC", "SYR", "TCA", "TCD", "TGO", "THA", "TJK", "TKL", "TKM", "TLS", "TON",
     "TTO", "TUN", "TUR", "TUV", "TWN", "TZA", "UGA", "UKR", "UMI", "URY", "USA", "UZB", "VAT", "VCT",
     "VEN", "VGB", "VIR", "VNM", "VUT", "WLF", "WSM", "YEM", "ZAF", "ZMB", "ZWE",
    }
)  # fmt: skip
# "Santiago, CHL", "OSTRAVA, CZ", "Lephalale, ZA": a town of one to three words and its
# country's code in capitals, alpha-2 or alpha-3 - not "Robert Bosch GmbH, DE" (a house) nor
# "Marketing, IT" (a post's word or a skill before the code).
_TOWN_COMMA_CODE = re.compile(r"([A-ZÀ-Ý][\w'’.-]+(?:[ -][A-ZÀ-Ý][\w'’.-]+){0,2}),\s([A-Z]{2,3})")


def _town_and_code(text: str) -> bool:
    coded = _TOWN_COMMA_CODE.fullmatch(plain(text).strip())
    if coded is None or not (coded.group(2) in _REGIONS or coded.group(2) in _ISO_ALPHA3):
        return False
    words = {w.casefold() for w in coded.group(1).replace("-", " ").split()}
    town = coded.group(1).casefold()
    return not words & (lex.JOB_WORDS | lex.POST_WORDS | _ORGANISATION_WORDS) and town not in lex.skills()


def _two_places(low: str) -> bool:
    """ "Palo Alto, CA & Ithaca, NY": a role held in two places; each part on its own is one
    (layout-32: the second city read as the employer, the first as the title)."""
    both = _TWO_PLACES.split(low)
    return 1 < len(both) <= 3 and all(is_place(part) for part in both)


def _city_and_code(text: str) -> bool:
    """ "Stuttgart DE": a known city and its country's ISO code (h48); "Perth WA", "Vancouver
    BC": its state's or province's code, no comma between (layout-62, v24's scurtis: "Apple inc
    (Perth WA)" was the employer whole); "Osaka Japan": its country's name."""
    clean = plain(text).strip()
    coded = _CITY_CODE.fullmatch(clean)
    if coded and coded.group(1).casefold() in lex.CITIES:
        code = coded.group(2)
        return code in _REGIONS or code in lex.STATE_CODES or code in lex.US_STATES
    town, _, country = clean.rpartition(" ")
    return bool(town) and country.casefold() in lex.COUNTRIES and town.casefold() in lex.CITIES


_TOWN_PARTICLES = frozenset({"do", "da", "de", "dos", "das", "e"})
# What a Brazilian house's name holds and a town's does not (its legal forms, its kinds).
_BRAZIL_HOUSE_WORDS = frozenset(
    {"ltda", "ltda.", "s/a", "eireli", "me", "banco", "grupo", "instituto", "faculdade", "escola", "colégio",
     "prefeitura", "secretaria", "ministério", "tribunal", "cartório", "fundação", "associação", "empresa",
     "companhia", "serviços", "soluções", "tecnologia", "sistemas", "consultoria", "engenharia", "informática"}
)  # fmt: skip


def _town_and_state(text: str) -> bool:
    """ "Brasília - DF", "São Paulo/SP": a Brazilian state's code after a dash or a slash,
    behind a known town or a town's name of two to four words ("Santa Cruz do Sul" - its
    words capitalised but its particles, none a post's or an organisation's). "Marketing -
    PR" is a department, "Acme Ltda - SP" a house, "Técnico de Infraestrutura - DF" a post."""
    coded = _TOWN_DASH_UF.fullmatch(plain(text).strip())
    if coded is None or coded.group(2) not in _BRAZIL_UF:
        return False
    town = coded.group(1).strip()
    if town.casefold() in lex.CITIES:
        return True
    words = town.replace("’", "'").split()
    low = {w.casefold() for w in words}
    return (
        2 <= len(words) <= 4
        and all(w[:1].isupper() or w in _TOWN_PARTICLES for w in words)
        and not low & (lex.JOB_WORDS | lex.POST_WORDS | _ORGANISATION_WORDS | _BRAZIL_HOUSE_WORDS)
    )


def _coded_country(state: str, country: str) -> bool:
    """A country's ISO code after a state's code (casefolded, as is_place reads them)."""
    state, country = state.strip().upper(), country.strip().upper()
    return country in _REGIONS and (state in lex.STATE_CODES or state in lex.US_STATES)


def is_place(text: str) -> bool:  # noqa: PLR0911 - one return per form of place, read as one list
    """A known city or country, "City, ST", "City - UF", "City, Country", or "Remote"."""
    # "İSTANBUL".casefold() keeps the capital's dot as U+0307 ("i̇stanbul"): without it,
    # the name (layout-30)
    low = plain(text).strip(" ()[]").casefold().replace("\u0307", "")
    if not low or len(low) > 60:
        return False
    # (the two-places split last: is_place is asked of every part of every header)
    if (
        low in _REMOTE
        or low in _WORLD_REGIONS
        or low in lex.CITIES
        or low in lex.COUNTRIES
        or _city_and_code(text)
        or _town_and_state(text)
        or _town_and_code(text)
        or _two_places(low)
    ):
        return True
    inner = _PARENTHESISED.fullmatch(plain(text).strip().casefold())
    if inner:  # "Remote (Switzerland)", "Spain & Remote (Italy)" (layout-6)
        # "Budapest (Hungary)": a short name before a country in brackets is its town
        head_ok = all(is_place(x) for x in inner.group(1).split(" & ")) or (
            len(inner.group(1).split()) <= 2 and inner.group(2).strip() in lex.COUNTRIES
        )
        return head_ok and is_place(inner.group(2))
    head, _, tail = low.partition(",")
    head, tail = head.strip(), tail.strip()
    # "University College London, UK" is an employer and its country (h47)
    organisation = bool(set(head.replace("’", "'").split()) & _ORGANISATION_WORDS)
    if _HAN.search(head) and head not in lex.CITIES and head not in lex.COUNTRIES:
        # Chinese is not spaced: "宾夕法尼亚州州立大学, 美国" (a university and its country) is
        # one "word" before a country; a Han head is a town only when it is a known one (layout-41)
        organisation = True
    if tail.count(",") == 1 and not organisation:  # "Mountain View, California, EUA": City, State, Country (layout-6)
        middle, _, country = tail.partition(",")
        words = (head + " " + middle).split()
        # "PeroPeroGames, Beijing, China": an employer before its city (h50)
        employer_first = middle.strip() in lex.CITIES and head not in lex.CITIES and not is_place(head)
        return (
            not employer_first
            # "Lecturer, University of Liverpool, UK": a post, its employer and country (layout-31)
            and not set(middle.replace("’", "'").split()) & _ORGANISATION_WORDS
            and len(words) <= 6
            and len(head.split()) <= 3  # "Universidad Nacional de Rosario, Rosario, Argentina" (h47)
            # "João Pessoa, PB, Br": a state's code, then the country's (layout-62, v24's cardoli)
            and (country.strip() in lex.COUNTRIES or _coded_country(middle, country))
            and not any(w.strip(".,") in lex.JOB_WORDS for w in words)  # "Engineer, Data Platform, Germany"
        )
    if organisation or not tail or "," in tail or len(head.split()) > 3:
        return False  # "Engineer, Data Platform, Germany" is no place
    if _town_and_state(plain(text).partition(",")[2]):
        return not set(head.split()) & lex.JOB_WORDS  # "Asa Norte, Brasília - DF": a district first
    return (
        head in lex.CITIES
        or tail in lex.COUNTRIES
        or tail.upper() in lex.US_STATES
        or ((tail.upper() in lex.STATE_CODES or tail in lex.US_STATE_NAMES) and not set(head.split()) & lex.JOB_WORDS)
    )


# "Front-end at PrintSoft 01.2021 -" then "05.2021" on the next line: a range the line broke
# after its dash (a narrow column). The end date alone on the next line is the range's end
# (layout-30; the role read as ongoing, and its years ran to today).
# "Sept. 2018 to" over "present" (layout-31): a word can end the line where a dash does.
_OPEN_SEP = r"(?:[-–—]|\b(?:" + "|".join(re.escape(w) for w in lex.SEPARATORS_AT_LINE_END if w.isalpha()) + "))"
_OPEN_AT_END = re.compile(r"(?:19|20)\d\d\s{0,2}" + _OPEN_SEP + r"\s{0,2}$")


# The same in a date column: "May 2021 -  Software Engineering Intern" over "Aug 2021  Stripe"
# (each date cell joined with its row): the second row's date is the first range's end.
_OPEN_CELL = re.compile(r"^(.{4,24}?(?:19|20)\d\d\s{0,2}" + _OPEN_SEP + r")\s{2,}(\S.*)$")
SAME_START = 2.0  # points: two lines of one date column start this close
# A narrow date column that wrapped its range after the start: "Nov 2022  Application
# Engineer" over "- present" / "- Nov 2022" (a résumé builder's, tbrinkley's; v16).
# (or a year and month as ISO writes them: "2022-07  Web Developer" over "- 2023-02", v28's
# etymoshuk, layout-72)
_CELL_START = re.compile(r"^(.{4,24}?(?:19|20)\d\d|(?:19|20)\d\d[-./](?:0[1-9]|1[0-2]))\s{2,}(\S.*)$")
_DANGLING_END = re.compile(r"^\s{0,2}" + _OPEN_SEP + r"\s{0,2}(\S.{0,20})$")
# A narrow date cell that wrapped its end between month and year: "Авг 2017 - Фев" over
# "2022" (an HTML export's flex row, krogozhkin's; v15).
_MONTH_AT_END = re.compile(r"(?:19|20)\d\d\s{0,2}" + _OPEN_SEP + r"\s{0,2}([^\W\d_]{3,10})\.?$")
_YEAR_ALONE = re.compile(r"\s*((?:19|20)\d\d)\s*")


def join_open_ranges(lines: list[Line]) -> list[Line]:
    out: list[Line] = []
    skip = False
    for k, line in enumerate(lines):
        if skip:
            skip = False
            continue
        nxt = lines[k + 1] if k + 1 < len(lines) else None
        if nxt is None or nxt.page != line.page:
            out.append(line)
            continue
        if _range_runs_on(line, nxt):
            out.append(dataclasses.replace(line, text=f"{line.text} {nxt.text.strip()}", runs=None))
            skip = True
            continue
        # a date column's cells, as joined rows or as one text line each ("Apr. 2018 to  Master
        # Thesis at ..." over "Sept. 2018  Spain)", both starting at the column's edge)
        column = (line.date_column and nxt.date_column) or _same_start(line, nxt)
        cell = _OPEN_CELL.match(line.text) if column else None
        head, sep, rest = nxt.text.partition("  ")
        if (
            cell
            and (sep or _present_alone(head))
            and (date_cell(head) or _present_alone(head))
            and date_cell(cell.group(1))
            and not _OPEN_AT_END.search(head)
        ):
            out.append(dataclasses.replace(line, text=f"{cell.group(1)} {head}  {cell.group(2)}", runs=None))
            if rest.strip():
                out.append(dataclasses.replace(nxt, text=rest.strip(), runs=None, date_column=False))
            skip = True
            continue
        start = _CELL_START.match(line.text) if _same_start(line, nxt) else None
        end = _DANGLING_END.match(nxt.text) if start else None
        if start and end and date_cell(start.group(1)) and (date_cell(end.group(1)) or _present_alone(end.group(1))):
            joined = f"{start.group(1)} - {end.group(1)}  {start.group(2)}"
            out.append(dataclasses.replace(line, text=joined, runs=None))
            skip = True
            continue
        out.append(line)
    return _renumbered(out) if len(out) != len(lines) else out


# "... (Удалённо) (2024" over "- 2025)": a range wrapped before its dash (Word; v15's rnady).
_YEAR_AT_END = re.compile(r"(?<!\d)(?:19|20)\d\d\)?$")


def _end_wrapped(line: Line, nxt: Line) -> bool:
    """Whether the next line is the rest of a range the line ends with the start of."""
    end = _DANGLING_END.match(nxt.text)
    if not end or not _YEAR_AT_END.search(line.text[-8:].rstrip(")")) or _OPEN_AT_END.search(line.text[-16:]):
        return False
    rest = end.group(1).strip(" ()")
    return date_cell(rest) or _present_alone(rest)


def _range_runs_on(line: Line, nxt: Line) -> bool:
    """Whether the next line is the rest of a date range the line ends with the start of:
    "2019 -" over "2022", "Авг 2017 - Фев" over "2022", "(2024" over "- 2025)"."""
    if (
        _OPEN_AT_END.search(line.text[-16:])
        and (date_cell(nxt.text) or _present_alone(nxt.text))
        and not _OPEN_AT_END.search(nxt.text)
    ):
        return True
    if _month_cut(line.text) and _YEAR_ALONE.fullmatch(nxt.text) and _under_its_end(line, nxt):
        return True
    return _end_wrapped(line, nxt)


def _month_cut(text: str) -> bool:
    """Whether the line ends with a range whose end is a month name without its year."""
    m = _MONTH_AT_END.search(text[-24:])
    return m is not None and m.group(1).casefold() in lex.MONTHS


_PRESENT_FOLDED = frozenset(w.casefold().rstrip(".") for w in lex.PRESENT_WORDS)


def _present_alone(text: str) -> bool:
    """ "present", "heute", "aujourd'hui" and nothing else: a range's open end on a line of its own."""
    return text.strip(" .,()").casefold() in _PRESENT_FOLDED


def _under_its_end(line: Line, nxt: Line) -> bool:
    """The next line starts where the line does, or (a cell joined to its row) under the
    line's right half, within its width, directly below it."""
    if _same_start(line, nxt):
        return True
    if line.bbox is None or nxt.bbox is None:
        return False
    x0, _, x1, y1 = line.bbox
    height = line.bbox[3] - line.bbox[1]
    return (x0 + x1) / 2 <= nxt.bbox[0] and nxt.bbox[2] <= x1 + SAME_START and 0 <= _top(nxt) - y1 <= height


def _same_start(line: Line, nxt: Line) -> bool:
    return line.bbox is not None and nxt.bbox is not None and abs(line.bbox[0] - nxt.bbox[0]) <= SAME_START


# How long, in brackets after a cell's dates: "2008 (1 mes)", "2017 (6mth)" (layout-38)
_CELL_DURATION = re.compile(r"\s{0,2}\(\s{0,2}(?:\d{1,2}(?:[.,]\d)?\s?[^\W\d_]{1,9}\.?\s{0,2}){1,2}\)$")


def date_cell(text: str) -> bool:
    """A line that is only a date or date range ("1888-1905", "since 1862", "Mar 2019 - now"),
    perhaps with how long it lasted in brackets after it ("2008 (1 mes)")."""
    if len(text) > MAX_DATE_CELL or not _YEAR.search(text):
        return False
    text = _CELL_DURATION.sub("", text)
    return all(w.casefold().rstrip(".") in _DATE_WORDS for w in _LETTER_RUNS.findall(text))


def _top(line: Line) -> float:
    # Rows are matched on the tops of the lines: a header wrapped over two lines (joined by
    # join_wrapped) starts on its dates' row, though its box's centre is lower.
    assert line.bbox is not None
    return line.bbox[1]


def _row_partner(
    cell: Line,
    rows: dict[tuple[int | None, int], list[Line]],
    used: set[int],
    right_edge: float,
    margins: Counter[tuple[int | None, int]] | None = None,
) -> Line | None:
    """The nearest line beside a date cell on its row (tops within a third of a line):
    right of a date column (close by), or left of dates set flush right - of the page, or
    of their own column (its text lines end where they do: a two-column CV's main column,
    h48), and then never right of them, where the other column is. A date line in the
    body's flow has neither: a sidebar's line level with it is another column's."""
    assert cell.bbox is not None
    in_column = margins is not None and _column_margin(cell, margins)
    flush_right = cell.bbox[2] >= right_edge - RIGHT_EDGE or in_column
    height = cell.bbox[3] - cell.bbox[1]
    tolerance = max(2.5, 0.35 * height)
    top = _top(cell)
    best: tuple[float, Line] | None = None
    for key in ((cell.page, int(top // 4) + d) for d in (-2, -1, 0, 1, 2)):
        for other in rows.get(key, [])[:MAX_ROW_SCAN]:
            if other.n in used or other is cell or other.bbox is None or abs(_top(other) - top) > tolerance:
                continue
            if other.bbox[0] >= cell.bbox[2] - 1 and not in_column:
                if _YEAR.search(other.text):
                    # "2019" at a sidebar's course list's right, level with the main column's
                    # "INFRASTRUCTURE SUPERVISOR Aug-2015 - Aug-2016": a line with dates of its
                    # own takes no date cell from its left (layout-31)
                    continue
                gap, limit = other.bbox[0] - cell.bbox[2], MAX_COLUMN_GAP
            elif other.bbox[2] <= cell.bbox[0] + 1 and flush_right:
                gap, limit = cell.bbox[0] - other.bbox[2], MAX_ROW_GAP
            else:
                continue  # overlapping boxes, or a line left of dates in the body's flow
            if gap > limit or date_cell(other.text) or heading_kind(other.text):
                continue
            if best is None or gap < best[0]:
                best = (gap, other)
    return best[1] if best else None


MIN_MARGIN_LINES = 3  # text lines ending at a date cell's right edge that make it a column's margin
MARGIN_SLACK = 2.0


def _column_margin(cell: Line, margins: Counter[tuple[int | None, int]]) -> bool:
    """Whether lines of running text on the cell's page end where the date cell does."""
    assert cell.bbox is not None
    edge = round(cell.bbox[2] / MARGIN_SLACK)
    return sum(margins[(cell.page, edge + d)] for d in (-1, 0, 1)) >= MIN_MARGIN_LINES


def join_date_rows(lines: list[Line]) -> list[Line]:
    """Each date cell joined with the line beside it on its row (PDF lines only). Linear:
    lines are bucketed by page and row, and a row's bucket is read only for its date cells."""
    rows: dict[tuple[int | None, int], list[Line]] = {}
    right_edge: dict[int | None, float] = {}
    # Right edges of running text's lines as (page, edge / slack): a column's margin. A line
    # that long is never a date cell (MIN_WRAPPED > MAX_DATE_CELL).
    margins: Counter[tuple[int | None, int]] = Counter()
    for line in lines:
        if line.bbox is not None:
            rows.setdefault((line.page, int(_top(line) // 4)), []).append(line)
            right_edge[line.page] = max(right_edge.get(line.page, 0.0), line.bbox[2])
            if len(line.text) >= MIN_WRAPPED:
                margins[(line.page, round(line.bbox[2] / MARGIN_SLACK))] += 1
    joined: dict[int, Line] = {}  # the earlier line's n -> the joined line
    used: set[int] = set()
    at = {line.n: k for k, line in enumerate(lines)}
    for k, line in enumerate(lines):
        if line.bbox is None or line.n in used or not date_cell(line.text):
            continue
        if k and _stacked_under(lines[k - 1], line):
            continue
        other = _row_partner(line, rows, used, right_edge[line.page], margins)
        if other is None or other.bbox is None:
            continue
        used |= {line.n, other.n}
        a, b = line.bbox, other.bbox
        left, right = (line, other) if a[0] <= b[0] else (other, line)
        first = min(line.n, other.n)
        joined[first] = Line(
            f"{left.text}  {right.text}",
            first,
            page=line.page,
            bbox=(min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])),
            size=max(line.size, other.size),
            dates_beside_bullet=(
                date_cell(line.text)
                and other.text.startswith(_BULLETS)
                and not (left is other and _bullet_opens_entry(lines[at[other.n] - 1] if at[other.n] else None, other))
            ),
            date_column=left is line,
            runs=joined_runs(left, right, 2),
        )
    if not joined:
        return lines
    out: list[Line] = []
    for line in lines:
        if line.n in joined:
            out.append(joined[line.n])
        elif line.n not in used:
            out.append(line)
    return _renumbered(out)


BULLET_INDENT = 2.0  # points: a line this much right of a bullet is set in from it


def _bullet_opens_entry(above: Line | None, bullet: Line) -> bool:
    """Whether a bulleted line with dates flush right of it is an entry's own first line
    ("• A.I. Engineer, Javis SRL (Remote, Italy)  2024/03 - 2024/12" under "Work
    Experience", or under the previous entry's description set in from the bullets: v22's
    pnasiri, layout-56) rather than the first bullet of a description whose header is the
    line above, set left of it (rendercv's "Nexus AI, Co-Founder & CTO")."""
    # (sections are not assigned yet where this is asked: a heading is known by its words)
    if above is None or heading_kind(above.text):
        return True
    return above.bbox is not None and bullet.bbox is not None and above.bbox[0] > bullet.bbox[0] + BULLET_INDENT


def _stacked_under(above: Line, cell: Line) -> bool:
    """Whether a date cell is the last line of a stack set right under the entry's other
    lines, in their column ("Freelancer" / "Remote" / "Since Sept. 2016", wkhtmltopdf's
    table): the text level with it in the next column is the entry's description, not a
    "Title, Employer" beside a date column (h44)."""
    gap = _flush_gap(above, cell)
    if gap is None or date_cell(above.text) or heading_kind(above.text):
        return False  # (a heading: a date column's first cell right under the section's heading)
    assert cell.bbox is not None
    return 0 <= gap < 0.8 * max(cell.bbox[3] - cell.bbox[1], 1.0)


COLUMN_BAND = 40.0  # points: lines starting in one band of x are one column's (layout-12)


# A line set like the document's own headings is a heading even when its words are not
# in the lexicon ("Mentorship", "Selected invited talks & tutorials", "Grants"): it ends
# the section before it (h44). Its kind comes from a heading word in it, else "other".
STYLE_SIZE_TOLERANCE = 0.25
# OCR'd sizes of one style vary by a few per cent line to line (MuPDF's estimate from each
# line's glyph boxes), a text layer's not at all.
OCR_STYLE_SIZE_SHARE = 0.08
# The share of a line's OCR'd size its descenders add: "Research Experience" (its "p")
# reads 14.3 beside "Education" 12.4 and "Publications" 12.0, all set in one 14.3 pt style.
_DESCENDER_SHARE = 0.15
_DESCENDERS = frozenset("gjpqyç")


def _font_size(line: Line) -> float:
    return line.size


def _ink_size(line: Line) -> float:
    """An OCR'd line's size as if it had descenders: the estimate comes from the glyphs'
    ink, and a line without descending letters has less of it."""
    return line.size if any(ch in _DESCENDERS for ch in line.text) else line.size / (1 - _DESCENDER_SHARE)


MIN_KNOWN_HEADINGS = 2
MAX_STYLED_HEADING_WORDS = 6
_STYLED_AMBIGUOUS = frozenset({"software", "work", "career", "parcours", "tools", "formation", "about", "profile"})
_HEADING_WORD_KIND = {
    # Teaching is no role of the experience section's kind (labels: courses taught are not
    # work history).
    "teaching": "other",
    **{
        name: kind
        for name, kind in _HEADING_KIND.items()
        if " " not in name
        and kind in ("experience", "education", "skills", "languages")
        and name not in _STYLED_AMBIGUOUS
    },
}


def _styled_headings(
    lines: list[Line], kinds: dict[int, str | None], beside: set[int], *, ocr: bool = False
) -> dict[int, str]:
    """{line n: kind} of the lines set in the size, case and indent of the headings the
    lexicon recognised in this document (PDF lines only), after the first of them. `kinds`:
    each line's heading_kind, read once by _assign_sections. An OCR'd page's sizes are
    read from the glyphs' ink: there, a line a heading's word names (`_HEADING_WORD_KIND`)
    is also compared by `_ink_size`, within a share of the headings' (layout-45: "Research
    Experience" beside "Education" and "Publications")."""
    found = _styled(lines, kinds, beside, _font_size, tolerance=STYLE_SIZE_TOLERANCE, over_body=0.5, worded=False)
    if ocr:
        share = OCR_STYLE_SIZE_SHARE
        worded = _styled(lines, kinds, beside, _ink_size, tolerance=share, over_body=share, worded=True)
        found = worded | found
    return found


def _styled(
    lines: list[Line],
    kinds: dict[int, str | None],
    beside: set[int],
    size_of: Callable[[Line], float],
    *,
    tolerance: float,
    over_body: float,
    worded: bool,
) -> dict[int, str]:
    """_styled_headings' reading for one measure of size: `tolerance` and `over_body` (how
    much larger than the body's median the headings are) in points, or, when `worded`, as
    shares of the headings' size - and then only lines with a heading's word count."""
    known = [ln for ln in lines if ln.bbox is not None and ln.part not in ("header", "footer") and kinds[ln.n]]
    if len(known) < MIN_KNOWN_HEADINGS:
        return {}
    sizes = sorted(round(size_of(ln), 1) for ln in known)
    size = sizes[len(sizes) // 2]
    if worded:
        tolerance, over_body = tolerance * size, over_body * size
    alike = [ln for ln in known if abs(size_of(ln) - size) <= tolerance]
    if len(alike) < MIN_KNOWN_HEADINGS:
        return {}
    body = sorted(round(size_of(ln), 1) for ln in lines if ln.bbox is not None)
    if size <= body[len(body) // 2] + over_body:
        return {}  # headings set like body text: size tells nothing
    upper = all(ln.text.isupper() for ln in alike)
    indents = [ln.bbox[0] for ln in alike if ln.bbox is not None]
    first = min(ln.n for ln in alike)
    out: dict[int, str] = {}
    for k, ln in enumerate(lines):
        text = ln.text.strip()
        if (
            ln.n <= first
            or ln.bbox is None
            or ln.part in ("header", "footer")
            or abs(size_of(ln) - size) > tolerance
            or (upper and not text.isupper())
            or not text[:1].isalpha()
            or len(text) > 60
            or len(text.split()) > MAX_STYLED_HEADING_WORDS
            or any(ch.isdigit() or ch == "@" for ch in text)
            or text.endswith((".", ",", ";"))
            or ", " in text  # "QA Engineer, Initech Ltd": an entry (OCR's sizes vary line to line)
            or not any(abs(ln.bbox[0] - x) <= 3 for x in indents)
            or kinds[ln.n]
            or ln.n in beside
            # last: the only test that looks at another line
            or _over_dates(ln, lines[k + 1] if k + 1 < len(lines) else None)
        ):
            continue
        words = [w.strip(",.:;&()").casefold() for w in text.split()]
        if worded and not any(w in _HEADING_WORD_KIND for w in words):
            # OCR'd sizes vary too much to tell a heading by its size alone (an employer's
            # line in capitals reads in the headings' size): its words must say it too
            continue
        if words == ["research"]:
            continue  # a student's research positions (Deedy's) or a researcher's interests: left as they were
        if "research" in words:
            # "Research Experience": projects, not roles (the corpus's label convention) -
            # unless the CV has no other experience section: then it lists the posts held
            # ("Senior Research Software Engineer at University College London", h47)
            has_experience = "experience" in kinds.values() or "experience" in out.values()
            out[ln.n] = "other" if has_experience or "experience" not in words else "experience"
            continue
        out[ln.n] = next((_HEADING_WORD_KIND[w] for w in words if w in _HEADING_WORD_KIND), "other")
    return out


_YEAR_IN = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


def _over_dates(line: Line, below: Line | None) -> bool:
    """The line right under this one holds a role's dates and little else ("Especialista em
    Pesquisa e Desenvolvimento" over "02/2023 - 06/2025"): an entry's post, not a heading set
    like the document's own - OCR's sizes vary from line to line (abassi's scan, v16)."""
    # Headings are short, and a text layer's sizes tell them: a post of four words or more on
    # a scan only ("Certificaciones" over "2019 - 2020" stays a heading)
    if line.runs is not None or len(line.text.split()) < 4:
        return False
    if below is None or line.bbox is None or below.bbox is None or below.page != line.page:
        return False
    height = max(line.bbox[3] - line.bbox[1], 1.0)
    if not 0 <= below.bbox[1] - line.bbox[1] <= 2.5 * height:
        return False
    letters = sum(ch.isalpha() for ch in below.text)
    return bool(_YEAR_IN.search(below.text)) and letters <= 15 and len(below.text.split()) <= 6


def _docx_labels(lines: list[Line], kinds: dict[int, str | None]) -> set[int]:
    """DOCX lines whose words are a heading's but whose paragraph style is not: a document
    whose headings are Word's "Heading" styles sets a role's own "Skills" / "Responsibilities"
    labels in a definition-list style it also uses for dates and titles (pandoc's
    "DefinitionTerm", h46) - a label inside the role, not a new section."""
    styled = [ln for ln in lines if ln.style and kinds[ln.n]]
    if sum(1 for ln in styled if ln.style and ln.style.startswith("Heading")) < MIN_KNOWN_HEADINGS:
        return set()
    plain_styles: dict[str, int] = {}
    for ln in lines:
        if ln.style and not kinds[ln.n]:
            plain_styles[ln.style] = plain_styles.get(ln.style, 0) + 1
    return {
        ln.n
        for ln in styled
        if ln.style
        and not ln.style.startswith(("Heading", "Title"))
        and plain_styles.get(ln.style, 0) >= MIN_LABEL_USES
    }


MIN_LABEL_USES = 3


def _pdf_labels(lines: list[Line], kinds: dict[int, str | None]) -> set[int]:
    """PDF lines whose words are a heading's but which are set as a label inside an entry:
    "Tech stack:" in the body's size under a role, where the document's headings are larger
    ("Experience" at 12 pt over 8 pt text, h47). Only lines ending with a colon."""
    known = [ln for ln in lines if ln.bbox is not None and ln.size and kinds[ln.n]]
    big = [ln.size for ln in known if not ln.text.rstrip().endswith(":")]
    if len(big) < MIN_KNOWN_HEADINGS:
        return set()
    body = sorted(round(ln.size, 1) for ln in lines if ln.bbox is not None and ln.size)
    body_size = body[len(body) // 2]
    heading_size = sorted(big)[len(big) // 2]
    if heading_size <= body_size + 0.5:
        return set()  # headings set like body text: size tells nothing
    return {
        ln.n
        for ln in known
        if ln.text.rstrip().endswith(":") and ln.size <= body_size + 0.5 and ln.size < heading_size - 1
    }


BESIDE_GAP = 30.0  # points


def _beside_dates(lines: list[Line]) -> set[int]:
    """PDF lines with a dated line right beside them on their row: "Head of Digital
    Experience" then "Advanced MedTech, May 2019-Feb 2021" is a role's title, not a heading
    (a heading has its row to itself, h47) - unless it is set larger than the dated line: a
    left column's "EXPERIENCE" at 11.5 pt beside the first role's "Coolblue  11 / 2014 -
    Present" at 8.9 pt heads the section (stop 50)."""
    out = set()
    for a, b in itertools.pairwise(lines):
        if (
            a.bbox is not None
            and b.bbox is not None
            and a.page == b.page
            and not (a.size and b.size and a.size >= b.size + 1.5)
            and a.bbox[2] < b.bbox[0] < a.bbox[2] + BESIDE_GAP  # not the next column's row
            and abs((a.bbox[1] + a.bbox[3]) - (b.bbox[1] + b.bbox[3])) < 4
            and _YEAR.search(b.text)
        ):
            out.add(a.n)
    return out


# "References" / "Available upon request" names no referee: a CV's last section, and the
# candidate's own footer after it ("jane@example.com • (404) 555 0100") was read as a
# referee's contact line (h54).
_ON_REQUEST = re.compile(
    r"(?:up)?on request|upon demand|sur demande|auf anfrage|a pedido|sob consulta|a petici[oó]n"
    r"|bajo petici[oó]n|su richiesta|op aanvraag|na (?:życzenie|żądanie)",
    re.IGNORECASE,
)
MAX_ON_REQUEST = 80


def _references_on_request(lines: list[Line]) -> None:
    """The lines after a references section's only statement, that references are given on
    request, are no referee's: out of the references section (into "other")."""
    k = 0
    while k < len(lines):
        if not (lines[k].heading == "references" and k + 1 < len(lines) and lines[k + 1].section == "references"):
            k += 1
            continue
        first = lines[k + 1]
        k += 2
        if len(first.text) > MAX_ON_REQUEST or not _ON_REQUEST.search(first.text):
            continue
        while k < len(lines) and lines[k].section == "references" and lines[k].heading is None:
            lines[k].section = "other"
            k += 1


def _heading_second_lines(lines: list[Line], kinds: dict[int, str | None], styled: dict[int, str]) -> None:
    """ "HABILIDADES" over "TÉCNICAS": a heading set on two lines, its second line styled as
    one, is one heading - not a section of its own after it (layout-41)."""
    for a, b in itertools.pairwise(lines):
        kind = kinds[a.n]
        if kind and b.n in styled and kinds[b.n] is None and heading_kind(f"{a.text} {b.text}") == kind:
            del styled[b.n]


# A page's footer ("Page 1 of 2", LinkedIn's export and others): no line of the section it
# falls in - it closed the last page's education field in stop 62's newcomer check (layout-55)
PAGE_FOOTER = re.compile(
    # layout-65: "Page 1 of4" (v25's atanwar, a LinkedIn export's footer with its space lost -
    # read as a role's house), and the footer's words in Danish, Swedish, French and Dutch
    r"(?i:page|página|pagina|seite|strona|sayfa|side|sida)\s{1,2}\d{1,2}\s{1,2}"
    r"(?i:of|de|di|von|z|/|af|av|sur|van)\s{0,2}\d{1,2}"
    # layout-68: "Michael Boiman · 2/4", the name and the page's count (an HTML CV's footer,
    # v19's mboiman - read as the employer of the role below it)
    r"|[^\W\d][\w.'’ -]{1,60}\s[·|]\s\d{1,2}\s?/\s?\d{1,2}"
    # layout-71: Europass's "© European Union, 2002-2018 | http://europass.cedefop.europa.eu"
    # (OCR reads the © as "©" or drops it) - read as an education entry of its own on a scan
    r"|(?:\W{1,2}\s?)?European\sUnion,\s\d{4}\s?[-–—]\s?\d{4}(?:\s?\|\s?\S{0,12}europass\S{0,40})?"
)


def _footer_before(footer: Line | None, line: Line, prev: Line | None, kinds: Mapping[int, str | None]) -> Line | None:
    """The first page's footer ("Page 1 of 6") while the lines given after it lie above it
    and are no heading - a LinkedIn export's long headline, 3 lines under the name, written
    last (v25's jbjerrekaer): out of the reading order, those lines are the top's and start
    no column, else the next page's roles went on in "top" and ten of eleven were lost
    (layout-65). The line itself when it is that footer; None otherwise. A footer written
    first on its page (Word's) is none: the line before it is of another page or none."""
    if line.bbox is None:
        return None  # a DOCX's paragraph: no page to be out of order on
    if footer is not None and line.page == footer.page and not kinds[line.n] and _top(line) < _top(footer):
        return footer
    if line.page == 1 and prev is not None and prev.page == 1 and PAGE_FOOTER.fullmatch(line.text.strip()):
        return line
    return None


def _less_small_labels(lines: list[Line], kinds: dict[int, str | None]) -> None:
    """An "other" heading's words in type smaller than the body's and not bold, where two
    or more of the document's headings are set at least 1.4 times larger, are a label
    inside a role: novoresume's "Achievements/Tasks" (8 pt italic, the headings 13.9 pt,
    drawn after the page's other text) over each role's bullets opened an "other" section
    that cut the experience after its first role (v27's pankajk, layout-70). A text layer's
    sizes only: OCR's vary line to line."""
    sized = [ln for ln in lines if ln.runs is not None and ln.size > 0]
    if not sized:
        return
    body = statistics.median(ln.size for ln in sized)
    heading_sizes = sorted(ln.size for ln in sized if kinds[ln.n])
    for ln in sized:
        # Only "other": a skills list's small sub-headings ("Languages", "Frameworks") still
        # say what the items under them are. Not bold: a sidebar's bold "Certifications" in
        # the body's size is a sub-heading (v17's fspadotto).
        if kinds[ln.n] != "other" or ln.size >= body or any(style & 1 for _, style, _ in ln.runs or ()):
            continue
        larger = len(heading_sizes) - bisect.bisect_left(heading_sizes, 1.4 * ln.size)
        if larger >= MIN_KNOWN_HEADINGS:
            kinds[ln.n] = None


def _assign_sections(lines: list[Line], *, ocr: bool = False) -> None:
    beside = _beside_dates(lines)
    kinds = {ln.n: None if ln.n in beside else heading_kind(ln.text) for ln in lines}
    _less_small_labels(lines, kinds)
    styled = _styled_headings(lines, kinds, beside, ocr=ocr)
    _heading_second_lines(lines, kinds, styled)
    labels = _docx_labels(lines, kinds) | _pdf_labels(lines, kinds)
    section = "top"
    opened: Line | None = None  # the heading of the current section
    parent: Line | None = None  # the last heading that is no sub-heading of a larger one
    prev: Line | None = None
    columns = _Columns()
    # Headings written without a colon: a line that ends with one inside a role is the role's
    # own label ("Publications:", "Teaching:", "Talks & Conferences:" under a research post,
    # the headings "Experiences", "Education") - no section of the CV (layout-31).
    main = [ln for ln in lines if kinds[ln.n] in ("experience", "education", "skills") and ln.n not in labels]
    colon_free = len(main) >= MIN_KNOWN_HEADINGS and not any(ln.text.rstrip().endswith(":") for ln in main)
    footer: Line | None = None  # the first page's "Page 1 of 6", while lines above it follow it
    for line in lines:
        if prev is not None and line.page != prev.page:
            columns.page_ended()
        if line.part in ("header", "footer"):
            line.section = line.part
            continue
        footer = _footer_before(footer, line, prev, kinds)
        if footer is not None and footer is not line:
            line.section = "top"  # given after the footer, out of the reading order
            continue
        if (
            prev is not None
            and _column_break(prev, line)
            and not _flush_right_aside(prev, line)
            and not _below(line, opened)
        ):
            # A new column on the first page starts again at the top (a sidebar CV's
            # main column holds the name after the sidebar's sections, or vice versa) -
            # unless it starts below the heading of the section it is in: a table's second
            # column beside an entry (wkhtmltopdf's "Title / Employer / dates | stack, text"
            # rows) goes on in that section (h44); a new column of sub-sections under one
            # larger heading ("Technical expertise" over "Frameworks | Platforms |
            # Containers") goes on in the larger heading's (h47).
            if parent is not None and parent.heading and _below(line, parent):
                section = parent.heading
            else:
                section = "top" if line.page == 1 else columns.went_on(line, section, ocr=ocr)
        elif (
            prev is not None
            and opened is not None
            and opened.heading in ("experience", "education")
            and section != opened.heading
            and _back_under(line, prev, opened)
        ):
            # The column comes back below its own heading after another column's lines broke
            # in (a sidebar's text layer given between "PROFESSIONAL EXPERIENCE" and its
            # first role): it goes on in that heading's section (v15). Only a section of
            # entries: a sidebar's "LANGUAGES" is no heading of what a later column holds.
            section = opened.heading
        kind = None if line.n in labels else kinds[line.n] or styled.get(line.n)
        if kind is not None and _no_heading_here(line, kind, prev, section, parent, colon_free=colon_free):
            kind = None
        if kind is not None:
            section = kind
            line.heading = kind
            if parent is None or not _a_step_smaller(line, parent) or line.page != parent.page:
                parent = line  # not a sub-heading of the last larger heading: it is the parent now
            opened = line
        line.section = section
        columns.seen(line, section)
        prev = line
    _headings_placed(lines)
    if not ocr:  # an OCR'd page's reading order is the column walk's (_by_columns), not a text layer's
        headings = _page_headings(lines)
        _lines_before_their_heading(lines, headings)
        _lines_above_their_heading(lines, headings)
    _languages_under_skills(lines)
    _role_stacks_in_experience(lines)


# Words a spoken-languages line is made of besides the language itself ("Italian: Native",
# "English (C1)", "Beginner/Intermediate").
_LEVEL_WORDS = frozenset(
    {"native", "fluent", "basic", "basics", "beginner", "intermediate", "advanced", "proficient", "professional",
     "working", "proficiency", "full", "limited", "elementary", "conversational", "bilingual", "mother", "tongue",
     "speaker", "good", "very", "excellent", "business", "level", "a1", "a2", "b1", "b2", "c1", "c2",
     "muttersprache", "fließend", "grundkenntnisse", "verhandlungssicher", "gut", "sehr", "courant", "natif",
     "maternelle", "langue", "notions", "nativo", "nativa", "fluido", "avanzado", "intermedio",
     "básico", "lengua", "materna", "avancé", "intermédiaire", "débutant", "fluente", "avançado"}
)  # fmt: skip
_LETTERS = re.compile(r"[^\W\d_]+")
SUBHEADING_STEP = 1.5  # points smaller than its parent heading: a sub-heading, not OCR's size noise


# What a role lists under its own label: a heading's words only at a section heading's size.
# And "Internship", a role's title in its roles' titles' size (AltaCV, v22's pfeiteira;
# layout-56) - a section of internships is written in the plural.
_ROLE_LABELS = frozenset(
    {"achievements", "key achievements", "accomplishments", "key accomplishments", "highlights", "responsibilities",
     "key responsibilities", "tasks", "erfolge", "aufgaben", "réalisations", "logros", "realizações",
     "internship"}
)  # fmt: skip


def _role_label(line: Line, parent: Line) -> bool:
    """ "Key Achievements: -" (or "Internship") set a step smaller than the "Work Experience"
    heading above it: a role's own label or title, not a section of the CV (jpnewman's
    twenty-seconds CV, h51)."""
    key = _HEADING_STRIP.sub("", line.text).casefold().strip(" :-–")
    # novoresume's "Achievements/Tasks" over each role's bullets: labels joined by a slash
    labelled = key in _ROLE_LABELS or all(part.strip() in _ROLE_LABELS for part in key.split("/"))
    return labelled and parent.heading == "experience" and _a_step_smaller(line, parent)


def _inside_role(line: Line, parent: Line) -> bool:
    """A line with an "other" heading's words ("Technical Leadership", "Projects") indented
    right of the experience heading and set a step smaller: a theme of one role's bullets."""
    if parent.heading != "experience" or line.bbox is None or parent.bbox is None or line.size <= 0:
        return False
    return line.bbox[0] >= parent.bbox[0] + INDENT_MIN and _a_step_smaller(line, parent)


INDENT_MIN = 8.0  # points: a role's own sub-heading starts this far right of the section's heading


def _role_stacks_in_experience(lines: list[Line]) -> None:
    """ "Tech stack:" under each role of the experience section (a DOCX with no heading
    styles): a label ending in a colon whose block holds the next role's dated line is the
    role's own list, not a skills section - the roles after it stay experience (h51).

    So is a text layer's skills or "other" heading set a step smaller than the experience
    heading above it, when its block - or a later such heading's, with no larger heading
    between - holds a dated line below it: an HTML CV's "Tools & technologies" and "Key
    Achievements" in the body's size under each role (v19's mboiman; layout-71)."""
    parent: Line | None = None  # the experience heading the roles are under
    pending: list[tuple[Line, list[Line]]] = []  # sub-headings whose blocks held no role yet
    for i, line in enumerate(lines):
        if line.heading == "experience":
            parent, pending = line, []
            continue
        if not line.heading:
            continue
        stack = line.heading == "skills" and line.text.rstrip().endswith(":")
        after_roles = i > 0 and (lines[i - 1].section == "experience" or bool(pending))
        if line.heading not in ("skills", "other") or not after_roles or not (stack or _sub_label(line, parent)):
            parent, pending = None, []
            continue
        end = i + 1
        while end < len(lines) and not lines[end].heading:  # each block is walked once: linear
            end += 1
        block = lines[i + 1 : end]
        if not any(_YEAR.search(ln.text) and len(ln.text) <= 120 and (stack or _after(ln, line)) for ln in block):
            if not stack:
                pending.append((line, block))
            continue  # a real skills section after the roles, or a role's label with more to come
        for label, its_block in [*pending, (line, block)]:
            label.heading = None
            for ln in (label, *its_block):
                ln.section = "experience"
        pending = []


def _after(line: Line, label: Line) -> bool:
    """Whether a line is set below the label on its page, or on a later page."""
    if line.bbox is None or label.bbox is None or line.page is None or label.page is None:
        return False
    return line.page > label.page or (line.page == label.page and line.bbox[1] > label.bbox[1])


def _sub_label(line: Line, parent: Line | None) -> bool:
    """A text layer's heading a step smaller than the experience heading above it."""
    return (
        parent is not None
        and line.runs is not None
        and parent.runs is not None
        and line.size > 0
        and _a_step_smaller(line, parent)
    )


def _a_step_smaller(heading: Line, parent: Line) -> bool:
    """Whether a heading is set a sub-heading's step smaller than the larger one above it."""
    return heading.size <= parent.size - SUBHEADING_STEP


def _spoken_language_line(text: str) -> bool:
    words = [w.casefold() for w in _LETTERS.findall(text)]
    return any(w in lex.LANGUAGES or w in _LEVEL_WORDS for w in words)


def _languages_under_skills(lines: list[Line]) -> None:
    """A "Languages" sub-heading set smaller under a skills heading ("Technical expertise" /
    "Languages" / "Bash", "Python"; "Skills and Competences" / "Languages" / "Italian: Native"
    then "Technical and Organizational"): what in its section is not a spoken language is the
    skills section's (h47). PDF lines with sizes only."""
    parent: Line | None = None
    inside = False
    for line in lines:
        if line.heading:
            if line.heading == "skills":
                parent, inside = line, False
            elif line.heading == "languages":
                inside = parent is not None and line.size > 0 and _a_step_smaller(line, parent)
            else:
                parent, inside = None, False
            continue
        if inside and line.section == "languages" and not _spoken_language_line(line.text):
            line.section = "skills"


def _place_trailing_headings(lines: list[Line]) -> None:
    """A page whose headings all come after its text in the text layer, one after the other
    (a JSON Resume theme draws them as rules' captions: "WORK EXPERIENCE", "SKILLS", ...
    last), or all before it: each line is in the section of the nearest heading above it on
    the page (h44, h47)."""
    for page_lines in _by_page(lines).values():
        headings = [ln for ln in page_lines if ln.heading and ln.bbox is not None]
        if len(headings) < MIN_KNOWN_HEADINGS:
            continue
        body = [ln for ln in page_lines if not ln.heading and ln.part not in ("header", "footer")]
        if not body:
            continue
        run = sorted(ln.n for ln in headings)
        # ... or all before it, one after the other, at the page's top (pandoc's HTML resume:
        # "Experience", "Education" in a margin column, then every entry; h47)
        leading = run[-1] - run[0] == len(run) - 1 and sum(ln.n > run[-1] for ln in body) >= 0.8 * len(body)
        if body[-1].n > run[0] and not leading:
            _place_column_headings(headings, body)
            continue  # headings among the page's text lines: reading order holds
        ordered = sorted(headings, key=_top)
        for line in body:
            if line.bbox is None:
                continue
            above = [h for h in ordered if _top(h) <= _top(line)]
            line.section = above[-1].heading if above and above[-1].heading else "top"


def _place_column_headings(headings: list[Line], body: list[Line]) -> None:
    """The same, one column at a time: a Canva page draws its sidebar's headings and text,
    then the main column's headings one after the other ("WORK EXPERIENCE", "EDUCATION",
    "PROFILE", out of their order on the page) and then the main column's text. A column
    whose headings come one after the other before all of its text has each of its lines
    in the section of the nearest of its headings above it (layout-33)."""
    starts = sorted({round(h.bbox[0]) for h in headings if h.bbox is not None})
    columns: list[list[Line]] = []
    for x in starts:
        if columns and abs(x - columns[-1][0].bbox[0]) <= COLUMN_START_SLACK:  # type: ignore[index]
            continue
        columns.append([h for h in headings if h.bbox is not None and abs(h.bbox[0] - x) <= COLUMN_START_SLACK])
    if len(columns) < 2:
        return
    edges = [min(h.bbox[0] for h in col) for col in columns] + [float("inf")]  # type: ignore[index]
    for k, col in enumerate(columns):
        run = sorted(h.n for h in col)
        if len(col) < MIN_KNOWN_HEADINGS or run[-1] - run[0] != len(run) - 1:
            continue
        mine = [ln for ln in body if ln.bbox is not None and edges[k] - 4 <= ln.bbox[0] < edges[k + 1] - 4]
        first_top = min(_top(h) for h in col)
        # every line of the column after its headings, but for those above them (its name)
        if not mine or not all(ln.n > run[-1] or _top(ln) < first_top for ln in mine):
            continue
        ordered = sorted(col, key=_top)
        for line in mine:
            above = [h for h in ordered if _top(h) <= _top(line)]
            if above and above[-1].heading:
                line.section = above[-1].heading


MAX_PAGE_HEADINGS = 40  # a page with more "headings" is no CV page: its lines are left as read


def _page_headings(lines: list[Line]) -> dict[int | None, list[Line]]:
    """Each page's headings with boxes, top to bottom; none for a page with more than
    MAX_PAGE_HEADINGS (no CV page: its lines are left as read)."""
    pages = _by_page(ln for ln in lines if ln.heading and ln.bbox is not None)
    return {page: [] if len(found) > MAX_PAGE_HEADINGS else sorted(found, key=_top) for page, found in pages.items()}


def _headings_placed(lines: list[Line]) -> None:
    """The passes that move lines into the section of a heading the reading order missed."""
    _place_trailing_headings(lines)
    _two_line_label_headings(lines)
    _references_on_request(lines)


LABEL_LOOKBACK = 4  # lines the text layer gives between a label heading's two lines


def _two_line_label_headings(lines: list[Line]) -> None:
    """ "TECHNICAL" over "EXPERIENCE" in a label column left of the roles (a Google Docs
    table): the heading's first line is level with the first role's "SimpliSafe, Boston MA",
    which the text layer gives between the heading's two lines - so the role went on in the
    section before. The first line, set right above the heading in its column and making one
    heading with it: the lines given between them are the heading's section."""
    for i, heading in enumerate(lines):
        if not heading.heading or heading.bbox is None:
            continue
        for j in range(i - 1, max(i - 1 - LABEL_LOOKBACK, -1), -1):
            first = lines[j]
            if first.heading or first.bbox is None or first.page != heading.page:
                break
            height = max(heading.bbox[3] - heading.bbox[1], 1.0)
            if (
                abs(first.bbox[0] - heading.bbox[0]) <= 2
                and 0 <= heading.bbox[1] - first.bbox[3] < height
                and first.text[:1].isalpha()  # a word, not a bullet's dash
                and heading_kind(first.text) is None
                and heading_kind(f"{first.text} {heading.text}") == heading.heading
            ):
                for ln in lines[j + 1 : i]:  # the first line itself is left: no item of the section
                    ln.section = heading.heading
                break


def _lines_before_their_heading(lines: list[Line], by_page: dict[int | None, list[Line]]) -> None:
    """A line the text layer gives before a heading it sits below on the page, in the
    heading's column, with no other heading between them: the heading's section. An HTML
    export drew a page's role headers ("Sii Polska | Senior Software Engineer  2025 - 2026",
    flush-right dates in a flex row) before the page's "Commercial experience" heading and
    its bullets, so they went on in the previous page's last section (h53). Only PDF lines
    with boxes; a sidebar's lines start left of the main column's headings and keep theirs."""
    for line in lines:
        if line.heading or line.bbox is None or line.part in ("header", "footer"):
            continue
        heading = _heading_above(line, by_page.get(line.page, []))
        if heading is not None and heading.n > line.n and heading.heading:
            line.section = heading.heading


def _lines_above_their_heading(lines: list[Line], headings: dict[int | None, list[Line]]) -> None:
    """The mirror of _lines_before_their_heading: a line the text layer gives after a heading
    but that sits above it on the page, at or right of its start, is not that heading's. An
    HTML export gave page 2's "EDUCATION" before the last role that page opens with, set above
    it (v15): the role goes on in the section the text was in before the heading, or in the
    section of a heading above it in its column on that page."""
    current: Line | None = None
    before = "top"
    prev_section = "top"
    for line in lines:
        if line.heading:
            current, before = line, prev_section
        elif (
            current is not None
            and current.bbox is not None
            and line.bbox is not None
            and line.page == current.page
            and line.section == current.heading
            and line.part not in ("header", "footer")
            and line.bbox[3] <= _top(current)
            and line.bbox[0] >= current.bbox[0] - 2
        ):
            above = _heading_above(line, headings.get(line.page, []))
            line.section = above.heading if above is not None and above.heading else before
        prev_section = line.section


def _heading_above(line: Line, headings: list[Line]) -> Line | None:
    """The nearest heading above the line whose column the line starts in."""
    assert line.bbox is not None
    found = None
    for heading in headings:
        assert heading.bbox is not None
        if heading.bbox[3] > _top(line):
            break
        if heading.bbox[0] - 2 <= line.bbox[0] < heading.bbox[2]:
            found = heading
    return found


def _below(line: Line, heading: Line | None) -> bool:
    """Whether the line starts below the heading on its page, in a column right of the heading's start."""
    if heading is None or heading.bbox is None or line.bbox is None or heading.page != line.page:
        return False
    return _top(line) > heading.bbox[3] and line.bbox[0] >= heading.bbox[0]


COLUMN_JUMP = 60.0  # points across: the next line starts in another column
COLUMN_START_SLACK = 12.0  # points: lines of one column start this close together


class _Columns:
    """The section each column was in when last seen: a two-column CV's page 2 gives its
    sidebar first and then the main column, which goes on with the section it ended page 1
    in ("Experience"), not with the sidebar's last heading (layout-12). Also where the line
    that last set a column's band started, and each band's section as the page before
    ended: a sidebar's years set a band's width left of the main column ("2019" at x 163
    beside "INFRASTRUCTURE SUPERVISOR" at x 198) are no line of the main column, which goes
    on as the page before left it (layout-31)."""

    def __init__(self) -> None:
        self.section: dict[int, str] = {}
        self.start: dict[int, float] = {}
        self.page_end: dict[int, str] = {}

    def page_ended(self) -> None:
        self.page_end = dict(self.section)

    def seen(self, line: Line, section: str) -> None:
        if line.bbox is not None:
            band = _column_of(line)
            self.section[band] = section
            self.start[band] = line.bbox[0]

    def went_on(self, line: Line, section: str, *, ocr: bool) -> str:
        """The section a column breaking in on a later page goes on with."""
        assert line.bbox is not None
        band = _column_of(line)
        # (OCR'd lines' starts wander a few points: the band alone)
        moved = band in self.start and abs(self.start[band] - line.bbox[0]) > COLUMN_START_SLACK
        if not ocr and moved and band in self.page_end:
            return self.page_end[band]
        return self.section.get(band, section)


def _no_heading_here(
    line: Line, kind: str, prev: Line | None, section: str, parent: Line | None, *, colon_free: bool
) -> bool:
    """Whether a line with a heading's words opens no section where it stands."""
    if prev is not None and _word_of_row(prev, line):
        return True  # "Design software architecture ...": a justified line's words, one per text line
    if prev is not None and _wrapped_word(prev, line):
        return True  # "... reducing transaction times and improving customer" / "experience" (stop 50)
    if section == "experience" and parent is not None and _role_label(line, parent):
        return True  # "Key Achievements: -", "Internship" inside a role, smaller than "Work Experience" (h51)
    if kind == "other" and section == "experience" and parent is not None and _inside_role(line, parent):
        return True  # "Technical Leadership" over a role's bullets, indented and in the text's size (layout-33)
    # "Publications:" under a role where the headings have no colon (layout-31)
    return kind == "other" and section == "experience" and colon_free and line.text.rstrip().endswith(":")


def _column_of(line: Line) -> int:
    """The band of x the line starts in: one column's lines share it."""
    assert line.bbox is not None
    return int(line.bbox[0] // COLUMN_BAND)


def _flush_right_aside(prev: Line, line: Line) -> bool:
    """A place or date set flush right beside an entry (rendercv: "San Francisco, CA" level
    with "Nexus AI, Co-Founder & CTO", after that entry's bullets): the text layer gives it
    after the bullets, but it opens no new column (layout-6)."""
    assert prev.bbox is not None and line.bbox is not None
    return line.bbox[0] > prev.bbox[0] and (is_place(line.text) or date_cell(line.text))


def _wrapped_word(prev: Line, line: Line) -> bool:
    """A lower-case line that a sentence wraps onto, indented as the bullet's text before it
    is: a bullet's last word is no heading, whatever it is."""
    if prev.bbox is None or line.bbox is None or prev.page != line.page or not line.text[:1].islower():
        return False
    height = max(line.bbox[3] - line.bbox[1], 1.0)
    return (
        line.bbox[0] > prev.bbox[0] + 2
        and 0 <= line.bbox[1] - prev.bbox[3] < height
        and not prev.text.rstrip().endswith((".", ":", ";"))
    )


def _word_of_row(prev: Line, line: Line) -> bool:
    """Whether the line continues the row of the line before it a word space away: TeX's
    justified text can come out one word per line ("Design" / "software" / "architecture"),
    and a heading never shares its row with text just left of it. A rule is no text:
    moderncv draws one left of each heading, which OCR reads as "—" (layout-45)."""
    if prev.bbox is None or line.bbox is None or prev.page != line.page or not any(ch.isalnum() for ch in prev.text):
        return False
    height = max(line.bbox[3] - line.bbox[1], 1.0)
    gap = line.bbox[0] - prev.bbox[2]
    return abs(line.bbox[1] - prev.bbox[1]) < 0.3 * height and 0 <= gap < 1.5 * height


def _back_under(line: Line, prev: Line, heading: Line) -> bool:
    """Whether the line starts under the heading, within its width, coming from another column."""
    if line.bbox is None or prev.bbox is None or heading.bbox is None or line.page != heading.page:
        return False
    return (
        _top(line) > heading.bbox[3]
        and heading.bbox[0] - 2 <= line.bbox[0] < heading.bbox[2]
        and abs(line.bbox[0] - prev.bbox[0]) > COLUMN_JUMP
    )


def _column_break(prev: Line, line: Line) -> bool:
    if prev.bbox is None or line.bbox is None or prev.page != line.page:
        return False
    return line.bbox[1] < prev.bbox[1] - 30 and abs(line.bbox[0] - prev.bbox[0]) > COLUMN_JUMP
