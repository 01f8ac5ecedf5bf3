"""A cold answer cache is parsed in parallel, each document by one process (stop 52).

`ats.extraction.eval.prefetch` parses what the cache lacks in a pool before the serial
read; a document whose lock another process holds is skipped there, and the serial read
(`parse_answer`) waits for that process's answer instead of parsing it again - so the
suite's workers, each building the accuracy report, share a cold cache's work."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from ats.extraction import eval as evaluation
from tests import corpus


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ATS_EVAL_CACHE", str(tmp_path))
    return tmp_path


def _documents() -> list[tuple[dict[str, Any], str, bytes]]:
    import pymupdf

    out = []
    for n in range(3):
        doc = pymupdf.open()
        doc.new_page().insert_text((72, 72), f"Candidate {n}\ncandidate{n}@example.org", fontsize=12)
        out.append(({"id": n}, "pdf", bytes(doc.tobytes())))
    out.append(({"id": 9}, "pdf", corpus.text_pdf()))
    return out


def test_a_cold_cache_is_parsed_in_parallel_and_read_after(cache: Path) -> None:
    documents = _documents()
    assert evaluation.prefetch(documents, processes=2) == 4
    paths = [evaluation._answer_path(kind, data) for _, kind, data in documents]
    assert all(p.exists() for p in paths)
    assert evaluation.prefetch(documents, processes=2) == 0  # nothing left to parse
    answer = evaluation.parse_answer("pdf", documents[0][2], cache=True)
    assert "candidate0@example.org" in answer["text"]


def test_a_document_another_process_parses_is_skipped_then_waited_for(cache: Path) -> None:
    _, kind, data = _documents()[1]
    path = evaluation._answer_path(kind, data)
    with evaluation._parse_lock(path, wait=True) as held:
        assert held
        evaluation._prefetch_one((kind, data))  # skips it: the lock is taken
        assert not path.exists()
        with evaluation._parse_lock(path, wait=False) as again:
            assert again is False

        def finish() -> None:
            time.sleep(0.3)
            evaluation._store(path, {**evaluation.refused_answer(kind, "corrupt"), "marker": "the other process"})

        threading.Thread(target=finish).start()
        got: list[Any] = []
        reader = threading.Thread(target=lambda: got.append(evaluation.parse_answer(kind, data, cache=True)))
        reader.start()
        time.sleep(0.6)
        assert got == []  # still waiting for the lock, not parsing on its own
    reader.join(10)
    # It read the other process's answer rather than parsing the document again.
    assert got and got[0].get("marker") == "the other process"


def test_the_gate_reads_every_held_out_cv_and_no_development_scan_of_corpus_v2(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite's gate (evaluation.gate_corpus) parses what its checks read: a cold cache's
    ~800 development scans of real documents outgrew a CI run (stop 61)."""

    def row(half: str, source: str, layout: str) -> tuple[dict[str, Any], str, bytes]:
        return ({"id": f"{half}-{source}-{layout}", "half": half, "source": source, "layout": layout}, "pdf", b"")

    rows = [
        row(half, source, layout)
        for half in ("development", "heldout")
        for source in ("v1_generated", "v1_hand", "real_document", "generated")
        for layout in ("single_column", "scan_150", "scan_300")
    ]
    monkeypatch.setattr(evaluation, "load_corpus", lambda halves=("development", "heldout"), **_: rows)
    kept = {entry["id"] for entry, _, _ in evaluation.gate_corpus()}
    left_out = {entry["id"] for entry, _, _ in rows} - kept
    assert left_out == {
        f"development-{source}-{layout}"
        for source in ("real_document", "generated")
        for layout in ("scan_150", "scan_300")
    }
    assert {f"heldout-real_document-{layout}" for layout in ("scan_150", "scan_300")} <= kept
    assert {f"development-v1_generated-{layout}" for layout in ("scan_150", "scan_300")} <= kept
