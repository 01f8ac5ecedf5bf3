"""Fixtures for the Graph mail-channel tests: pure Python, a local fake Graph, no Django."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from ats.devtools.fake_graph import FakeGraph
from ats.mail.api import GraphClient, IntakeBatch

MAILBOX = "cv-intake@contoso.example"


@pytest.fixture(autouse=True, scope="session")
def _settings_for_in_process_calls() -> None:
    """Override the root conftest's autouse fixture: these tests need no clamd/Django."""


@pytest.fixture
def fake() -> Iterator[FakeGraph]:
    with FakeGraph() as server:
        server.add_mailbox(MAILBOX)
        yield server


@pytest.fixture
def make_client(fake: FakeGraph) -> Iterator[Callable[..., GraphClient]]:
    clients: list[GraphClient] = []

    def make(**overrides: Any) -> GraphClient:
        # Small backoff so retry tests stay fast; Retry-After is honoured regardless.
        overrides.setdefault("backoff_base", 0.05)
        overrides.setdefault("backoff_max", 0.2)
        client = GraphClient(fake.graph_config(**overrides))
        clients.append(client)
        return client

    yield make
    for c in clients:
        c.close()


class Conflict(Exception):
    pass


@dataclass
class MemoryStore:
    """Stand-in for the lead's DB: cursor + ledger + raw_intake, committed atomically.

    Mirrors the contract in ats.mail.graph: compare-and-swap on the cursor, unique keys,
    rows and checkpoint applied together or not at all.
    """

    cursor: str | None = None
    ledger: dict[str, str | None] = field(default_factory=dict)  # dedupe_key -> internetMessageId
    raw: dict[str, str] = field(default_factory=dict)  # blob dedupe key -> sha256
    commits: int = 0
    delivered: int = 0  # items handed to commit (incl. re-deliveries)
    fail_when: Callable[[IntakeBatch], bool] | None = None

    def commit(self, batch: IntakeBatch) -> None:
        self.delivered += len(batch.items)
        if batch.previous_checkpoint != self.cursor:
            raise Conflict("cursor moved: concurrent poller")
        ledger, raw = dict(self.ledger), dict(self.raw)
        for item in batch.items:
            ledger.setdefault(item.envelope.dedupe_key, item.envelope.internet_message_id)
            for blob in item.attachments:
                raw.setdefault(blob.dedupe_key(item.envelope), blob.sha256)
        if self.fail_when is not None and self.fail_when(batch):
            raise RuntimeError("simulated crash before COMMIT")
        self.ledger, self.raw, self.cursor = ledger, raw, batch.checkpoint
        self.commits += 1


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()
