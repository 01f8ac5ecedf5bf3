"""Every corpus document parses, or fails with its typed code."""

from __future__ import annotations

import dataclasses
import json
import pickle

import pytest

from ats.parsing.api import ERROR_CODES, KINDS, ErrorCode, ParseError, ParseLimits, parse_document
from ats.parsing.data import WarningCode
from tests import corpus

RESULT_KEYS = {
    "schema",
    "kind",
    "text",
    "pages",
    "blocks",
    "paragraphs",
    "tables",
    "bbox_unit",
    "elements",
    "ocr_used",
    "ocr_pages",
    "thumbnail",
    "warnings",
}


def _check_result_shape(result: dict, kind: str, limits: ParseLimits) -> None:
    assert set(result) == RESULT_KEYS
    assert result["schema"] == 3
    assert result["kind"] == kind
    assert json.loads(json.dumps(result)) == result
    json.dumps(result, ensure_ascii=False).encode("utf-8")  # no lone surrogates
    assert 0 < len(result["text"]) <= limits.max_text_chars
    assert result["pages"] >= 1
    assert len(result["blocks"]) <= limits.max_blocks
    for block in result["blocks"]:
        assert set(block) == {"page", "bbox", "text", "lines"}
        assert 1 <= block["page"] <= result["pages"]
        assert len(block["bbox"]) == 4 and block["text"]
        for line in block["lines"]:  # schema 2: each line with its own box, inside its block
            assert set(line) - {"runs"} == {"bbox", "text", "size"} and line["text"]
            if "runs" in line:  # a digital line's styles, ending at the line's end
                assert line["runs"][-1][0] == len(line["text"])
            assert line["bbox"][1] >= block["bbox"][1] - 1 and line["bbox"][3] <= block["bbox"][3] + 1
    if kind != "docx":
        assert result["elements"] == []
    assert all(isinstance(w, str) for w in result["warnings"])
    # Issue 26: the parse renders no thumbnail (it was encoded by worker-untrusted and never
    # served); the recruiter's thumbnail is the trusted side's downscale of page 1's render.
    assert result["thumbnail"] is None


def test_text_pdf(limits: ParseLimits) -> None:
    result = parse_document(corpus.text_pdf(), kind="pdf", limits=limits)
    _check_result_shape(result, "pdf", limits)
    # Line breaks kept, and the blank lines between CV sections survive as
    # paragraph breaks (MuPDF itself would separate every block alike).
    assert result["text"] == "\n".join(corpus.CV_LINES)
    assert not result["ocr_used"] and result["ocr_pages"] == 0
    assert result["bbox_unit"] == "pt"
    assert result["blocks"][0]["text"].startswith(corpus.CANDIDATE_NAME)
    assert result["warnings"] == []


def test_docx_with_tables(limits: ParseLimits) -> None:
    result = parse_document(corpus.docx_with_tables(), kind="docx", limits=limits)
    _check_result_shape(result, "docx", limits)
    # Header first: CV templates keep contact details there.
    assert result["text"].startswith(f"{corpus.CANDIDATE_NAME} | {corpus.CANDIDATE_EMAIL}")
    assert corpus.CANDIDATE_PHONE in result["paragraphs"]
    assert "Built payment systems in Python and PostgreSQL." in result["paragraphs"]
    assert result["tables"] == [[["Skill", "Years"], ["Python", "8"], ["Kubernetes", "3"]]]
    assert "Python | 8" in result["text"]
    assert result["blocks"] == [] and result["bbox_unit"] is None
    assert not result["ocr_used"]


def test_docx_text_box_read_once_in_order(limits: ParseLimits) -> None:
    result = parse_document(corpus.docx_with_textbox(), kind="docx", limits=limits)
    text = result["text"]
    assert text.index("Profile") < text.index(corpus.CANDIDATE_NAME) < text.index("Skills: Python")
    # Word stores each text box twice (DrawingML choice + VML fallback).
    assert text.count(corpus.CANDIDATE_EMAIL) == 1


def test_docx_elements_in_reading_order_with_part_index_and_style(limits: ParseLimits) -> None:
    located = parse_document(corpus.docx_with_tables(), kind="docx", limits=limits)["elements"]
    elements = [{k: v for k, v in e.items() if k != "at"} for e in located]  # boxes: the next test
    assert elements[0] == {"part": "header", "index": 0, "text": "Jane Doe | jane.doe@example.com", "style": "Header"}
    assert elements[1] == {"part": "body", "index": 0, "text": corpus.CANDIDATE_NAME, "style": "Heading1"}
    cells = [e for e in elements if e["part"] == "table"]
    assert [(c["row"], c["col"], c["text"]) for c in cells[:3]] == [(0, 0, "Skill"), (0, 1, "Years"), (1, 0, "Python")]
    assert [c["index"] for c in cells] == list(range(len(cells)))
    boxed = parse_document(corpus.docx_with_textbox(), kind="docx", limits=limits)["elements"]
    assert [(e["part"], e["text"]) for e in boxed] == [
        ("body", "Profile"),
        ("textbox", corpus.CANDIDATE_NAME),
        ("textbox", corpus.CANDIDATE_EMAIL),
        ("body", "Skills: Python"),
    ]


def test_docx_lines_are_located_on_the_viewers_laid_out_pages(limits: ParseLimits) -> None:
    """Each DOCX line MuPDF's layout shows (the viewer's page images, ats.parsing.render)
    gets its box there: the e-mail's line sits on page 1 just under the name, in points of
    the A4 layout; a line on the second page is on page 2; the page header, which MuPDF
    does not lay out, keeps its excerpt only (null)."""
    import io

    import docx

    document = docx.Document()
    document.sections[0].header.paragraphs[0].text = "Curriculum vitae"
    document.add_heading("Dora Docx", level=1)
    document.add_paragraph("dora.docx@example.org")
    document.add_paragraph("+44 20 7946 0555")
    for n in range(40):  # past the end of the first A4 page (MuPDF ignores Word's page breaks)
        document.add_paragraph(f"Project {n}: payments in Python")
    document.add_paragraph("Experience: backend engineer, 2019-2024")
    out = io.BytesIO()
    document.save(out)
    elements = parse_document(out.getvalue(), kind="docx", limits=limits)["elements"]
    at = {e["text"]: e.get("at") for e in elements}
    name, email = at["Dora Docx"][0], at["dora.docx@example.org"][0]
    assert name[0] == email[0] == 1
    x0, y0, x1, y1 = email[1:]
    assert 0 <= x0 < x1 <= 595 and 0 <= y0 < y1 <= 842
    assert name[4] <= y0 + 1 and y1 - y0 < 30 and 60 < x1 - x0 < 300, email  # one line under the name
    assert at["Experience: backend engineer, 2019-2024"][0][0] == 2
    assert at.get("Curriculum vitae") is None


def test_pdf_and_ocr_blocks_carry_lines_with_boxes(limits: ParseLimits) -> None:
    for data in (corpus.text_pdf(), corpus.scanned_pdf()):
        blocks = parse_document(data, kind="pdf", limits=limits)["blocks"]
        lines = [line for block in blocks for line in block["lines"]]
        name = next(line for line in lines if line["text"] == corpus.CANDIDATE_NAME)
        assert name["size"] > 0 and name["bbox"][0] < name["bbox"][2] and name["bbox"][1] < name["bbox"][3]


def test_owner_password_pdf_is_read_with_a_warning(limits: ParseLimits) -> None:
    result = parse_document(corpus.owner_password_pdf(), kind="pdf", limits=limits)
    assert corpus.CANDIDATE_EMAIL in result["text"]
    assert any(w.startswith(WarningCode.PDF_OWNER_PASSWORD_ONLY) for w in result["warnings"])


def test_partly_truncated_pdf_is_repaired(limits: ParseLimits) -> None:
    result = parse_document(corpus.truncated_pdf_at(0.8), kind="pdf", limits=limits)
    assert corpus.CANDIDATE_NAME in result["text"]
    assert WarningCode.PDF_REPAIRED.value in result["warnings"]
    assert any(w.startswith("mupdf: ") for w in result["warnings"])


@pytest.mark.parametrize("name", sorted(corpus.EXPECTED_ERRORS))
def test_hostile_corpus_fails_typed(name: str, limits: ParseLimits) -> None:
    kind, code = corpus.EXPECTED_ERRORS[name]
    with pytest.raises(ParseError) as info:
        parse_document(getattr(corpus, name)(), kind=kind, limits=limits)
    assert info.value.code == code, info.value


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("seed", [0, 1])
def test_garbage_is_corrupt(kind: str, seed: int, limits: ParseLimits) -> None:
    with pytest.raises(ParseError) as info:
        parse_document(corpus.garbage(4096, seed), kind=kind, limits=limits)
    assert info.value.code == ErrorCode.CORRUPT


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (corpus.text_pdf(), "png"),
        (corpus.png_scan(), "pdf"),
        (corpus.docx_with_tables(), "pdf"),
        (corpus.text_pdf(), "docx"),
        (corpus.jpeg_scan(), "tiff"),
    ],
)
def test_wrong_kind_is_corrupt(data: bytes, kind: str, limits: ParseLimits) -> None:
    with pytest.raises(ParseError) as info:
        parse_document(data, kind=kind, limits=limits)
    assert info.value.code == ErrorCode.CORRUPT


def test_empty_and_unknown_kind(limits: ParseLimits) -> None:
    with pytest.raises(ParseError) as info:
        parse_document(b"", kind="pdf", limits=limits)
    assert info.value.code == ErrorCode.CORRUPT
    with pytest.raises(ParseError) as info:
        parse_document(corpus.text_pdf(), kind="gif", limits=limits)
    assert info.value.code == ErrorCode.UNSUPPORTED


def test_parse_error_contract() -> None:
    err = ParseError("xml_bomb", "x" * 10_000)
    assert err.code is ErrorCode.XML_BOMB and len(err.detail) == 500
    again = pickle.loads(pickle.dumps(err))
    assert (again.code, again.detail) == (err.code, err.detail)
    assert ParseError.from_dict(err.to_dict()).code is ErrorCode.XML_BOMB
    assert ParseError.from_dict({"code": "nope"}).code is ErrorCode.INTERNAL
    assert {c.value for c in ErrorCode} == ERROR_CODES
    with pytest.raises(ValueError):
        ParseError("not-a-code", "")


def test_limits_validation() -> None:
    with pytest.raises(ValueError):
        ParseLimits(ocr_language="../../etc/passwd")
    with pytest.raises(ValueError):
        ParseLimits(max_pages=0)
    assert ParseLimits(ocr_language="eng+deu").ocr_language == "eng+deu"
    # The trusted side ships limits to the sandbox child as JSON or by pickle.
    limits = ParseLimits(max_pages=3)
    assert ParseLimits(**json.loads(json.dumps(dataclasses.asdict(limits)))) == limits
    assert pickle.loads(pickle.dumps(limits)) == limits
