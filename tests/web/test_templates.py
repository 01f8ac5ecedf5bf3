"""Template source checks that need no database."""

from __future__ import annotations

import re
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[2] / "shared" / "ats" / "web" / "templates"


def test_no_template_has_a_multi_line_hash_comment() -> None:
    """Django's `{# #}` comment ends on its own line: one spread over lines is printed on
    the page as text (it was, on the document and ops pages). Longer notes use
    `{% comment %}`."""
    unclosed = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        for n, line in enumerate(path.read_text().splitlines(), start=1):
            if re.search(r"\{#(?!.*#\})", line):
                unclosed.append(f"{path.relative_to(TEMPLATES)}:{n}")
    assert unclosed == []
