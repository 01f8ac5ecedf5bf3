"""After prewarm(), parsing needs no imports, no Python-level file access, no threads.

That is what lets the sandbox child run under a seccomp filter and a dropped uid
(lazy imports there fail: docs in ../shared/notes/measured-facts.md). Runs in a
fresh interpreter, since this test process has long since imported everything.
An audit hook sees Python-level events only: Tesseract's own (allowed) tessdata
reads happen in C and are not visible here, by design.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import json, os, sys, threading, time

t0 = time.perf_counter()
from ats.parsing import api
t1 = time.perf_counter()
api.prewarm()
t2 = time.perf_counter()
api.prewarm()
t3 = time.perf_counter()

from tests import corpus
cases = {
    "text_pdf": (corpus.text_pdf(), "pdf"),
    "scanned_pdf": (corpus.scanned_pdf(), "pdf"),
    "mixed_pdf": (corpus.mixed_pdf(), "pdf"),
    "owner_password_pdf": (corpus.owner_password_pdf(), "pdf"),
    "repaired_pdf": (corpus.truncated_pdf_at(0.8), "pdf"),
    "png_scan": (corpus.png_scan(), "png"),
    "jpeg_scan": (corpus.jpeg_scan(), "jpeg"),
    "tiff_scan": (corpus.tiff_scan(), "tiff"),
    "docx_with_tables": (corpus.docx_with_tables(), "docx"),
    "docx_with_textbox": (corpus.docx_with_textbox(), "docx"),
    "utf16_docx": (corpus.docx_with_body("<w:p><w:r><w:t>x</w:t></w:r></w:p>", encoding="utf-16"), "docx"),
    "encrypted_pdf": (corpus.encrypted_pdf(), "pdf"),
    "truncated_pdf": (corpus.truncated_pdf(), "pdf"),
    "pdf_image_bomb": (corpus.pdf_image_bomb(), "pdf"),
    "pixel_bomb_png": (corpus.pixel_bomb_png(), "png"),
    "zip_bomb_docx": (corpus.zip_bomb_docx(mib=8), "docx"),
    "billion_laughs_docx": (corpus.billion_laughs_docx(), "docx"),
    "garbage_pdf": (corpus.garbage(), "pdf"),
    "garbage_docx": (b"PK\x03\x04" + corpus.garbage(), "docx"),
    "garbage_png": (corpus.png_scan()[:60] + corpus.garbage(), "png"),
    "garbage_jpeg": (corpus.jpeg_scan()[:400] + corpus.garbage(), "jpeg"),
}
limits = api.ParseLimits()
WATCH = ("import", "open", "os.", "subprocess.", "socket.", "ctypes.", "shutil.", "glob.", "exec", "compile")
events = []
armed = [False]

def hook(event, args):
    if armed[0] and event.startswith(WATCH):
        events.append(f"{event} {args[:1]!r}"[:200])

sys.addaudithook(hook)
outcomes, timings = {}, {}
armed[0] = True
for name, (data, kind) in cases.items():
    start = time.perf_counter()
    try:
        api.parse_document(data, kind=kind, limits=limits)
        outcomes[name] = "ok"
    except api.ParseError as exc:
        outcomes[name] = exc.code.value
    timings[name] = time.perf_counter() - start
armed[0] = False
print(json.dumps({
    "import_s": t1 - t0, "prewarm_s": t2 - t1, "prewarm_again_s": t3 - t2,
    "events": events, "outcomes": outcomes, "timings": timings,
    "threads": threading.active_count(), "tasks": len(os.listdir("/proc/self/task")),
}))
"""


@pytest.fixture(scope="module")
def report() -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=REPO, capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_no_lazy_imports_or_file_access_after_prewarm(report: dict) -> None:
    assert report["events"] == []
    assert report["outcomes"]["text_pdf"] == "ok" and report["outcomes"]["png_scan"] == "ok"
    assert report["outcomes"]["billion_laughs_docx"] == "xml_bomb"


def test_prewarm_is_quick_idempotent_and_single_threaded(report: dict) -> None:
    # Forking a multi-threaded zygote risks deadlocks (measured-facts.md).
    assert report["threads"] == 1 and report["tasks"] == 1
    assert report["prewarm_s"] < 1.5, report
    assert report["prewarm_again_s"] < 0.01


def test_print_timings(report: dict) -> None:
    # Not an assertion on speed (the machine is noisy); `-s` shows the numbers.
    t = report["timings"]
    print(
        f"\nimport {report['import_s']:.3f}s prewarm {report['prewarm_s']:.3f}s | "
        f"text_pdf {t['text_pdf'] * 1000:.1f}ms docx {t['docx_with_tables'] * 1000:.1f}ms "
        f"scanned_pdf(OCR) {t['scanned_pdf'] * 1000:.0f}ms png(OCR) {t['png_scan'] * 1000:.0f}ms"
    )
