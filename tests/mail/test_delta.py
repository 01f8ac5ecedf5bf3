"""Token acquisition and delta paging/resume/resync against the local fake Graph."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ats.devtools.fake_graph import FakeAttachment, FakeGraph
from ats.mail.api import (
    Deadline,
    DeltaExpired,
    GraphAuthError,
    GraphClient,
    IntakeBatch,
    InvalidCheckpoint,
    PollResult,
    poll_mailbox,
)

from .conftest import MAILBOX, MemoryStore

Make = Callable[..., GraphClient]


def _deliver(fake: FakeGraph, n: int, prefix: str = "msg") -> list[str]:
    return [
        fake.add_message(
            MAILBOX,
            subject=f"{prefix} {i}",
            sender=f"c{i}@example.org",
            attachments=[FakeAttachment(f"cv{i}.pdf", b"%PDF-1.7 " + prefix.encode() + bytes([i]), "application/pdf")],
        )
        for i in range(n)
    ]


def _poll(client: GraphClient, store: MemoryStore, *, seconds: float = 10) -> PollResult:
    return poll_mailbox(
        client=client, mailbox=MAILBOX, delta_link=store.cursor, deadline=Deadline.after(seconds), on_batch=store.commit
    )


def test_token_via_msal_discovery_and_cache(fake: FakeGraph, make_client: Make) -> None:
    client = make_client()
    token = client.acquire_token(deadline=Deadline.after(10))
    assert token.startswith("fake-at-")
    paths = [r.path for r in fake.requests]
    # msal really did OIDC discovery then client-credentials against the local authority.
    assert paths == [f"/{fake.tenant}/v2.0/.well-known/openid-configuration", f"/{fake.tenant}/oauth2/v2.0/token"]
    assert client.acquire_token(deadline=Deadline.after(10)) == token
    assert fake.token_requests == 1  # served from msal's cache


def test_wrong_secret_is_typed_auth_error(make_client: Make) -> None:
    client = make_client(client_secret="nope")
    with pytest.raises(GraphAuthError, match="invalid_client"):
        client.acquire_token(deadline=Deadline.after(10))


def test_pages_follow_next_links_to_delta_link(fake: FakeGraph, make_client: Make, store: MemoryStore) -> None:
    ids = _deliver(fake, 7)
    batches: list[IntakeBatch] = []

    def commit(batch: IntakeBatch) -> None:
        batches.append(batch)
        store.commit(batch)

    result = poll_mailbox(
        client=make_client(page_size=2), mailbox=MAILBOX, delta_link=None, deadline=Deadline.after(10), on_batch=commit
    )
    assert [len(b.items) for b in batches] == [2, 2, 2, 1]
    assert [b.is_last for b in batches] == [False, False, False, True]
    assert all("$skiptoken=" in b.checkpoint for b in batches[:-1])
    assert "$deltatoken=" in batches[-1].checkpoint
    # Each page was fetched from the previous page's checkpoint.
    assert [b.previous_checkpoint for b in batches] == [None] + [b.checkpoint for b in batches[:-1]]
    assert result.new_delta_link == batches[-1].checkpoint == store.cursor
    assert result.pages == 4 and result.messages_handed_over == 7 and result.full_sync
    # Immutable ids were requested and returned, in delivery order.
    assert [i.envelope.message_id for b in batches for i in b.items] == ids
    delta_reqs = [r for r in fake.requests if r.path.endswith("/messages/delta")]
    assert len(delta_reqs) == 4
    for r in delta_reqs:
        assert 'IdType="ImmutableId"' in r.prefer and "odata.maxpagesize=2" in r.prefer
    env = batches[0].items[0].envelope
    assert env.subject == "msg 0" and env.sender_address == "c0@example.org" and env.has_attachments
    assert env.internet_message_id and env.received_at is not None and env.received_at.tzinfo


def test_resume_from_delta_link_sees_only_new(fake: FakeGraph, make_client: Make, store: MemoryStore) -> None:
    client = make_client(page_size=3)
    _deliver(fake, 4, "old")
    first = _poll(client, store)
    new_ids = _deliver(fake, 2, "new")
    seen: list[str] = []

    def commit(batch: IntakeBatch) -> None:
        seen.extend(i.envelope.message_id for i in batch.items)
        store.commit(batch)

    second = poll_mailbox(
        client=client, mailbox=MAILBOX, delta_link=store.cursor, deadline=Deadline.after(10), on_batch=commit
    )
    assert seen == new_ids
    assert not second.full_sync and second.new_delta_link != first.new_delta_link
    third = _poll(client, store)
    assert third.messages_seen == 0
    assert len(store.ledger) == 6


def test_410_raises_delta_expired_and_full_resync_redelivers(
    fake: FakeGraph, make_client: Make, store: MemoryStore
) -> None:
    client = make_client(page_size=2)
    _deliver(fake, 5)
    _poll(client, store)
    keys_before = dict(store.ledger)
    fake.expire_delta_tokens()
    fake.add_message(MAILBOX, subject="arrived while the token was expiring")
    calls: list[IntakeBatch] = []
    with pytest.raises(DeltaExpired):
        poll_mailbox(
            client=client, mailbox=MAILBOX, delta_link=store.cursor, deadline=Deadline.after(10), on_batch=calls.append
        )
    assert calls == []
    # Caller's recovery: reset the cursor (own transaction), then delta from scratch.
    store.cursor = None
    delivered_before = store.delivered
    result = _poll(client, store)
    assert result.full_sync and result.messages_handed_over == 6
    assert store.delivered - delivered_before == 6  # everything again ...
    assert len(store.ledger) == 6  # ... but deduped by immutable id: only the new one added
    assert set(keys_before) < set(store.ledger)


def test_sync_state_not_found_400_is_delta_expired(fake: FakeGraph, make_client: Make, store: MemoryStore) -> None:
    client = make_client()
    _poll(client, store)
    fake.inject(match="/messages/delta", status=400, code="syncStateNotFound")
    with pytest.raises(DeltaExpired):
        _poll(client, store)


def test_foreign_checkpoint_is_refused_without_a_request(fake: FakeGraph, make_client: Make) -> None:
    client = make_client()
    fake.clear_log()
    with pytest.raises(InvalidCheckpoint):
        poll_mailbox(
            client=client,
            mailbox=MAILBOX,
            delta_link="https://evil.example/v1.0/users/x/mailFolders/inbox/messages/delta?$deltatoken=a",
            deadline=Deadline.after(5),
            on_batch=lambda b: None,
        )
    assert fake.requests == []


def test_removed_entries_are_counted_not_delivered(fake: FakeGraph, make_client: Make, store: MemoryStore) -> None:
    client = make_client()
    ids = _deliver(fake, 2)
    _poll(client, store)
    fake.remove_message(MAILBOX, ids[0])
    result = _poll(client, store)
    assert result.removed_seen == 1 and result.messages_handed_over == 0


def test_changed_known_message_skips_attachment_traffic(fake: FakeGraph, make_client: Make, store: MemoryStore) -> None:
    client = make_client()
    ids = _deliver(fake, 2)
    _poll(client, store)
    fake.touch_message(MAILBOX, ids[1])  # e.g. a recruiter read it: delta returns it again
    fake.clear_log()
    batches: list[IntakeBatch] = []
    poll_mailbox(
        client=client,
        mailbox=MAILBOX,
        delta_link=store.cursor,
        deadline=Deadline.after(10),
        on_batch=batches.append,
        is_known=lambda env: env.dedupe_key in store.ledger,
    )
    assert batches[0].items == () and batches[0].known_ids == (ids[1],)
    assert not any("/attachments" in r.path for r in fake.requests)
