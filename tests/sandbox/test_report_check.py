"""worker-default's re-check of a stored parse report (issue 21 N1, N6).

Genuine reports come from the real fork server, built exactly as the parse worker builds
them (ats.parse_worker.runner); each forgery changes one thing and must be refused by its
named check. Run: python -m pytest -p no:django -p no:cacheprovider tests/sandbox -q
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from ats.sandbox.api import (
    REPORT_CHECKS,
    ForkServerSandbox,
    ReportRejected,
    check_report,
    policy_dir,
    report_deployment,
    strip_invisible,
)
from tests import corpus
from tests.sandbox_parse import submit_args

pytestmark = pytest.mark.timeout(120)
DEPLOYMENT = report_deployment(policy_dir())


def _report(sandbox: ForkServerSandbox, kind: str, data: bytes) -> dict[str, Any]:
    """The arguments ats.parse_worker.runner hands to ats_parse_submit()."""
    return submit_args(sandbox.run(kind, data))


@pytest.fixture(scope="module")
def genuine(documents: ForkServerSandbox) -> dict[str, dict[str, Any]]:
    return {
        "pdf": _report(documents, "pdf", corpus.text_pdf()),
        "docx": _report(documents, "docx", corpus.docx_with_tables()),
        "encrypted": _report(documents, "pdf", corpus.encrypted_pdf()),
    }


def _check(report: dict[str, Any], kind: str = "pdf") -> Any:
    return check_report(**report, kind=kind, deployment=DEPLOYMENT)


def test_genuine_reports_pass_unchanged(genuine: dict[str, dict[str, Any]]) -> None:
    for kind in ("pdf", "docx"):
        report = genuine[kind]
        assert report["ok"], report
        checked = _check(report, kind)
        assert (checked.ok, checked.text, checked.page_count) == (True, report["text"], report["page_count"])
        assert checked.result == report["result"]
    # The DOCX's lines were found on MuPDF's layout inside the sandbox (the viewer's pages):
    # the e-mail's line has a box on page 1 (issue 23 item 2, DOCX provenance).
    located = {e["text"]: e["at"] for e in genuine["docx"]["result"]["elements"] if "at" in e}
    assert any(at[0] is not None and at[0][0] == 1 for text, at in located.items() if "Python" in text), located
    failed = genuine["encrypted"]
    assert failed["ok"] is False and failed["code"] == "encrypted"
    checked = _check(failed)
    assert (checked.ok, checked.code, checked.result) == (False, "encrypted", failed["result"])


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(report: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target = report
        for key in parents:
            target = target[key]
        target[last] = value

    return change


def _both_pages(n: int) -> Callable[[dict[str, Any]], None]:
    def change(report: dict[str, Any]) -> None:
        report["page_count"] = report["result"]["pages"] = n

    return change


def _both_hashes(value: str) -> Callable[[dict[str, Any]], None]:
    def change(report: dict[str, Any]) -> None:
        report["policy_hash"] = report["result"]["sandbox"]["policy_hash"] = value

    return change


def _both_texts(value: str) -> Callable[[dict[str, Any]], None]:
    def change(report: dict[str, Any]) -> None:
        report["text"] = report["result"]["text"] = value

    return change


def _drop_layer(name: str) -> Callable[[dict[str, Any]], None]:
    def change(report: dict[str, Any]) -> None:
        report["result"]["sandbox"]["layers"].remove(name)

    return change


def _failure(code: str) -> Callable[[dict[str, Any]], None]:
    def change(report: dict[str, Any]) -> None:
        report.update(ok=False, code=code, text="", page_count=None)
        report["result"] = {"sandbox": {**report["result"]["sandbox"], "ok": False, "failure": "corrupt"}}

    return change


def _docx_at(value: Any) -> Callable[[dict[str, Any]], None]:
    """The first located DOCX element's line boxes (`at`, for the viewer) replaced."""

    def change(report: dict[str, Any]) -> None:
        element = next(e for e in report["result"]["elements"] if "at" in e)
        element["at"] = value

    return change


_BLOCK = {"page": 1, "bbox": [0, 0, 1, 1], "text": "t", "lines": []}
# (which genuine report, what changes, the check that must refuse it)
FORGERIES: dict[str, tuple[str, Callable[[dict[str, Any]], None], str]] = {
    "page_count 999 for a PDF": ("pdf", _both_pages(999), "page_count"),
    "page_count 21 for a PDF (limit 20)": ("pdf", _both_pages(21), "page_count"),
    "page_count 10001 for a DOCX": ("docx", _both_pages(10_001), "page_count"),
    "page column differs from the document": ("pdf", _set("page_count", 2), "page_count"),
    "unknown top-level key": ("pdf", _set("result.exfiltrate", "x"), "unknown_keys"),
    "unknown key in a failure report": ("encrypted", _set("result.text", "x"), "unknown_keys"),
    "sandbox.layers []": ("pdf", _set("result.sandbox.layers", []), "layers"),
    "seccomp layer missing": ("pdf", _drop_layer("seccomp"), "layers"),
    "unknown layer name": ("pdf", _set("result.sandbox.layers", ["seccomp", "vibes"]), "layers"),
    "parsed in-process": ("pdf", _set("result.sandbox.sandbox", "inprocess"), "layers"),
    "all-zero policy hash": ("pdf", _both_hashes("0" * 64), "policy_hash"),
    "all-zero policy hash on a failure": ("encrypted", _both_hashes("0" * 64), "policy_hash"),
    "report and sandbox record disagree on the policy": ("pdf", _set("policy_hash", "0" * 64), "policy_hash"),
    "made-up failure code": ("pdf", _failure("pwned_lol"), "failure_code"),
    "trusted-side code in a report": ("pdf", _failure("report_rejected"), "failure_code"),
    "worker_lost in a report": ("pdf", _failure("worker_lost"), "failure_code"),
    "text column differs from the document": ("pdf", _set("text", "Someone Else someone@example.org"), "text"),
    "block on page 999": ("pdf", _set("result.blocks", [{**_BLOCK, "page": 999}]), "document"),
    "DOCX line box on page 21 (the viewer shows 20)": ("docx", _docx_at([[21, 10, 10, 90, 20]]), "document"),
    "DOCX line box wider than the laid-out page": ("docx", _docx_at([[1, 10, 10, 9999, 20]]), "document"),
    "DOCX line box upside down": ("docx", _docx_at([[1, 10, 20, 90, 10]]), "document"),
    "DOCX line box with its page as a string": ("docx", _docx_at([["1", 10, 10, 90, 20]]), "document"),
    "DOCX line boxes not one per line": ("docx", _docx_at([[1, 10, 10, 90, 20], None]), "document"),
    "kind differs from the document's type": ("pdf", _set("result.kind", "docx"), "document"),
    "sandbox record with an extra key": ("pdf", _set("result.sandbox.shell", True), "sandbox"),
    "sandbox record says it failed": ("pdf", _set("result.sandbox.ok", False), "sandbox"),
    "no sandbox record": ("pdf", _set("result.sandbox", None), "sandbox"),
    "detail over the limit": ("encrypted", _set("detail", "x" * 10_000), "shape"),
    "result not an object": ("pdf", _set("result", ["x"]), "shape"),
}


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_forged_report_is_refused_by_its_check(name: str, genuine: dict[str, dict[str, Any]]) -> None:
    base, change, check = FORGERIES[name]
    report = copy.deepcopy(genuine[base])
    change(report)
    kind = "docx" if base == "docx" else "pdf"
    with pytest.raises(ReportRejected) as refused:
        _check(report, kind)
    assert refused.value.check == check, refused.value
    assert refused.value.check in REPORT_CHECKS and refused.value.detail.isprintable()


def test_the_review_probe_report_is_refused(genuine: dict[str, dict[str, Any]]) -> None:
    """All of the review's forgeries at once (issue 21), as the probe on the real stack sends it."""
    report = copy.deepcopy(genuine["pdf"])
    for _, change, _ in (FORGERIES[n] for n in ("page_count 999 for a PDF", "unknown top-level key")):
        change(report)
    report["result"]["warnings"] = ["pdf_repaired: \u202egnp.exe\x07"]
    report["result"]["sandbox"]["layers"] = []
    _both_hashes("0" * 64)(report)
    with pytest.raises(ReportRejected):
        _check(report)


INVISIBLE = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200b\u200c\u200d\u200e\u200f\x07\x1b\x7f\x85\x9b"


def test_invisible_characters_are_stripped_from_text_and_everything_shown(genuine: dict[str, dict[str, Any]]) -> None:
    """N6: a report carrying bidi overrides and controls is cleaned again on the trusted side."""
    report = copy.deepcopy(genuine["pdf"])
    dirty = f"Jane{INVISIBLE} Doe\nline\ttwo"
    _both_texts(dirty)(report)
    report["result"]["blocks"][0]["text"] = dirty
    report["result"]["warnings"] = [f"pdf_repaired: {INVISIBLE}x"]
    checked = _check(report)
    assert checked.text == checked.result["text"] == "Jane Doe\nline\ttwo"
    assert checked.result["blocks"][0]["text"] == "Jane Doe\nline\ttwo"
    assert checked.result["warnings"] == ["pdf_repaired: x"]

    failed = copy.deepcopy(genuine["encrypted"])
    failed["detail"] = f"needs a password{INVISIBLE}\n"
    failed["result"]["sandbox"]["detail"] = f"pw{INVISIBLE}"
    checked = _check(failed)
    assert checked.detail.startswith("needs a password") and checked.detail.isprintable(), checked.detail
    assert checked.result["sandbox"]["detail"] == "pw"


def test_strip_invisible_keeps_newlines_tabs_and_ordinary_text() -> None:
    assert strip_invisible("a\tb\nc é 中文 \U0001f600") == "a\tb\nc é 中文 \U0001f600"
    assert all(strip_invisible(ch) == "" for ch in INVISIBLE)
    assert strip_invisible("".join(map(chr, range(32)))) == "\t\n"
