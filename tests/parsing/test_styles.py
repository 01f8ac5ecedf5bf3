"""A digital PDF line carries its spans' styles (bold 1, italic 2) and sizes as runs over
its normalised text: what lets the extractor tell a role's title from its employer when a
CV sets them apart by style (docs/extraction.md). OCR lines carry none."""

from __future__ import annotations

from typing import Any

import pymupdf
from hypothesis import given, settings
from hypothesis import strategies as st

from ats.parsing._common import MAX_SPANS_PER_LINE, line_runs
from ats.parsing.api import ParseLimits, normalize_text, parse_document
from ats.parsing.data import MAX_RUNS_PER_LINE


def _pdf(pieces: list[tuple[str, str]], *, y: float = 100.0) -> bytes:
    """One line of text pieces, each in its own base-14 font (helv, hebo, heit)."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    x = 72.0
    for text, font in pieces:
        page.insert_text((x, y), text, fontname=font, fontsize=11)
        x += pymupdf.get_text_length(text, fontname=font, fontsize=11)
    data: bytes = doc.tobytes()
    doc.close()
    return data


def _lines(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return [line for block in answer["blocks"] for line in block["lines"]]


def test_a_bold_title_and_an_italic_employer_on_one_line(limits: ParseLimits) -> None:
    data = _pdf([("Data Engineer", "hebo"), (", ", "helv"), ("Northwind Analytics", "heit")])
    (line,) = _lines(parse_document(data, kind="pdf", limits=limits))
    assert line["text"] == "Data Engineer, Northwind Analytics"
    begins = [0, *(end for end, _, _ in line["runs"])]
    styles = [(line["text"][begin:end], style) for begin, (end, style, _) in zip(begins, line["runs"], strict=False)]
    assert styles == [("Data Engineer", 1), (", ", 0), ("Northwind Analytics", 2)]
    assert all(size == 11.0 for _, _, size in line["runs"])


def test_a_plain_line_has_one_run(limits: ParseLimits) -> None:
    (line,) = _lines(parse_document(_pdf([("Berlin, Germany", "helv")]), kind="pdf", limits=limits))
    assert line["runs"] == [[15, 0, 11.0]]


def test_ocr_lines_carry_no_runs(limits: ParseLimits) -> None:
    # The page as an image only: its text comes from OCR, which sees no fonts.
    src = pymupdf.open(stream=_pdf([("Curriculum Vitae of Jane Doe", "hebo")], y=300), filetype="pdf")
    pix = src[0].get_pixmap(dpi=200)
    scan = pymupdf.open()
    scan.new_page(width=595, height=842).insert_image(pymupdf.Rect(0, 0, 595, 842), pixmap=pix)
    answer = parse_document(scan.tobytes(), kind="pdf", limits=limits)
    assert answer["ocr_used"] and _lines(answer)
    assert all("runs" not in line for line in _lines(answer))


_SPAN = st.tuples(
    st.text(alphabet=st.sampled_from("ab \u00a0\ue000\u0301\n\t"), max_size=6),
    st.integers(0, 3),
    st.sampled_from([9.0, 10.0, 14.0]),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_SPAN, min_size=1, max_size=MAX_SPANS_PER_LINE + 2))
def test_runs_always_fit_the_normalised_line(spans: list[tuple[str, int, float]]) -> None:
    """Whatever the normalisation drops or joins, runs rise strictly to the line's end, or
    the line has none - the shape the trusted side's validator requires."""
    text = normalize_text("".join(t for t, _, _ in spans))[0].replace("\n", " ")
    runs = line_runs(spans, text)
    if runs is None:
        return
    ends = [end for end, _, _ in runs]
    assert text and ends[-1] == len(text) and ends == sorted(set(ends)) and ends[0] > 0
    assert len(runs) <= MAX_RUNS_PER_LINE and all(0 <= style <= 3 for _, style, _ in runs)
