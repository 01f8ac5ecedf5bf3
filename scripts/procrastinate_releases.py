"""Write procrastinate's release dates to shared/ats/monitoring/procrastinate_releases.json
(trigger T6 of ADR 0004: "no procrastinate release for more than 12 months").

The exporter reads that file - it never calls out to PyPI - and reports the installed
release's age and the newest recorded release's age; the T6 alert reads the latter.
Re-run when upgrading procrastinate, and every few months (a stale file ages the
"newest release" figure, which errs towards raising the review, never hiding it):

    /opt/ats/venv/bin/python scripts/procrastinate_releases.py
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "shared" / "ats" / "monitoring" / "procrastinate_releases.json"


def main() -> None:
    with urllib.request.urlopen("https://pypi.org/pypi/procrastinate/json", timeout=30) as resp:
        data = json.loads(resp.read())
    releases = {
        version: min(f["upload_time_iso_8601"][:10] for f in files)
        for version, files in data["releases"].items()
        if files and not any(f.get("yanked") for f in files)
    }
    OUT.write_text(
        json.dumps({"package": "procrastinate", "releases": dict(sorted(releases.items()))}, indent=1) + "\n"
    )
    print(f"{len(releases)} releases written to {OUT}")


if __name__ == "__main__":
    main()
