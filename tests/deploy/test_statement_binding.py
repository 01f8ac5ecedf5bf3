"""Change set h50perf: a worker connecting directly to Postgres binds its parameters on the
server and prepares its repeated statements; through PgBouncer 1.18 in transaction mode it
never does (psycopg prepares per server connection, and the pooler hands each transaction
whichever one is free), and web and the CLI keep Django's default."""

from __future__ import annotations

import pytest

from ats.config.settings_db import PREPARE_THRESHOLD, database_from_url, with_statement_binding

pytestmark = pytest.mark.unit

URL = "postgresql://ats@127.0.0.1:54329/ats"


def _options(deployable: str) -> dict[str, object]:
    db = with_statement_binding(database_from_url(URL, deployable=deployable), deployable=deployable)
    return db["OPTIONS"]  # type: ignore[return-value]


@pytest.mark.parametrize("deployable", ["default", "untrusted"])
def test_a_direct_worker_binds_on_the_server_and_prepares(monkeypatch: pytest.MonkeyPatch, deployable: str) -> None:
    monkeypatch.delenv("ATS_DB_POOLER", raising=False)
    monkeypatch.delenv("ATS_DB_SERVER_BINDING", raising=False)
    options = _options(deployable)
    assert options["server_side_binding"] is True and options["prepare_threshold"] == PREPARE_THRESHOLD


@pytest.mark.parametrize("deployable", ["web", "cli", "healthcheck", "session"])
def test_web_and_the_cli_keep_djangos_default(monkeypatch: pytest.MonkeyPatch, deployable: str) -> None:
    monkeypatch.delenv("ATS_DB_POOLER", raising=False)
    monkeypatch.delenv("ATS_DB_SERVER_BINDING", raising=False)
    options = _options(deployable)
    assert "server_side_binding" not in options and "prepare_threshold" not in options


@pytest.mark.parametrize("forced", ["", "1"])
def test_the_pooled_path_never_binds_on_the_server_nor_prepares(monkeypatch: pytest.MonkeyPatch, forced: str) -> None:
    # Even with the switch forced on: the pooler wins.
    monkeypatch.setenv("ATS_DB_POOLER", "transaction")
    monkeypatch.setenv("ATS_DB_SERVER_BINDING", forced)
    options = _options("default")
    assert "server_side_binding" not in options and options["prepare_threshold"] is None


def test_the_switch_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ATS_DB_POOLER", raising=False)
    monkeypatch.setenv("ATS_DB_SERVER_BINDING", "0")
    assert "prepare_threshold" not in _options("default")


def test_procrastinates_pool_inherits_the_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    """connector_params() (the job pool's, the LISTEN connection's) is Django's connection
    parameters: the fetch and finish are prepared too, and never when pooled."""
    from django.db.backends.postgresql.base import DatabaseWrapper

    monkeypatch.delenv("ATS_DB_POOLER", raising=False)
    monkeypatch.delenv("ATS_DB_SERVER_BINDING", raising=False)
    db = with_statement_binding(database_from_url(URL, deployable="default"), deployable="default")
    params = DatabaseWrapper(
        {**db, "TIME_ZONE": None, "CONN_HEALTH_CHECKS": True, "AUTOCOMMIT": True}
    ).get_connection_params()
    assert params["prepare_threshold"] == PREPARE_THRESHOLD and "server_side_binding" not in params
