"""In-process CPU per hop (issue 26 item 1, change set h50perf): a fixed loop of distinct
one-page CVs through the trusted hops - ingest, apply (with the candidate step), page
images, follow-ups, score - in this process, on the test cluster, each hop's work measured on both sides:

- this thread's CPU (/proc/thread-self/schedstat, ns) while the hop's function runs;
- its Postgres backend's CPU (/proc/<pg_backend_pid()>/schedstat) over the same span;
- the statements Django sent (an execute wrapper).

The parse (sandbox), the receive and the job bookkeeping between hops are outside the
measured spans. Skipped unless ATS_HOP_LOOP=<documents>; ATS_HOP_LOOP_OUT=<file> writes the
figures as JSON; ATS_HOP_LOOP_PROFILE=<hop> also profiles that hop (cProfile, thread
CPU time) into <file>.prof; ATS_HOP_LOOP_SQL=<hop> lists that hop's statements for the last
document. CPU time, not wall time: the machine may be shared, but a hop's own CPU
moves far less with load than its latency (compare two trees' runs side by side anyway).
"""

from __future__ import annotations

import base64
import cProfile
import json
import os
import pstats
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not os.environ.get("ATS_HOP_LOOP"), reason="a measurement: ATS_HOP_LOOP=<documents>"),
    pytest.mark.timeout(1800),
]


def _thread_ns() -> int:
    return int(Path(f"/proc/self/task/{threading.get_native_id()}/schedstat").read_text().split()[0])


def _backend_ns(pid: int) -> int:
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])


def _backend_pid() -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        return int(cur.fetchone()[0])


def _job_args(task: str, key: str, value: int) -> list[dict[str, Any]]:
    with connection.cursor() as cur:
        cur.execute(
            "DELETE FROM procrastinate_jobs WHERE task_name = %s AND status = 'todo'"
            " AND args->>%s = %s RETURNING id, args",
            [task, key, str(value)],
        )
        return [{**(json.loads(a) if isinstance(a, str) else a), "_id": i} for i, a in cur.fetchall()]


def test_hop_loop() -> None:
    from bench.paced_bench import distinct_cv, receive
    from django.utils import timezone

    from ats.iam import api as iam_api
    from ats.intake import pages as intake_pages
    from ats.intake import services as intake_services
    from ats.intake.models import Attachment, PageImageHandoff, ParseResult
    from ats.parsing.data import ParseLimits
    from ats.parsing.render import render_page
    from ats.pipeline import tasks as pipeline_tasks
    from ats.scoring import api as scoring_api
    from ats.scoring import tasks as scoring_tasks
    from tests.sandbox_parse import production_sandbox, submit_args

    n = int(os.environ["ATS_HOP_LOOP"])
    warm = 5
    version = scoring_api.requisition_create(
        title="Loop engineer",
        must_have=["Python"],
        nice_to_have=["PostgreSQL", "Django"],
        actor=iam_api.SystemActor("bench"),
    )
    meta = {"requisition_id": version.requisition_id}
    docs = [distinct_cv(5000 + i) for i in range(n + warm)]
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # py ns, pg ns, statements, calls
    counter = [0]
    profiles: list[cProfile.Profile] = []

    listed: dict[str, list[str]] = {}  # ATS_HOP_LOOP_SQL=<hop>: that hop's statements, last document
    current = [""]

    def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        counter[0] += 1
        if current[0] == os.environ.get("ATS_HOP_LOOP_SQL"):
            listed.setdefault(current[0], []).append(" ".join(sql.split())[:140])
        return execute(sql, params, many, context)

    def hop(name: str, i: int, fn: Any, **kwargs: Any) -> None:
        pid = _backend_pid()
        counter[0] = 0
        current[0] = name
        listed.pop(name, None)
        py0, pg0 = _thread_ns(), _backend_ns(pid)
        profiler = (
            cProfile.Profile(time.thread_time) if i >= warm and name == os.environ.get("ATS_HOP_LOOP_PROFILE") else None
        )
        with connection.execute_wrapper(count):
            if profiler is not None:
                profiler.runcall(fn, **kwargs)
                profiles.append(profiler)
            else:
                fn(**kwargs)
        py1, pg1 = _thread_ns(), _backend_ns(pid)
        if i >= warm and connection.connection is not None and _backend_pid() == pid:
            t = totals[name]
            t[0] += py1 - py0
            t[1] += pg1 - pg0
            t[2] += counter[0]
            t[3] += 1

    print(
        "connection options:", {k: v for k, v in connection.settings_dict["OPTIONS"].items() if k != "application_name"}
    )
    sandbox = production_sandbox()
    started = time.monotonic()
    for i, data in enumerate(docs):
        raw = receive(data, f"loop{i}.pdf", meta)
        att = Attachment.objects.get(raw_intake_id=raw.pk)
        _job_args("intake.ingest_attachment", "attachment_id", att.pk)
        hop("ingest", i, intake_services.attachment_ingest, attachment_id=att.pk)
        # The parse, as worker-untrusted would hand it over (not measured).
        [parse] = _job_args("intake.parse_attachment", "attachment_id", att.pk)
        report = submit_args(sandbox.run("pdf", data))
        row = ParseResult.objects.create(
            attachment_id=att.pk,
            attempt_no=parse["attempt_no"],
            job_id=parse["_id"],
            received_at=timezone.now(),
            **report,
        )
        hop("apply", i, pipeline_tasks.apply_parse_result, parse_result_id=row.pk, payload_version=1)
        att.refresh_from_db()
        assert att.state == "candidate_created", (att.state, att.reason)
        # Page 1 as worker-untrusted renders and hands it off (not measured), then the store.
        page = render_page(data, kind="pdf", page=1, limits=ParseLimits())
        PageImageHandoff.objects.create(
            attachment_id=att.pk,
            attempt_no=parse["attempt_no"],
            page_no=1,
            untrusted_width=page["width"],
            untrusted_height=page["height"],
            untrusted_unit_width=page["unit_width"],
            untrusted_unit_height=page["unit_height"],
            untrusted_data=base64.b64decode(page["zlib_b64"]),
            received_at=timezone.now(),
        )
        _job_args("intake.store_page_images", "attachment_id", att.pk)
        hop("pages", i, intake_pages.page_images_store, attachment_id=att.pk, attempt_no=parse["attempt_no"])
        [batch] = _job_args("candidates.follow_ups", "candidate_id", att.candidate_id)
        hop(
            "follow_ups",
            i,
            pipeline_tasks.follow_ups,
            candidate_id=att.candidate_id,
            steps=batch["steps"],
            payload_version=1,
        )
        with connection.cursor() as cur:
            cur.execute(
                "DELETE FROM procrastinate_jobs WHERE task_name = 'scoring.score_application' AND status = 'todo'"
                " RETURNING (args->>'application_id')::bigint"
            )
            apps = [a for (a,) in cur.fetchall()]
        assert len(apps) == 1
        hop("score", i, scoring_tasks.score_application, application_id=apps[0], payload_version=1)
    out = {
        name: {
            "jobs": t[3],
            "python_ms_per_job": round(t[0] / t[3] / 1e6, 3),
            "postgres_ms_per_job": round(t[1] / t[3] / 1e6, 3),
            "statements_per_job": round(t[2] / t[3], 2),
        }
        for name, t in totals.items()
    }
    prepared = getattr(getattr(connection.connection, "_prepared", None), "_names", {})
    out["_meta"] = {
        "documents": n,
        "warm_up": warm,
        "seconds": round(time.monotonic() - started, 1),
        "prepared_statements_on_the_connection": len(prepared),
    }
    print(json.dumps(out, indent=1))
    for name, statements in listed.items():
        print(f"{name}: {len(statements)} statements of the last document")
        print("\n".join(f"  {i + 1:3d} {sql}" for i, sql in enumerate(statements)))
    if profiles:
        stats = pstats.Stats(profiles[0])
        for p in profiles[1:]:
            stats.add(p)
        stats.dump_stats(os.environ.get("ATS_HOP_LOOP_OUT", "hop_loop") + ".prof")
    if os.environ.get("ATS_HOP_LOOP_OUT"):
        Path(os.environ["ATS_HOP_LOOP_OUT"]).write_text(json.dumps(out, indent=1))
