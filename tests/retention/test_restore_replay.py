"""Backups: a dump taken before an erasure, restored into a new database, still holds the
person until the erasure log (blob storage, outside the database) is replayed; after
`ats erase replay` a dump of the restored database holds no trace of them."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path
from typing import Any

import psycopg
import pytest

from ats.devtools.pg_local import pg_bindir
from ats.iam import api as iam_api
from ats.retention import api as retention_api
from tests.conftest import run_ats
from tests.retention import helpers
from tests.web import helpers as web_helpers

pytestmark = pytest.mark.django_db(transaction=True)


def test_restore_an_older_dump_then_replay_the_erasure_log(tmp_path: Path, stack_env: dict[str, str]) -> None:
    p = helpers.person()
    att = web_helpers.parsed_ok("restore.pdf")
    cid = web_helpers.candidate_from(att, name=p.name, emails=(p.email,), phones=(p.phone,))
    url = helpers.db_url()
    dump = helpers.pg_dump(url, tmp_path / "before.dump", fmt="c")

    erasure = retention_api.subject_erase(candidate_id=cid, reason="art. 17", actor=iam_api.SystemActor("test:admin"))
    assert helpers.found_in(helpers.pg_dump(url, tmp_path / "now.sql").read_bytes(), p) == []

    name = f"ats_restore_{uuid.uuid4().hex[:8]}"
    admin_url = url.rsplit("/", 1)[0] + "/postgres"
    restored_url = url.rsplit("/", 1)[0] + f"/{name}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        res = subprocess.run(
            [str(pg_bindir() / "pg_restore"), "--no-owner", "--dbname", restored_url, str(dump)],
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert res.returncode == 0, res.stderr[-2000:]
        restored = helpers.pg_dump(restored_url, tmp_path / "restored.sql").read_bytes()
        assert {"email", "name"} <= set(helpers.found_in(restored, p)), "the older backup holds the person"

        env = {**stack_env, "DATABASE_URL": restored_url}
        out = run_ats(env, "erase", "replay", "--json")
        assert out.returncode == 0, out.stderr
        assert erasure.id in json.loads(out.stdout)["replayed"]
        replayed = helpers.pg_dump(restored_url, tmp_path / "replayed.sql").read_bytes()
        assert helpers.found_in(replayed, p) == [], "the restored database still holds the person"
        # The tombstone is back too, and a second replay has nothing left to do.
        again = json.loads(run_ats(env, "erase", "replay", "--json").stdout)
        assert erasure.id in again["already_applied"] and erasure.id not in again["replayed"]
        with psycopg.connect(restored_url) as conn:
            n = conn.execute("SELECT count(*) FROM retention_tombstone WHERE erasure_id = %s", [erasure.id]).fetchone()
            assert n is not None and n[0] >= 2
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_replay_of_a_person_the_backup_never_held_keeps_the_tombstone(stack_env: dict[str, Any]) -> None:
    # An entry whose candidate rows are absent (a backup older than the person) still
    # restores the tombstones, so their later documents are held back.
    p = helpers.person()
    att = web_helpers.parsed_ok("restore-2.pdf")
    cid = web_helpers.candidate_from(att, name=p.name, emails=(p.email,), phones=(p.phone,))
    e = retention_api.subject_erase(candidate_id=cid, reason="art. 17", actor=iam_api.SystemActor("test:admin"))
    from ats.retention.models import Erasure, RetentionAction, Tombstone

    RetentionAction.objects.filter(erasure_id=e.id).delete()
    Tombstone.objects.filter(erasure_id=e.id).delete()
    Erasure.objects.filter(pk=e.id).delete()
    assert retention_api.tombstone_match(emails=[p.email]) is None
    res = retention_api.erasure_replay()
    assert e.id in res["replayed"] and retention_api.tombstone_match(emails=[p.email]) == e.id
