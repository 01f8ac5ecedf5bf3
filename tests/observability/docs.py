"""docs/observability.md's metric table, read by the tests that hold code and docs together."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "observability.md"


@dataclasses.dataclass(frozen=True)
class DocumentedMetric:
    name: str
    kind: str
    source: str
    optional: bool


def documented_metrics(source: str | None = None) -> list[DocumentedMetric]:
    out = []
    for line in DOC.read_text().splitlines():
        m = re.match(r"^\| `([a-z_]+)` \| (\w+) \| [^|]* \| [^|]* \| ([^|]+) \|", line)
        if not m:
            continue
        name, kind, src = m.group(1), m.group(2), m.group(3).strip()
        metric = DocumentedMetric(name, kind, src.split()[0], "optional" in src)
        if source is None or metric.source == source:
            out.append(metric)
    return out
