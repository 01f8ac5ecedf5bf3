"""NOTICE names every repository whose CVs the corpus vendors (stop 70: held-out v25's and
v26's repositories had been left out of it for two draws, unnoticed)."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = ("tests/extraction/corpus/real/manifest.json", "tests/extraction/heldout/manifest.json")


def _origins() -> set[str]:
    out = set()
    for manifest in MANIFESTS:
        for row in json.loads((ROOT / manifest).read_text())["files"]:
            m = re.match(r"GitHub (\S+) @ ", row["origin"])
            if m:
                out.add(m.group(1))
    return out


def test_notice_names_every_vendored_repository() -> None:
    # NOTICE wraps its lines, so a name may break at a space or newline: compare without them.
    notice = re.sub(r"\s+", "", (ROOT / "NOTICE").read_text()).lower()
    origins = _origins()
    assert len(origins) > 400  # both halves read, not an empty listing
    missing = sorted(o for o in origins if o.lower() not in notice)
    assert not missing, f"repositories vendored but not in NOTICE (scripts/make_notice.py): {missing}"


def test_notice_is_make_notices_text() -> None:
    # NOTICE is written by scripts/make_notice.py; the corpus paragraphs must not drift apart.
    script = (ROOT / "scripts/make_notice.py").read_text()
    notice = (ROOT / "NOTICE").read_text()
    head = "- tests/extraction/corpus/real/ and tests/extraction/heldout/files/: CVs written by"
    start = notice.index(head)
    end = notice.index("- tests/scanning/data/pikepdf-pdfa-multipage.pdf")
    assert notice[start:end] in script
