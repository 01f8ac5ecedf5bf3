"""Issue 28's "done when", measured on real third-party files (tests/thirdparty): every
PDF/DOCX/image test file of thirteen libraries' sdists through the real pipeline
(`ats ingest --wait --json`, worker-default, worker-untrusted with the sandbox, clamd,
Postgres). Asserts: every file terminal with a typed reason, 0 active candidates
without a name and a contact (`ats candidate review-identity --json`), 0 files called
malware (a scanner-limit verdict ends `scan_incomplete`).

Size: ATS_THIRDPARTY_SAMPLE=N (default 60, a deterministic sample by hash of the file's
path; see tests.thirdparty.sample) or `all` (1,671 files). The default keeps `just test`
to about 3 minutes on 2 busy cores (60 files took 180 s); the sample is a hash order,
not a choice by hand. Figures measured on larger samples: docs/candidates.md.
ATS_THIRDPARTY_MATCH=TEXT runs only the files whose key contains TEXT.
"""

from __future__ import annotations

import collections
import json
import os
import urllib.error
from pathlib import Path
from typing import Any

import pytest

from ats.candidates import api as candidates_api
from ats.iam import api as iam_api
from ats.intake import api as intake_api
from tests import thirdparty
from tests.conftest import run_ats_in_process

_READER = iam_api.SystemActor("test:thirdparty")
DEFAULT_SAMPLE = 60
ALL_FILES = 1_671  # in the pinned sdists (tests/thirdparty/manifest.json)
# Ten seconds a file at most under load (OCR of a full page is the slow case).
SECONDS_PER_FILE = 10


def _sample_size() -> int | None:
    value = os.environ.get("ATS_THIRDPARTY_SAMPLE", str(DEFAULT_SAMPLE))
    return None if value == "all" else int(value)


_BUDGET = max(300, SECONDS_PER_FILE * (_sample_size() or ALL_FILES))
pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    # The suite's per-test limit is 300 s; this test's limit follows the sample size.
    pytest.mark.timeout(_BUDGET + 300),
]


def test_third_party_files_end_terminal_typed_with_no_faceless_candidate_and_nothing_called_malware(
    stack: Any, ats_cli: Any, tmp_path: Path
) -> None:
    try:
        chosen = thirdparty.sample(_sample_size())
        # ATS_THIRDPARTY_MATCH=text: only the files whose key contains it (to re-run one).
        match = os.environ.get("ATS_THIRDPARTY_MATCH")
        if match:
            chosen = [f for f in thirdparty.files() if match in f.key]
    except (urllib.error.URLError, TimeoutError) as exc:  # pragma: no cover - offline machine
        pytest.skip(f"third-party sdists not cached and not downloadable: {exc}")
    paths = []
    for f in chosen:
        path = tmp_path / f.flat_name
        path.write_bytes(f.data)
        paths.append(str(path))
    res = ats_cli("ingest", "--wait", "--json", "--timeout", str(_BUDGET), *paths, timeout=_BUDGET + 120)
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(rows) == len(paths), res.stderr[-2000:]
    states = collections.Counter(r["state"] for r in rows)
    atts = {a.pk: a for a in intake_api.Attachment.objects.filter(pk__in=[r["attachment_id"] for r in rows])}
    untyped = [
        (r["path"], r["state"])
        for r in rows
        if not r["terminal"] or (r["state"] != "candidate_created" and not atts[r["attachment_id"]].reason_code)
    ]
    # In the test process: the command's answer is what is read (ingest above went through
    # the real entry point and workers).
    review = run_ats_in_process("candidate", "review-identity", "--json")
    assert review.returncode == 0, review.stderr
    faceless = json.loads(review.stdout)
    summary = {
        "files": len(rows),
        "states": dict(sorted(states.items())),
        "reason_codes": dict(sorted(collections.Counter(a.reason_code for a in atts.values()).items())),
        "faceless_candidates": faceless["count"],
    }
    print("third-party corpus:", json.dumps(summary))
    # Every candidate the corpus made, for a human to judge that each is a person.
    names = {c["id"]: c["name"] for c in candidates_api.candidate_list(actor=_READER, limit=10_000)}
    for r in rows:
        if r["state"] == intake_api.State.CANDIDATE_CREATED:
            att = atts[r["attachment_id"]]
            print("third-party candidate:", json.dumps({"name": names.get(att.candidate_id), "file": r["path"]}))
    assert res.returncode == 0, res.stderr[-2000:]
    assert untyped == [], untyped
    assert faceless["count"] == 0, faceless["candidates"][:10]
    assert states.get(intake_api.State.BLOCKED_MALWARE, 0) == 0, [
        (r["path"], r["reason"]) for r in rows if r["state"] == intake_api.State.BLOCKED_MALWARE
    ]
