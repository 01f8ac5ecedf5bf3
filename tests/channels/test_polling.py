"""The mail poll against a real (fake) Graph HTTPS server and the real database, in process:
each page commits its rows and the cursor together, so every document lands exactly once."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from django.db import connection

from ats.channels import api as channels_api
from ats.channels import services as channels_services
from ats.channels.models import MailChannel
from ats.devtools.fake_graph import FakeAttachment, FakeGraph
from ats.intake import api as intake_api
from ats.jobs import api as jobs_api
from ats.mail import api as mail_api
from tests.channels.conftest import MAILBOX

pytestmark = pytest.mark.django_db(transaction=True)


def cv(name: str) -> FakeAttachment:
    body = b"%PDF-1.7\n% " + name.encode() + secrets.token_hex(8).encode() + b"\n%%EOF\n"
    return FakeAttachment(f"{name}.pdf", body, "application/pdf")


def deliver(graph: FakeGraph, n: int, prefix: str = "cv") -> list[str]:
    return [
        graph.add_message(MAILBOX, subject=f"Application {prefix}{i}", attachments=[cv(f"{prefix}{i}")])
        for i in range(n)
    ]


def poll(channel: Any) -> channels_api.PollSummary:
    summary = channels_api.channel_poll(channel_id=channel.pk)
    assert summary is not None
    return summary


def mail_intakes() -> list[Any]:
    return list(intake_api.RawIntake.objects.filter(channel="mail").order_by("pk"))


def mail_attachments() -> list[Any]:
    return list(intake_api.Attachment.objects.filter(raw_intake__channel="mail").order_by("pk"))


def ledgered(channel: Any) -> list[str]:
    return [r.graph_message_id for r in channels_api.ledger_entries(channel.pk)]


def delta_requests(graph: FakeGraph, since: int = 0) -> list[Any]:
    return [r for r in graph.requests[since:] if r.path.endswith("/messages/delta")]


def downloads(graph: FakeGraph, since: int = 0) -> list[str]:
    return [r.path for r in graph.requests[since:] if r.path.endswith("/$value")]


@pytest.fixture
def channel(graph: FakeGraph) -> Any:
    # The model (tests may read it): the polls below move its delta link and error.
    return MailChannel.objects.get(pk=channels_api.channel_add(mailbox=MAILBOX)[0].id)


def test_pages_commit_once_and_the_delta_link_resumes(graph: FakeGraph, channel: Any) -> None:
    ids = deliver(graph, 5)
    s = poll(channel)
    assert (s.pages, s.messages_new, s.raw_intakes, s.attachments, s.complete) == (3, 5, 5, 5, True)
    channel.refresh_from_db()
    assert "$deltatoken=" in channel.delta_link and channel.last_polled_at is not None
    assert sorted(ledgered(channel)) == sorted(ids)
    assert sorted(r.source_ref for r in mail_intakes()) == sorted(f"graph:{MAILBOX}:{i}" for i in ids)
    # Each document waits for its ingest job, committed with it (checked by the autouse fixture).
    assert [a.state for a in mail_attachments()] == ["received"] * 5

    mark = len(graph.requests)
    s = poll(channel)  # no new mail: resumes from the stored deltaLink, downloads nothing
    assert (s.messages_new, s.raw_intakes) == (0, 0)
    assert ["$deltatoken=" in r.query for r in delta_requests(graph, mark)] == [True]
    assert downloads(graph, mark) == []

    graph.touch_message(MAILBOX, ids[0])  # a read flag: Graph re-sends the message
    late = graph.add_message(MAILBOX, subject="Late application", attachments=[cv("late")])
    assert len(mail_intakes()) == 5  # nothing arrives between polls
    mark = len(graph.requests)
    s = poll(channel)
    assert (s.messages_new, s.messages_known, s.raw_intakes) == (1, 1, 1)
    assert [late in p for p in downloads(graph, mark)] == [True]  # the known one is not re-downloaded
    assert len(mail_intakes()) == 6 and len(mail_attachments()) == 6
    assert sorted(ledgered(channel)) == sorted([*ids, late])


def test_every_attachment_becomes_a_visible_row(
    graph: FakeGraph, channel: Any, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    monkeypatch.setitem(settings.ATS, "MAX_UPLOAD_BYTES", 50_000)
    mixed = graph.add_message(
        MAILBOX,
        attachments=[
            FakeAttachment("Original message", b"", kind="item"),
            FakeAttachment("CV on SharePoint", b"", kind="reference"),
            cv("real"),
            FakeAttachment("huge.pdf", b"%PDF-1.7\n" + b"0" * 60_000, "application/pdf"),
        ],
    )
    same = cv("twice")
    twice = graph.add_message(MAILBOX, attachments=[same, FakeAttachment("copy.pdf", same.content, "application/pdf")])
    bare = graph.add_message(MAILBOX, subject="Question about the role")
    poll(channel)

    ledger = {r.graph_message_id: r for r in channels_api.ledger_entries(channel.pk)}
    assert (ledger[bare].outcome, ledger[bare].raw_intake_id) == ("no_attachments", None)

    by_name = {a.filename: a for a in intake_api.raw_intake_attachments(ledger[mixed].raw_intake_id)}
    assert by_name["real.pdf"].state == "received"
    rejected = {n: (a.state, a.reason_code) for n, a in by_name.items() if n != "real.pdf"}
    assert rejected == {
        "Original message": ("rejected_unsupported_type", "mail_item_attachment"),
        "CV on SharePoint": ("rejected_unsupported_type", "mail_reference_attachment"),
        "huge.pdf": ("rejected_too_large", "too_large"),
    }
    assert all(by_name[n].reason and intake_api.is_terminal(by_name[n].state) for n in rejected)
    # Plain words only: no Graph type name ("not a fileAttachment") in a recruiter's reason.
    assert not [n for n in rejected if "fileAttachment" in by_name[n].reason or "graph" in by_name[n].reason]
    assert {a.outcome for a in ledger[mixed].attachments} == {"ingested", "rejected"}
    assert len(ledger[mixed].attachments) == 4

    # The same bytes attached twice are one document.
    [one] = intake_api.raw_intake_attachments(ledger[twice].raw_intake_id)
    assert one.filename == "twice.pdf"
    assert intake_api.raw_intake_get(ledger[twice].raw_intake_id).metadata["identical_attachments_collapsed"] == 1  # type: ignore[union-attr]


def test_429_retry_after_is_honoured(graph: FakeGraph, channel: Any) -> None:
    deliver(graph, 1)
    graph.inject(match="/messages/delta", status=429, retry_after=1)
    assert poll(channel).messages_new == 1
    first, second = delta_requests(graph)
    assert (first.status, second.status) == (429, 200)
    assert second.started - first.finished >= 0.95


def test_expired_delta_token_resyncs_without_duplicates(graph: FakeGraph, channel: Any) -> None:
    deliver(graph, 3)
    poll(channel)
    new = graph.add_message(MAILBOX, subject="After the token expired", attachments=[cv("new")])
    graph.expire_delta_tokens()  # Graph answers the stored deltaLink with 410 Gone
    mark = len(graph.requests)
    s = poll(channel)
    assert s.resynced and (s.messages_new, s.messages_known) == (1, 3)
    gone, restart, *_ = delta_requests(graph, mark)
    assert gone.status == 410 and "$deltatoken=" in gone.query
    assert "token=" not in restart.query  # a full sync from scratch
    assert [new in p for p in downloads(graph, mark)] == [True]  # the ledger spared the rest
    assert len(mail_intakes()) == 4 and len(ledgered(channel)) == 4
    channel.refresh_from_db()
    assert "$deltatoken=" in channel.delta_link


def test_crash_before_commit_refetches_the_page_without_loss_or_duplicates(
    graph: FakeGraph, channel: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = deliver(graph, 5)
    real = intake_api.intake_receive
    calls = 0

    def crash_once_on_page_two(**kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        raw = real(**kwargs)  # message 3's rows are written inside page 2's transaction,
        if calls == 4:  # then message 4 dies before the commit
            raise RuntimeError("simulated crash between fetching and committing page 2")
        return raw

    monkeypatch.setattr(intake_api, "intake_receive", crash_once_on_page_two)
    with pytest.raises(RuntimeError, match="simulated crash"):
        channels_api.channel_poll(channel_id=channel.pk)
    channel.refresh_from_db()
    page_two = channel.delta_link
    assert "$skiptoken=" in page_two  # page 1 committed, page 2 did not move the cursor
    assert sorted(ledgered(channel)) == sorted(ids[:2])
    assert len(mail_intakes()) == 2  # message 3's raw_intake rolled back with its page
    assert "simulated crash" in channel.last_error

    mark = len(graph.requests)
    s = poll(channel)
    assert s.messages_new == 3
    assert page_two.split("?", 1)[1] == delta_requests(graph, mark)[0].query  # page 2 fetched again
    assert sorted(ledgered(channel)) == sorted(ids)
    refs = [r.source_ref for r in mail_intakes()]
    assert len(refs) == len(set(refs)) == 5 and len(mail_attachments()) == 5


def test_out_of_time_after_progress_continues_in_a_fresh_job(
    graph: FakeGraph, channel: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    deliver(graph, 3)
    graph.inject(match="$skiptoken=", delay=1.5)  # page 2 answers after the budget
    monkeypatch.setattr(channels_services, "_deadline", lambda: mail_api.Deadline.after(0.75))
    s = poll(channel)
    assert (s.pages, s.messages_new, s.complete, s.continued) == (1, 2, False, True)
    channel.refresh_from_db()
    assert "$skiptoken=" in channel.delta_link and channel.last_polled_at is None
    [follow_up] = jobs_api.jobs_by_payload_key("channel_id", [channel.pk])[channel.pk]
    assert (follow_up.task_name, follow_up.status) == ("mail.poll_channel", "todo")
    with connection.cursor() as cur:
        cur.execute("DELETE FROM procrastinate_jobs WHERE id = %s", [follow_up.id])


def test_refused_credentials_fail_permanently_and_visibly(
    graph: FakeGraph, channel: Any, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    monkeypatch.setitem(settings.ATS, "GRAPH_CLIENT_SECRET", "not-the-secret")
    with pytest.raises(channels_api.PermanentPollError) as err:
        channels_api.channel_poll(channel_id=channel.pk)
    assert err.value.code == "graph_auth"
    channel.refresh_from_db()
    assert "invalid_client" in channel.last_error and channel.status == "active"  # degraded comes at exhaustion


def test_schedule_queues_one_poll_per_active_channel(graph: FakeGraph) -> None:
    a = channels_api.channel_add(mailbox="a@contoso.example")[0]
    b = channels_api.channel_add(mailbox="B@contoso.example", folder="applications")[0]
    off = channels_api.channel_add(mailbox="off@contoso.example")[0]
    MailChannel.objects.filter(pk=off.id).update(active=False)
    assert channels_api.channel_add(mailbox="A@CONTOSO.example")[0].id == a.id  # one channel per folder
    assert channels_api.channel_schedule_polls() == [a.id, b.id]
    assert channels_api.channel_schedule_polls() == []  # still waiting: no second poll
    jobs = jobs_api.jobs_by_payload_key("channel_id", [a.id, b.id, off.id])
    assert {k: [(j.task_name, j.status) for j in v] for k, v in jobs.items()} == {
        a.id: [("mail.poll_channel", "todo")],
        b.id: [("mail.poll_channel", "todo")],
    }
    # A running poll blocks a new one too (the queueing lock alone would let it through,
    # and the running poll's retry would then collide with it).
    with connection.cursor() as cur:
        cur.execute("UPDATE procrastinate_jobs SET status = 'doing' WHERE id = %s", [jobs[a.id][0].id])
    assert channels_api.channel_schedule_polls() == []
    assert channels_api.channel_poll_request(channel_id=a.id) is None
    with connection.cursor() as cur:  # no worker here will run them; keep the queue clean
        cur.execute("DELETE FROM procrastinate_jobs WHERE id = ANY(%s)", [[j.id for v in jobs.values() for j in v]])


def test_metrics_expose_channel_status() -> None:
    from django.db import transaction
    from prometheus_client import CollectorRegistry, generate_latest

    from ats.channels import api as channels_api
    from ats.monitoring.collector import DatabaseCollector

    channel, _ = channels_api.channel_add(mailbox="ops@contoso.example")
    with transaction.atomic():  # as the exhaustion handler runs it
        channels_api.channel_mark_degraded(channel_id=channel.id, reason="Graph refused the credentials")
    registry = CollectorRegistry()
    registry.register(DatabaseCollector())
    body = generate_latest(registry).decode()
    assert 'ats_mail_channels{status="degraded"} 1.0' in body
    assert 'ats_mail_channels{status="active"} 0.0' in body
