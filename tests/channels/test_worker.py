"""The mail channel in real worker processes: end-to-end intake of the demo mailbox, and
exhaustion -> degraded -> recovery through the periodic schedule."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ats.channels import api as channels_api
from ats.channels.models import MailChannel
from ats.devtools.fake_graph import FakeGraph, seed_demo
from ats.intake import api as intake_api
from ats.jobs import api as jobs_api
from tests.channels.conftest import MAILBOX
from tests.jobs.helpers import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

WAITING_FOR_INGEST = {"received", "scanning"}


def test_deferred_poll_ingests_the_demo_mailbox_end_to_end(
    graph: FakeGraph, graph_env: dict[str, str], start_worker: Any, ats_cli: Any
) -> None:
    seed_demo(graph, MAILBOX)
    start_worker("default", env=graph_env)
    res = ats_cli("channel-add", "--mailbox", MAILBOX, "--json")
    assert res.returncode == 0, res.stderr
    channel_id = json.loads(res.stdout)["channel_id"]
    res = ats_cli("channel-poll", str(channel_id))
    assert res.returncode == 0 and "poll queued as job" in res.stdout, res.stderr

    def done() -> bool:
        atts = intake_api.Attachment.objects.filter(raw_intake__channel="mail")
        return len(channels_api.ledger_entries(channel_id)) == 4 and all(
            a.state not in WAITING_FOR_INGEST for a in atts
        )

    wait_for(done, 60, "the demo mailbox to be ingested")
    states = {a.filename: a.state for a in intake_api.Attachment.objects.filter(raw_intake__channel="mail")}
    # Grace's inline signature logo is not a document (channels.services.is_inline_image).
    files = {"Ada_Example_CV.pdf", "Grace_Sample_CV.docx", "Lin_Demo_CV.pdf"}
    assert set(states) == files | {"Original message", "CV on SharePoint"}
    # Scanned clean and handed to parse (worker-untrusted is not running here): past `received`.
    assert {states[f] for f in files} == {"promoted"}
    assert states["Original message"] == states["CV on SharePoint"] == "rejected_unsupported_type"
    outcomes = sorted(r.outcome for r in channels_api.ledger_entries(channel_id))
    assert outcomes == ["ingested", "ingested", "ingested", "no_attachments"]

    res = ats_cli("channel-list", "--json")
    [row] = [json.loads(line) for line in res.stdout.splitlines()]
    assert (row["channel_id"], row["status"], row["messages"]) == (channel_id, "active", 4)
    assert row["last_polled_at"] is not None and row["synced"]


def test_exhaustion_degrades_the_channel_and_the_schedule_recovers_it(
    graph: FakeGraph, graph_env: dict[str, str], start_worker: Any
) -> None:
    graph.add_message(MAILBOX, subject="CV", attachments=[])
    channel = MailChannel.objects.get(pk=channels_api.channel_add(mailbox=MAILBOX)[0].id)
    graph.inject(match="/messages/delta", status=500, times=10_000)
    # Only the schedule (every second here) queues polls: nothing is deferred by hand. At
    # that rate it also fires while a failing poll runs: without the in-flight check the
    # poll's retry collided with the next scheduled job and polling stopped for good.
    start_worker("default", extra=["--queues=mail"], env={**graph_env, "ATS_MAIL_POLL_CRON": "* * * * * */1"})

    def degraded() -> Any:
        channel.refresh_from_db()
        return channel.status == "degraded" and channel

    wait_for(degraded, 30, "the channel to be marked degraded")
    assert "500" in channel.status_reason and channel.status_reason == channel.last_error

    def failed_polls() -> list[Any]:
        refs = jobs_api.jobs_by_payload_key("channel_id", [channel.pk]).get(channel.pk, [])
        return [j for j in refs if j.status == "failed"]

    # The state is written inside the last attempt, just before that job itself fails.
    failed = wait_for(failed_polls, 10, "the exhausted poll job to finish")
    assert failed[-1].attempts == 5  # every attempt of the policy ran first
    since = channel.status_since

    graph.clear_faults()

    def recovered() -> Any:
        channel.refresh_from_db()
        return channel.status == "active" and channel

    wait_for(recovered, 30, "a scheduled poll to succeed")
    assert channel.status_reason == "" and channel.last_polled_at is not None and channel.status_since > since
    assert len(channels_api.ledger_entries(channel.pk)) == 1
