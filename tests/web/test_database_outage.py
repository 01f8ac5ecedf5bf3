"""Issue 21 item 12: while Postgres restarts, the web answers 503 with Retry-After and
words the upload page shows ("try again in a moment"), not a 500; when it is back, the
same web process serves again.

A real web deployable (`ats web`, gunicorn) on its own real Postgres cluster, which the
test stops and starts (the session's shared cluster is left alone)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import types
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ats.config.env import with_user
from ats.devtools import pg_local
from tests.chaos.driver import Web
from tests.conftest import REPO, run_ats
from tests.web.helpers import unique_pdf


@pytest.fixture
def outage_stack() -> Iterator[dict[str, Any]]:
    pg_local.ensure_pg_user()
    root = Path(tempfile.mkdtemp(prefix="ats-pg-"))
    root.chmod(0o755)
    (root / "owner.pid").write_text(str(os.getpid()))  # pg_local reaps it if this run dies
    datadir, port = root / "data", pg_local.free_port()
    url = pg_local.start(datadir, port)
    state = root / "state"
    state.mkdir(mode=0o755)
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "ATS_PARSE_DATABASE_URL": with_user(url, "ats_parse"),
        "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'shared'}",
        "ATS_STATE_DIR": str(state),
        "ATS_STORAGE_LOCAL_ROOT": str(state / "blobs"),
        "ATS_LOG_LEVEL": "WARNING",
    }
    env.pop("ATS_EXTRA_APPS", None)
    web = None
    try:
        for args in (("migrate", "--no-input", "-v", "0"), ("ensure_admin", "--password-file", str(state / "pw"))):
            res = run_ats(env, *args, timeout=300)
            assert res.returncode == 0, res.stderr[-2000:]
        web = Web(env, state)
        web.wait_up()
        web.login("admin", (state / "pw").read_text().strip())
        yield {"web": web, "datadir": datadir, "port": port}
    finally:
        if web is not None:
            web.stop()
        pg_local.stop(datadir)
        shutil.rmtree(root, ignore_errors=True)


def _doc(name: str) -> Any:
    return types.SimpleNamespace(filename=name, content_type="application/pdf", data=unique_pdf())


def _refused(call: Any) -> urllib.error.HTTPError:
    with pytest.raises(urllib.error.HTTPError) as err:
        call()
    return err.value


def test_a_postgres_restart_is_a_503_with_retry_after(outage_stack: dict[str, Any]) -> None:
    web = outage_stack["web"]
    assert web.upload(_doc("before.pdf"), None)["attachments"][0]["filename"] == "before.pdf"

    pg_local.stop(outage_stack["datadir"])
    refused = _refused(lambda: web.upload(_doc("during.pdf"), None))
    assert refused.code == 503
    assert 0 < int(refused.headers["Retry-After"]) <= 30
    body = json.loads(refused.read())
    assert body["code"] == "database_unavailable" and "try again in a moment" in body["error"]
    assert body["retry_after_s"] == int(refused.headers["Retry-After"])  # the upload page shows body.error
    # A page says it in words too.
    page = _refused(lambda: web.opener.open(web.base + "/candidates/", timeout=30))
    assert page.code == 503 and page.headers["Retry-After"]
    assert "try again in a moment" in page.read().decode()

    pg_local.start(outage_stack["datadir"], outage_stack["port"])
    # The same web process serves again once the database is back (no restart needed).
    answer = None
    for _ in range(20):
        with contextlib.suppress(urllib.error.HTTPError):
            answer = web.upload(_doc("after.pdf"), None)
            break
    assert answer is not None and answer["attachments"][0]["filename"] == "after.pdf"
