"""The policy table is the ADR §2 table, as data; operators can read it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ats.jobs import api as jobs_api
from ats.jobs import ops_api as jobs_ops

ADR = Path(__file__).resolve().parents[3] / "shared" / "seed" / "0004-background-job-queue.md"

# ADR 0004 §2, transcribed: task class -> (attempts, backoff first/max or fixed waits, wall timeout s).
EXPECTED = {
    "mail_poll": (5, "exponential, 30 s -> 15 min", 300),
    "malware_scan": (5, "exponential, 10 s -> 5 min", 120),
    "document_parse": (3, "exponential, 1 min -> 10 min", 90),
    "score_single": (3, "exponential, 30 s -> 5 min", 60),
    "batch_rescore_application": (3, "exponential, 30 s -> 5 min", 60),
    "ai_invocation": (2, "5 s, 20 s", 45),
    "retention_purge": (3, "exponential, 1 h -> 4 h", 1800),
    "audit_export_verify": (5, "exponential, 1 h -> 8 h", 1800),
}
ADR_NAMES = {
    "Mail poll": "mail_poll",
    "Malware scan": "malware_scan",
    "Document parse": "document_parse",
    "Score (single)": "score_single",
    "Batch rescore (per application)": "batch_rescore_application",
    "AI invocation": "ai_invocation",
    "Retention purge": "retention_purge",
    "Audit partition export / verify": "audit_export_verify",
}


def _adr_rows() -> dict[str, tuple[int, int]]:
    text = ADR.read_text()
    section = text.split("### 2. Retry and timeout policy", 1)[1].split("###", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] in ADR_NAMES:
            attempts = int(cells[1])
            m = re.match(r"\**(\d+)\s*(s|min)", cells[3])
            assert m, cells[3]
            timeout = int(m.group(1)) * (60 if m.group(2) == "min" else 1)
            rows[ADR_NAMES[cells[0]]] = (attempts, timeout)
    return rows


def test_every_adr_row_is_in_the_policy_table_with_its_numbers() -> None:
    by_class = {p.task_class: p for p in jobs_ops.POLICIES if p.adr_row}
    assert set(by_class) == set(EXPECTED)
    for task_class, (attempts, backoff, timeout) in EXPECTED.items():
        p = by_class[task_class]
        assert (p.attempts, p.backoff.describe(), p.timeout_s) == (attempts, backoff, timeout), task_class
        assert p.procrastinate_retries == attempts - 1  # converted once, here


@pytest.mark.skipif(not ADR.exists(), reason="ADR not beside the checkout; the transcription above still ran")
def test_transcription_equals_the_adr_document() -> None:
    assert _adr_rows() == {k: (v[0], v[2]) for k, v in EXPECTED.items()}


def test_backoff_waits_follow_the_adr() -> None:
    scan = jobs_api.policy_for("intake.ingest_attachment").backoff
    assert [scan.wait_after(n) for n in range(1, 5)] == [10, 20, 40, 80]
    mail = jobs_api.policy_for("mail.poll_channel").backoff
    assert mail.wait_after(1) == 30 and mail.wait_after(10) == 900  # capped at 15 min
    ai = jobs_api.policy_for("ai.invoke").backoff
    assert [ai.wait_after(1), ai.wait_after(2)] == [5, 20]


def test_per_entity_work_is_locked_and_deduplicated() -> None:
    mail = jobs_api.policy_for("mail.poll_channel")
    assert mail.lock == mail.queueing_lock == "mailpoll:channel:{channel_id}"
    assert mail.lock_for({"channel_id": 7}) == "mailpoll:channel:7"
    rescore = jobs_api.policy_for("scoring.rescore_application")
    assert rescore.lock is not None and rescore.lock.startswith("rescore:requisition_version:{requisition_version_id}")
    dedupe = jobs_api.policy_for("candidates.dedupe")
    assert dedupe.lock == dedupe.queueing_lock == "dedupe:candidate:{candidate_id}"


def test_every_queue_is_served_by_exactly_one_deployable() -> None:
    assert set(jobs_ops.UNTRUSTED_QUEUES) == {"parse"}
    assert set(jobs_ops.DEFAULT_QUEUES) == set(jobs_ops.QUEUES) - {"parse"} | {jobs_ops.BUILTIN_QUEUE}
    for p in jobs_ops.POLICIES:
        assert p.queue in set(jobs_ops.QUEUES) | {jobs_ops.BUILTIN_QUEUE}, p.task_name


def test_ats_policy_json_prints_one_object_per_task_class(ats_cli) -> None:  # type: ignore[no-untyped-def]
    res = ats_cli("policy", "--json")
    assert res.returncode == 0, res.stderr
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert {r["task_class"] for r in rows} >= set(EXPECTED)
    for r in rows:
        assert {"task_class", "queue", "attempts", "backoff", "timeout_s", "on_exhaustion"} <= set(r)
    parse = next(r for r in rows if r["task_class"] == "document_parse")
    assert (parse["queue"], parse["attempts"], parse["timeout_s"]) == ("parse", 3, 90)
