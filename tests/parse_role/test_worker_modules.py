"""What the REAL worker-untrusted process has imported equals the reviewed list.

services/worker-untrusted/policy/modules.txt is the security reviewer's list: every
`ats.*` module and every third-party top-level package the untrusted worker loads, after
its sandbox started and a real document went through it. A new import anywhere on that
path (ats.storage through a helper, an HTTP client through a new dependency) changes the
set and fails here until someone reviews and commits the new list.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from tests import corpus
from tests.jobs.helpers import wait_for
from tests.parse_role.helpers import parse_job_for_new_document

pytestmark = pytest.mark.django_db(transaction=True)
REVIEWED = Path(__file__).resolve().parents[2] / "services" / "worker-untrusted" / "policy" / "modules.txt"
# Never in this process, whatever the list says (the import-linter wall, seen at run time).
FORBIDDEN = (
    "ats.intake",
    "ats.storage",
    "ats.scanning",
    "ats.audit",
    "ats.candidates",
    "ats.iam",
    "ats.channels",
    "ats.mail",
    "ats.web",
    "ats.ai",
    "azure",
    "msal",
    "httpx",
    "requests",
    "clamd",
)


def reviewed_list(path: Path = REVIEWED) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    current = None
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
        else:
            assert current is not None, f"{path}: {line!r} before any [section]"
            current.append(line)
    return sections


def render(loaded: dict[str, list[str]]) -> str:
    return "\n".join(f"[{key}]\n" + "\n".join(loaded[key]) for key in ("ats", "third_party"))


def _status(worker: Any) -> dict[str, Any] | None:
    from ats.jobs import worker_api as jobs_worker

    return jobs_worker.read_status(jobs_worker.status_path(worker.name))


def test_untrusted_worker_loads_exactly_the_reviewed_modules(start_worker: Any) -> None:
    w = start_worker("untrusted")
    _, parse_job = parse_job_for_new_document(corpus.text_pdf(), "pdf")

    def reported() -> bool:
        with connection.cursor() as cur:
            cur.execute("SELECT status::text FROM procrastinate_jobs WHERE id = %s", [parse_job])
            return cur.fetchone()[0] == "succeeded"

    wait_for(reported, 60, "the real worker to parse the document and report")
    done = time.time()
    # The status file is rewritten at every heartbeat (1 s in tests): one written after the
    # document includes whatever the parse path imported lazily.
    status = wait_for(lambda: (s := _status(w)) and s["written_at"] > done + 0.1 and s, 30, "a fresh status file")
    loaded = status["modules"]
    for name in loaded["ats"] + loaded["third_party"]:
        assert not name.startswith(FORBIDDEN), f"worker-untrusted imported {name}"
    reviewed = reviewed_list()
    assert set(loaded) == set(reviewed) == {"ats", "third_party"}
    for key in ("ats", "third_party"):
        extra, missing = set(loaded[key]) - set(reviewed[key]), set(reviewed[key]) - set(loaded[key])
        assert not extra and not missing, (
            f"{key}: imported but not reviewed {sorted(extra)}; reviewed but not imported {sorted(missing)}.\n"
            f"Review, then update {REVIEWED.name} with:\n{render(loaded)}"
        )


def test_the_comparison_sees_a_leak() -> None:
    """The same function, in a process that imported ats.storage: the list differs."""
    import subprocess
    import sys

    code = (
        "import json; import ats.storage.api; from ats.parse_worker.modules import loaded_modules;"
        "print(json.dumps(loaded_modules()))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    import json

    loaded = json.loads(out.stdout)
    assert "ats.storage.api" in loaded["ats"]
    assert "ats.storage.api" not in reviewed_list()["ats"]
