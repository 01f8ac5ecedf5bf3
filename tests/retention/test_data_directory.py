"""Issue 27 item 1: after `ats erase` and a CHECKPOINT, no file of the live cluster's
`base/` or `global/` holds the person's e-mail, name or phone - not a dead tuple left
in a heap page's free space, not an index entry, not a planner-statistics sample.

The probe reads the data files directly (the test runs as root or as the cluster's
owner; the cluster is the session's own throwaway one), the way anyone holding a disk
image, a replica's files or a base backup could."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from ats.iam import api as iam_api
from ats.intake import api as intake_api
from ats.intake.models import ParseAttempt
from ats.scoring import api as scoring_api
from tests.conftest import run_ats, run_ats_in_process
from tests.retention import helpers

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
ADMIN = iam_api.SystemActor("test:admin")


def _superuser() -> psycopg.Connection[Any]:
    """The cluster's superuser (trust on loopback in the throwaway cluster): only it may
    name the data directory and force a CHECKPOINT."""
    from django.db import connection

    s = connection.settings_dict
    return psycopg.connect(
        host=s["HOST"], port=s["PORT"], dbname=s["NAME"], user="postgres", autocommit=True, connect_timeout=10
    )


def needles(p: helpers.Person, digests: dict[str, str] | None = None) -> dict[str, bytes]:
    n = p.needles()
    return {
        **{k: v.encode() for k, v in (digests or {}).items()},
        "email": n["email"],
        "name": n["name"],
        # The search index stores lower-cased lexemes: the surname alone, lower case.
        "surname": n["surname"].lower(),
        "phone": n["phone"],
        "phone_e164": n["phone_e164"],
    }


def data_directory_hits(p: helpers.Person, digests: dict[str, str] | None = None) -> dict[str, list[str]]:
    with _superuser() as su:
        su.execute("CHECKPOINT")
        row = su.execute("SHOW data_directory").fetchone()
        assert row is not None
        datadir = Path(row[0])
        names = dict(su.execute("SELECT relfilenode::text, relname FROM pg_class WHERE relfilenode <> 0").fetchall())
    wanted = {k: v.lower() for k, v in needles(p, digests).items()}
    hits: dict[str, list[str]] = {}
    files = 0
    for top in ("base", "global"):
        for dirpath, _, filenames in os.walk(datadir / top):
            for fn in filenames:
                path = Path(dirpath) / fn
                try:
                    data = path.read_bytes().lower()
                except (FileNotFoundError, PermissionError):
                    continue  # unlinked by the checkpoint while we walked
                files += 1
                found = [k for k, v in wanted.items() if v in data]
                if found:
                    node = fn.split(".")[0].split("_")[0]
                    hits[f"{path.relative_to(datadir)} ({names.get(node, '?')})"] = found
    assert files > 100, f"only {files} files read under {datadir}: the probe sees nothing"
    return hits


@pytest.fixture
def old_snapshot(transactional_db: Any) -> Iterator[Callable[[], psycopg.Connection[Any]]]:
    """Connections as the application's role, closed before the test database is flushed
    (a leftover open transaction would block the flush's TRUNCATE forever)."""
    from django.db import connection

    s = connection.settings_dict
    opened: list[psycopg.Connection[Any]] = []

    def open_one() -> psycopg.Connection[Any]:
        conn = psycopg.connect(host=s["HOST"], port=s["PORT"], dbname=s["NAME"], user=s["USER"], connect_timeout=10)
        opened.append(conn)
        return conn

    yield open_one
    for conn in opened:
        conn.close()


def test_erase_leaves_nothing_in_the_clusters_files(
    start_worker: Any, tmp_path: Path, stack_env: dict[str, str], old_snapshot: Callable[[], psycopg.Connection[Any]]
) -> None:
    start_worker("default")
    start_worker("untrusted")

    def ats_cli(*args: str, **kw: Any) -> Any:
        return run_ats(stack_env, *args, **kw)

    p = helpers.person()
    cv = tmp_path / "cv.pdf"
    cv.write_bytes(p.pdf)
    version = scoring_api.requisition_create(title="Payments", must_have=["Python"], actor=ADMIN)
    row = helpers.ingest(ats_cli, cv, "--requisition", str(version.requisition_id))
    assert row["state"] == "candidate_created", row
    cid = row["candidate_id"]
    # Item 2: content digests of the person's documents (fingerprints proving the CV was
    # here) must not outlive the erasure either - not in the audit chain, not anywhere.
    attempt = ParseAttempt.objects.filter(attachment_id=row["attachment_id"], state="succeeded").get()
    digests = {
        "cv_sha256": hashlib.sha256(p.pdf).hexdigest(),
        "parse_output_sha256": intake_api.parse_output_sha256(
            text=attempt.text, page_count=attempt.page_count, result=attempt.result
        ),
    }
    dump = helpers.pg_dump(helpers.db_url(), tmp_path / "before.sql").read_bytes().decode()
    assert digests["cv_sha256"] in dump, "the probe finds the CV's sha256 (the document row) before"
    # Planner statistics sample the columns too: analyse while the person is there.
    with _superuser() as su:
        su.execute("ANALYZE")

    before = data_directory_hits(p, digests)
    assert any("email" in found for found in before.values()), f"the probe finds the person before: {before}"

    # A session whose snapshot predates the erasure (a long report, a stuck transaction):
    # while it is open VACUUM must keep the rows it can still see. The compaction waits
    # for it, then cancels, then terminates it - and says so in the step.
    holder = old_snapshot()
    holder.execute("SET application_name = 'long-report'")
    holder.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
    holder.execute("SELECT count(*) FROM candidates_candidate").fetchone()

    # In the test process (a Django start less): what is proved is in the cluster's files.
    res = run_ats_in_process("erase", "candidate", str(cid), "--reason", "art. 17 request", "--json")
    assert res.returncode == 0, res.stderr + res.stdout
    out = json.loads(res.stdout)
    dump = helpers.pg_dump(helpers.db_url(), tmp_path / "after.sql").read_bytes().decode()
    assert [k for k, v in digests.items() if v in dump] == [], "a dump still holds a digest of the person's CV"
    verify = run_ats_in_process("audit", "verify", "--json")
    assert verify.returncode == 0 and json.loads(verify.stdout)["ok"], verify.stdout + verify.stderr
    after = data_directory_hits(p, digests)
    if after:
        with _superuser() as su:
            stats = su.execute(
                "SELECT tablename, attname FROM pg_stats WHERE concat(most_common_vals::text,"
                " histogram_bounds::text) ILIKE %s",
                [f"%{p.email}%"],
            ).fetchall()
        print("pg_stats holding the e-mail:", stats)
    assert after == {}, f"data files still hold the person: {after}; {res.stdout}"
    steps = {s["step"]: s for s in out["steps"]}
    assert "compaction" in steps, out["steps"]
    compaction = steps["compaction"]
    assert compaction["outcome"] == "done", compaction
    assert compaction["seconds"] <= 60, compaction
    assert compaction["relations"], compaction
    stopped = compaction["cancelled"] + compaction["terminated"]
    assert any(h["application"] == "long-report" and h["signalled"] for h in stopped), compaction
    with pytest.raises(psycopg.OperationalError):
        holder.execute("SELECT 1")  # terminated (idle in transaction: a cancel alone does nothing)
