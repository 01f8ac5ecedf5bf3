"""(d) Real documents through the production-configured sandbox (real parser, limits.toml)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ats.sandbox.api import Failure, ForkServerSandbox, InProcessSandbox, Layer, SandboxRefused, policy_hash
from tests import corpus

pytestmark = pytest.mark.timeout(90)


@pytest.mark.parametrize(
    ("kind", "make", "ocr"),
    [
        ("pdf", corpus.text_pdf, False),
        ("docx", corpus.docx_with_tables, False),
        ("pdf", corpus.scanned_pdf, True),
        ("png", corpus.png_scan, True),
    ],
    ids=["text_pdf", "docx", "scanned_pdf_ocr", "png_ocr"],
)
def test_good_documents(documents: ForkServerSandbox, kind: str, make: object, ocr: bool) -> None:
    result = documents.run(kind, make())  # type: ignore[operator]
    assert result.ok, (result.failure, result.detail)
    assert result.document is not None
    assert corpus.CANDIDATE_NAME in result.document["text"]
    assert result.document["ocr_used"] is ocr and result.document["kind"] == kind
    assert result.policy_hash == policy_hash(Path(documents.policy.policy_dir))
    assert Layer.SECCOMP in result.layers and result.sandbox == "forkserver"


@pytest.mark.parametrize("language", sorted(corpus.SCRIPT_CVS))
def test_a_scan_in_another_script_is_read_in_it_inside_the_sandbox(documents: ForkServerSandbox, language: str) -> None:
    """The script models load under the child's Landlock read list, RLIMIT_NOFILE and
    RLIMIT_AS: the name comes back in its own script and the e-mail in Latin letters."""
    result = documents.run("pdf", corpus.scanned_script_pdf(language))
    assert result.ok, (result.failure, result.detail)
    assert result.document is not None
    name, email = corpus.SCRIPT_CVS[language][:2]
    text = result.document["text"]
    assert name in text and email in text, text


@pytest.mark.parametrize(("name", "expected"), sorted(corpus.EXPECTED_ERRORS.items()))
def test_parse_errors_pass_through_typed(documents: ForkServerSandbox, name: str, expected: tuple[str, str]) -> None:
    kind, code = expected
    result = documents.run(kind, getattr(corpus, name)())
    assert (result.failure, result.document) == (Failure(code), None), result.detail


def test_oversized_document_is_refused_before_the_zygote(documents: ForkServerSandbox) -> None:
    big = b"%PDF-1.7\n" + b"0" * documents.policy.parse["max_bytes"]
    assert documents.run("pdf", big).failure == Failure.TOO_LARGE


def test_garbage_and_unknown_kind(documents: ForkServerSandbox) -> None:
    assert documents.run("pdf", corpus.garbage()).failure == Failure.CORRUPT
    assert documents.run("exe", b"MZ").failure == Failure.UNSUPPORTED


def test_inprocess_sandbox_is_opt_in(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ATS_SANDBOX_ALLOW_INPROCESS", raising=False)
    with pytest.raises(SandboxRefused):
        InProcessSandbox()


def test_inprocess_matches_forkserver(documents: ForkServerSandbox) -> None:
    dev = InProcessSandbox(allow=True)
    for kind, data in (("pdf", corpus.text_pdf()), ("docx", corpus.docx_with_tables())):
        mine, theirs = dev.run(kind, data), documents.run(kind, data)
        assert mine.ok and theirs.ok and mine.document == theirs.document
        assert mine.layers == () and mine.sandbox == "inprocess"
    assert dev.run("pdf", corpus.encrypted_pdf()).failure == Failure.ENCRYPTED
