"""Throttling, backoff, deadlines, crashes between fetch and commit, per-mailbox concurrency."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from ats.devtools.fake_graph import FakeAttachment, FakeGraph, RequestRecord
from ats.mail.api import (
    Deadline,
    DeadlineExceeded,
    GraphClient,
    GraphHTTPError,
    IntakeBatch,
    PollResult,
    poll_mailbox,
)

from .conftest import MAILBOX, MemoryStore

Make = Callable[..., GraphClient]


def _deliver(fake: FakeGraph, n: int, *, folder: str = "inbox", attachments: int = 1) -> list[str]:
    return [
        fake.add_message(
            MAILBOX,
            folder=folder,
            subject=f"{folder} {i}",
            attachments=[
                FakeAttachment(f"cv{i}-{j}.pdf", f"%PDF-1.7 {folder} {i} {j}".encode(), "application/pdf")
                for j in range(attachments)
            ],
        )
        for i in range(n)
    ]


def _poll(client: GraphClient, store: MemoryStore, *, seconds: float = 10, folder: str = "inbox") -> PollResult:
    return poll_mailbox(
        client=client,
        mailbox=MAILBOX,
        folder=folder,
        delta_link=store.cursor,
        deadline=Deadline.after(seconds),
        on_batch=store.commit,
    )


def _delta_requests(fake: FakeGraph) -> list[RequestRecord]:
    return [r for r in fake.requests if r.path.endswith("/messages/delta")]


def test_429_retry_after_is_honoured(fake: FakeGraph, make_client: Make, store: MemoryStore) -> None:
    _deliver(fake, 2)
    fake.inject(match="/messages/delta", status=429, retry_after=1)
    _poll(client := make_client(), store)
    throttled, retried = _delta_requests(fake)[:2]
    assert throttled.status == 429 and retried.status == 200
    assert retried.started - throttled.finished >= 1.0
    assert len(store.ledger) == 2
    assert client  # same client, token reused
    assert fake.token_requests == 1


def test_503_exponential_backoff_then_success(fake: FakeGraph, make_client: Make, store: MemoryStore) -> None:
    _deliver(fake, 1)
    fake.inject(match="/messages/delta", status=503, times=2)
    _poll(make_client(backoff_base=0.1, backoff_max=1.0), store)
    reqs = _delta_requests(fake)
    assert [r.status for r in reqs] == [503, 503, 200]
    # Equal jitter: attempt n waits in [step/2, step], step = base * 2**(n-1).
    assert reqs[1].started - reqs[0].finished >= 0.05
    assert reqs[2].started - reqs[1].finished >= 0.1
    assert len(store.ledger) == 1


def test_retries_are_bounded(fake: FakeGraph, make_client: Make, store: MemoryStore) -> None:
    fake.inject(match="/messages/delta", status=503, times=10)
    with pytest.raises(GraphHTTPError) as info:
        _poll(make_client(max_attempts=3), store)
    assert info.value.status == 503
    assert len(_delta_requests(fake)) == 3 and store.cursor is None


def test_retry_after_beyond_deadline_fails_fast(fake: FakeGraph, make_client: Make, store: MemoryStore) -> None:
    fake.inject(match="/messages/delta", status=429, retry_after=30)
    t0 = time.monotonic()
    with pytest.raises(DeadlineExceeded):
        _poll(make_client(), store, seconds=3)
    assert time.monotonic() - t0 < 1.5  # did not sleep into the budget
    assert store.commits == 0 and store.cursor is None


def test_slow_graph_hits_deadline_without_advancing(fake: FakeGraph, make_client: Make, store: MemoryStore) -> None:
    _deliver(fake, 2)
    fake.inject(match="/$value", delay=2.0, times=5)
    t0 = time.monotonic()
    with pytest.raises(DeadlineExceeded):
        _poll(make_client(), store, seconds=0.8)
    assert time.monotonic() - t0 < 1.6
    assert store.commits == 0 and store.cursor is None and store.ledger == {}


def test_deadline_mid_round_keeps_committed_pages(fake: FakeGraph, make_client: Make, store: MemoryStore) -> None:
    client = make_client(page_size=1)
    ids = _deliver(fake, 3)
    client.acquire_token(deadline=Deadline.after(5))  # keep discovery out of the budget
    fake.inject(match="$skiptoken", delay=2.0)  # the second page is slow
    with pytest.raises(DeadlineExceeded):
        _poll(client, store, seconds=1.0)
    assert store.commits == 1 and list(store.ledger) == [f"graph:{MAILBOX}:{ids[0]}"]
    assert store.cursor is not None and "$skiptoken=" in store.cursor  # mid-round checkpoint
    result = _poll(client, store)
    assert result.messages_handed_over == 2 and len(store.ledger) == 3
    assert store.delivered == 3  # nothing handed over twice


def test_crash_between_fetch_and_commit_refetches_from_old_checkpoint(
    fake: FakeGraph, make_client: Make, store: MemoryStore
) -> None:
    client = make_client(page_size=2)
    _deliver(fake, 5)
    crashes = iter([True])
    store.fail_when = lambda batch: batch.page_index == 1 and next(crashes, False)
    with pytest.raises(RuntimeError, match="simulated crash"):
        _poll(client, store)
    assert store.commits == 1 and len(store.ledger) == 2
    checkpoint_after_page0 = store.cursor
    # Restart (new process in real life): resume from what was committed.
    result = _poll(client, store)
    assert result.pages == 2 and result.messages_handed_over == 3
    assert len(store.ledger) == 5 and len(store.raw) == 5  # no loss, no duplicate rows
    assert store.delivered == 2 + 2 + 3  # the crashed page was delivered twice
    refetched = [r for r in _delta_requests(fake) if checkpoint_after_page0 and r.query in checkpoint_after_page0]
    assert len(refetched) == 2  # page 1 was fetched before the crash and again after


def test_at_most_four_concurrent_requests_per_mailbox(fake: FakeGraph, make_client: Make) -> None:
    client = make_client(page_size=10)
    fake.add_mailbox(MAILBOX, ("inbox", "applications"))
    _deliver(fake, 1, folder="inbox", attachments=8)
    _deliver(fake, 1, folder="applications", attachments=8)
    client.acquire_token(deadline=Deadline.after(5))
    fake.inject(match="/$value", delay=0.2, times=100)
    results: dict[str, PollResult] = {}
    errors: list[BaseException] = []

    def run(folder: str) -> None:
        try:
            # Two folders of one mailbox polled at once: each poll has its own pool of 4,
            # so only the client's per-mailbox slots keep the total at 4.
            results[folder] = poll_mailbox(
                client=client,
                mailbox=MAILBOX,
                folder=folder,
                delta_link=None,
                deadline=Deadline.after(15),
                on_batch=lambda b: None,
            )
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(f,)) for f in ("inbox", "applications")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert results["inbox"].attachments_downloaded == 8 == results["applications"].attachments_downloaded
    assert fake.max_concurrency(MAILBOX) == 4


def test_revoked_token_is_refreshed_once(fake: FakeGraph, make_client: Make, store: MemoryStore) -> None:
    client = make_client()
    _deliver(fake, 1)
    _poll(client, store)
    fake.revoke_access_tokens()
    _deliver(fake, 1)
    _poll(client, store)
    assert fake.token_requests == 2 and len(store.ledger) == 2
    assert any(r.status == 401 for r in fake.requests)


def test_batches_can_be_pulled_as_an_iterator(fake: FakeGraph, make_client: Make, store: MemoryStore) -> None:
    from ats.mail.api import iter_intake_batches

    _deliver(fake, 3)
    pulled: list[IntakeBatch] = []
    for batch in iter_intake_batches(
        client=make_client(page_size=2), mailbox=MAILBOX, delta_link=None, deadline=Deadline.after(10)
    ):
        store.commit(batch)
        pulled.append(batch)
    assert [len(b.items) for b in pulled] == [2, 1] and len(store.ledger) == 3
