"""The local PgBouncer (`ATS_PGBOUNCER=1 just up`, tests/jobs/test_pgbouncer.py, the bench)
runs the k8s component's pgbouncer.ini with only the machine-specific keys replaced; the
pooled path never prepares statements (PgBouncer 1.18 cannot carry them in transaction
mode); worker-untrusted is never pooled (its row-level security keys on inet_client_addr())."""

from __future__ import annotations

import configparser
from pathlib import Path

import pytest

from ats.config.settings_db import database_from_url
from ats.devtools.pgbouncer_local import LOCAL_KEYS, SERVER_OPTIONS, database_options, local_ini, read_ini
from ats.devtools.up import untrusted_env

pytestmark = pytest.mark.unit


def test_local_ini_is_the_component_ini_but_for_the_machine_specific_keys(tmp_path: Path) -> None:
    shipped = read_ini()
    local = configparser.ConfigParser(inline_comment_prefixes=(";",), interpolation=None)
    local.read_string(
        local_ini(server_host="127.0.0.1", server_port=54329, listen_port=6432, state_dir=tmp_path, stats_user="ats")
    )
    same = {k: v for k, v in shipped["pgbouncer"].items() if k not in LOCAL_KEYS}
    assert same and {k: local["pgbouncer"][k] for k in same} == same
    assert local["pgbouncer"]["pool_mode"] == "transaction"
    assert set(local["pgbouncer"]) - set(same) <= LOCAL_KEYS
    # The one database entry keeps its pool options; only where the server is differs.
    (shipped_db,) = (database_options(v) for v in shipped["databases"].values())
    local_db = database_options(local["databases"]["*"])
    pool = {k: v for k, v in shipped_db.items() if k not in SERVER_OPTIONS}
    assert pool == {k: v for k, v in local_db.items() if k not in SERVER_OPTIONS} and pool["pool_mode"] == "transaction"
    assert (local_db["host"], local_db["port"]) == ("127.0.0.1", "54329")


def test_the_pooled_path_never_prepares_statements(monkeypatch: pytest.MonkeyPatch) -> None:
    url = "postgresql://ats@127.0.0.1:6432/ats"
    monkeypatch.delenv("ATS_DB_POOLER", raising=False)
    assert "prepare_threshold" not in database_from_url(url, deployable="default")["OPTIONS"]  # type: ignore[operator]
    monkeypatch.setenv("ATS_DB_POOLER", "transaction")
    db = database_from_url(url, deployable="default")
    # procrastinate's job pool is built from these same OPTIONS (connector_params).
    assert db["OPTIONS"]["prepare_threshold"] is None  # type: ignore[index]
    assert db["DISABLE_SERVER_SIDE_CURSORS"] is True


def test_just_up_keeps_worker_untrusted_direct_beside_pgbouncer() -> None:
    """`ATS_PGBOUNCER=1 just up` hands web and worker-default the pooled URL; worker-untrusted's
    environment keeps the parse role's direct URL and no pooler switch."""
    environ = {
        "PATH": "/usr/bin",
        "DATABASE_URL": "postgresql://ats@127.0.0.1:6432/ats",
        "ATS_DB_POOLER": "transaction",
        "ATS_SESSION_DATABASE_URL": "postgresql://ats@127.0.0.1:54329/ats",
        "ATS_PARSE_DATABASE_URL": "postgresql://ats_parse@127.0.0.1:54329/ats",
    }
    env = untrusted_env(environ)
    assert env["DATABASE_URL"] == "postgresql://ats_parse@127.0.0.1:54329/ats"
    assert "ATS_DB_POOLER" not in env and "ATS_SESSION_DATABASE_URL" not in env
