"""Fixtures for the mail channel: a real fake-Graph HTTPS server, settings pointed at it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ats.devtools.fake_graph import FakeGraph

MAILBOX = "cv-intake@contoso.example"
PAGE_SIZE = 2  # small pages so a handful of messages spans several transactions


@pytest.fixture
def graph(monkeypatch: pytest.MonkeyPatch, settings: Any) -> Iterator[FakeGraph]:
    """A fresh Graph server per test; this process's settings.ATS point at it."""
    with FakeGraph() as fake:
        fake.add_mailbox(MAILBOX)
        for key, value in fake.ats_env().items():
            monkeypatch.setitem(settings.ATS, key.removeprefix("ATS_"), value)
        settings.MAIL_PAGE_SIZE = PAGE_SIZE
        yield fake


@pytest.fixture
def graph_env(graph: FakeGraph) -> dict[str, str]:
    """The same configuration for worker subprocesses."""
    return {**graph.ats_env(), "ATS_MAIL_PAGE_SIZE": str(PAGE_SIZE)}


@pytest.fixture(autouse=True)
def _no_lost_documents(transactional_db: Any) -> Iterator[None]:
    """After every test (none here breaks documents on purpose), every document is
    terminal or backed by a live job. Depends on the db fixture so it runs before the flush."""
    yield
    from ats.intake import api as intake_api

    assert intake_api.lost_documents() == []
