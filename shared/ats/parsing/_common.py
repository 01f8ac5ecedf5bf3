"""Result assembly shared by the extractors: warnings, capped blocks, final text."""

from __future__ import annotations

import time
from typing import Any

from ._text import normalize_text
from .data import MAX_RUNS_PER_LINE, SCHEMA_VERSION, ErrorCode, ParseError, ParseLimits, WarningCode

_MAX_WARNINGS = 50
# A layout block is a paragraph or less; more lines than this is a table dump whose
# remaining lines stay in the block text.
MAX_LINES_PER_BLOCK = 200


def _box(bbox: tuple[float, float, float, float] | list[float]) -> list[float]:
    return [round(float(v), 1) for v in bbox]


def _size(size: float) -> float:
    size = float(size)
    return round(size, 1) if 0 <= size < 10_000 else 0.0


# A line's style runs: [end, style bits, size] per stretch of one style and size, `end`
# an offset into the line's normalised text. A line of more spans than this (a table row
# set glyph by glyph) carries none: the cost of mapping spans onto the normalised text
# grows with their number squared.
MAX_SPANS_PER_LINE = 24


def line_runs(spans: list[tuple[str, int, float]], line_text: str) -> list[list[Any]] | None:
    """Where each span's style and size run in the normalised line text, adjacent alike
    runs merged; None when the line has too many spans or runs to be worth it.

    A span's end is the length of the normalised text of the spans up to it, so whatever
    the normalisation drops or joins (icon glyphs, runs of spaces) moves the boundaries
    with it."""
    if not spans or len(spans) > MAX_SPANS_PER_LINE:
        return None
    runs: list[list[Any]] = []
    # Most lines need no normalising at all: then a span ends where its raw text does, and
    # no prefix is normalised (a parse's cost per line stays one normalisation).
    verbatim = "".join(t for t, _, _ in spans) == line_text
    raw = ""
    for k, (span_text, style, size) in enumerate(spans):
        raw += span_text
        if k == len(spans) - 1:
            end = len(line_text)
        elif verbatim:
            end = len(raw)
        else:
            end = len(normalize_text(raw)[0].replace("\n", " "))
        end = min(max(end, runs[-1][0] if runs else 0), len(line_text))
        run = [end, style & 3, _size(size)]
        if runs and runs[-1][1:] == run[1:]:
            runs[-1][0] = end
        elif runs and runs[-1][0] == end:
            continue  # a span the normalisation dropped whole
        elif not runs and end == 0:
            continue
        else:
            runs.append(run)
    if not runs or len(runs) > MAX_RUNS_PER_LINE:
        return None
    runs[-1][0] = len(line_text)
    return runs


_WARNING_MAX_CHARS = 300


class Collector:
    """Accumulates one parse's output while enforcing the output-size caps."""

    def __init__(self, kind: str, limits: ParseLimits) -> None:
        self.kind = kind
        self.limits = limits
        self.warnings: list[str] = []
        self.blocks: list[dict[str, Any]] = []
        self._block_chars = 0
        self._blocks_full = False
        # The OCR time budget (ParseLimits.ocr_time_budget_s) counts from here.
        self._started_wall = time.monotonic()
        self._started_cpu = time.process_time()

    def ocr_budget_spent(self) -> str | None:
        """ "cpu" or "wall" once this parse has used its OCR time budget, else None."""
        budget = self.limits.ocr_time_budget_s
        if time.process_time() - self._started_cpu >= budget:
            return "cpu"
        if time.monotonic() - self._started_wall >= budget:
            return "wall"
        return None

    def warn(self, code: WarningCode, detail: str = "") -> None:
        entry = f"{code.value}: {detail}" if detail else code.value
        # Library messages can quote raw document bytes (surrogate-escaped), which
        # a JSON/UTF-8 consumer would choke on.
        entry = normalize_text(entry[: 2 * _WARNING_MAX_CHARS])[0].replace("\n", " ")[:_WARNING_MAX_CHARS]
        if len(self.warnings) < _MAX_WARNINGS and entry not in self.warnings:
            self.warnings.append(entry)

    def add_block(
        self,
        page: int,
        bbox: tuple[float, float, float, float],
        raw: str,
        lines: list[tuple[Any, ...]] | None = None,
    ) -> None:
        """One layout block; ``lines`` are its lines as (bbox, raw text, font size) or
        (bbox, raw text, font size, spans or None), spans as (raw text, style bits, size).

        Schema 2: every block carries its lines with their own boxes (OCR lines too),
        so an extracted value can point at the one line it came from. Within schema 3, a
        digital line may carry ``runs`` (``line_runs``): its spans' styles and sizes.
        """
        if self._blocks_full:
            return
        text, _ = normalize_text(raw)
        if not text:
            return
        kept_lines: list[dict[str, Any]] = []
        line_chars = 0
        for line_bbox, line_raw, size, *rest in lines or ():
            line_text = normalize_text(line_raw)[0].replace("\n", " ")
            if line_text and len(kept_lines) < MAX_LINES_PER_BLOCK:
                line_chars += len(line_text)
                kept: dict[str, Any] = {"bbox": _box(line_bbox), "text": line_text, "size": _size(size)}
                runs = line_runs(rest[0], line_text) if rest and rest[0] else None
                if runs:
                    kept["runs"] = runs
                kept_lines.append(kept)
        # Blocks repeat the text, so they share its character budget as well as
        # having their own count cap; otherwise a result could be twice the cap.
        # Lines repeat the block text again and count against the same budget.
        if (
            len(self.blocks) >= self.limits.max_blocks
            or self._block_chars + len(text) + line_chars > self.limits.max_text_chars
        ):
            self._blocks_full = True
            self.warn(WarningCode.BLOCKS_TRUNCATED, f"kept {len(self.blocks)}")
            return
        self._block_chars += len(text) + line_chars
        self.blocks.append({"page": page, "bbox": _box(bbox), "text": text, "lines": kept_lines})

    def final_text(self, raw: str) -> str:
        text, truncated = normalize_text(raw, self.limits.max_text_chars)
        if truncated:
            self.warn(WarningCode.TEXT_TRUNCATED, f"at {self.limits.max_text_chars} chars")
        return text

    def result(self, *, text: str, pages: int, ocr_pages: int, **extra: Any) -> dict[str, Any]:
        return {
            "schema": SCHEMA_VERSION,
            "kind": self.kind,
            "text": text,
            "pages": pages,
            "blocks": self.blocks,
            "ocr_used": ocr_pages > 0,
            "ocr_pages": ocr_pages,
            # Always None now (issue 26): the recruiter's thumbnail is the trusted side's
            # downscale of page 1's render (ats.intake.pages); the RGB render this key
            # carried was encoded by worker-untrusted and never served. The key stays so
            # a schema 3 answer keeps its shape (ats.sandbox.validate still range-checks
            # a thumbnail an escaped child sends).
            "thumbnail": None,
            # Present for every kind so consumers need no per-kind key checks.
            "paragraphs": extra.pop("paragraphs", []),
            # Unit of block bboxes: PDF points (1/72 in) or source-image pixels.
            "bbox_unit": extra.pop("bbox_unit", None),
            "tables": extra.pop("tables", []),
            # DOCX reading order with part/index/style (schema 2); [] for other kinds.
            "elements": extra.pop("elements", []),
            "warnings": self.warnings,
            **extra,
        }


def empty_error(detail: str) -> ParseError:
    return ParseError(ErrorCode.EMPTY_DOCUMENT, detail)
