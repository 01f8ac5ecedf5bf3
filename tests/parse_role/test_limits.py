"""One source for every bound of a parse report: services/worker-untrusted/policy/limits.toml.

The sandbox's validator (ats.sandbox.validate, through ParseLimits), the parse worker
(ats.parse_worker.runner) and ats_parse_submit() (db-role.sql, written by the migration)
used to disagree: DOCX pages 100,000 vs 10,000, answers 4 MiB vs pg_column_size 4,000,000.
A harmless DOCX with 10,001 page breaks then made every submit raise, three attempts in a
row, and ended as an untyped error. Here: each side is held to the file, and that DOCX
runs through the real workers and ends typed on its first attempt.
"""

from __future__ import annotations

import io
import tomllib
from pathlib import Path
from typing import Any

import docx
import pytest
import yaml
from django.db import connection

from ats.intake.models import ParseAttempt
from ats.parse_worker.data import report_limits, role_limits
from ats.sandbox import api as sandbox_api
from tests.jobs.helpers import wait_for
from tests.parse_role.helpers import parse_job_for_new_document

REPO = Path(__file__).resolve().parents[2]
POLICY = REPO / "services" / "worker-untrusted" / "policy"
TOML = tomllib.loads((POLICY / "limits.toml").read_text())


def _function_source() -> str:
    with connection.cursor() as cur:
        cur.execute("SELECT prosrc FROM pg_proc WHERE proname = 'ats_parse_submit'")
        [(src,)] = cur.fetchall()
    return str(src)


@pytest.mark.django_db
def test_installed_submit_function_uses_the_limits_file() -> None:
    limits = report_limits(POLICY)
    src = _function_source()
    assert f"p_page_count > {limits.max_page_count}" in src
    assert f"length(coalesce(p_text, '')) > {limits.max_text_chars}" in src
    assert f"length(coalesce(p_detail, '')) > {limits.max_detail_chars}" in src
    assert f"octet_length(p_result::text) > {limits.max_result_bytes}" in src
    assert limits.max_page_count == TOML["parse"]["max_docx_pages"] == 10_000
    assert limits.max_text_chars == TOML["parse"]["max_text_chars"]


def test_validator_uses_the_limits_file() -> None:
    policy = sandbox_api.load_policy(POLICY)
    from ats.parsing.data import ParseLimits

    parse = ParseLimits(**policy.parse)
    assert parse.max_docx_pages == TOML["parse"]["max_docx_pages"]
    answer = {"schema": 2, "kind": "docx", "text": "Jane", "ocr_used": False, "ocr_pages": 0, "warnings": []}
    sandbox_api.validate_document({**answer, "pages": parse.max_docx_pages}, kind="docx", limits=parse)
    with pytest.raises(sandbox_api.Invalid, match="pages"):
        sandbox_api.validate_document({**answer, "pages": parse.max_docx_pages + 1}, kind="docx", limits=parse)
    # Every answer the zygote lets through fits the report bound, re-encoded by Postgres
    # (jsonb prints ", " and ": " and may lengthen numbers): twice the answer cap.
    assert report_limits(POLICY).max_result_bytes >= 2 * TOML["child"]["max_result_bytes"]
    assert report_limits(POLICY).max_detail_chars >= 500  # the validator's own detail cap


@pytest.mark.django_db
def test_parse_role_connection_limit_and_timeouts_are_pinned() -> None:
    pinned = role_limits(POLICY)
    with connection.cursor() as cur:
        cur.execute("SELECT rolconnlimit, rolconfig FROM pg_roles WHERE rolname = 'ats_parse'")
        limit, config = cur.fetchone()
    assert limit == pinned.connection_limit
    assert {
        f"statement_timeout={pinned.statement_timeout_ms}",
        f"lock_timeout={pinned.lock_timeout_ms}",
        f"idle_in_transaction_session_timeout={pinned.idle_in_transaction_timeout_ms}",
    } <= set(config)
    # Two pods at the KEDA maximum, each 2 x concurrency + LISTEN + a health check probe.
    keda = yaml.safe_load((REPO / "k8s/components/keda/scaledobject-worker-untrusted.yaml").read_text())
    from ats.cli import DEPLOYABLES

    per_pod = 2 * DEPLOYABLES["untrusted"][1] + 1 + 1
    assert pinned.connection_limit >= keda["spec"]["maxReplicaCount"] * per_pod
    # Idle-in-transaction stays above the parse wall so a slow parse is never cut off.
    assert pinned.idle_in_transaction_timeout_ms > 1000 * TOML["child"]["wall_s"]


def _docx_with_page_breaks(n: int) -> bytes:
    document = docx.Document()
    document.add_paragraph("Jane Doe - Senior Engineer")
    paragraph = document.add_paragraph("Experience")
    run = paragraph.add_run()
    for _ in range(n):
        run.add_break(docx.enum.text.WD_BREAK.PAGE)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _first_attempt_and_job(att: int, parse_job: int) -> tuple[Any, Any]:
    """The first parse attempt once it ended, with its job's (status, attempts) once the
    worker finished the job row. The attempt's terminal state is written a statement before
    the job is finished, so both are waited for: reading the job as soon as the attempt
    ended caught it still 'doing' once in a loaded clean-clone run."""

    def finished() -> Any:
        attempt = ParseAttempt.objects.filter(attachment_id=att, attempt_no=1).first()
        if attempt is None or attempt.state == "pending":
            return None
        with connection.cursor() as cur:
            cur.execute("SELECT status::text, attempts FROM procrastinate_jobs WHERE id = %s", [parse_job])
            job = cur.fetchone()
        return (attempt, job) if job is not None and job[0] != "doing" else None

    found: tuple[Any, Any] = wait_for(finished, 90, "the parse attempt's and its job's terminal states")
    return found


@pytest.mark.django_db(transaction=True)
def test_docx_with_10001_page_breaks_ends_typed_on_its_first_attempt(stack: Any) -> None:
    att, parse_job = parse_job_for_new_document(_docx_with_page_breaks(10_001), "docx")

    attempt, job = _first_attempt_and_job(att, parse_job)
    assert (attempt.state, attempt.error_code, job) == ("failed", "too_many_pages", ("failed", 1))
    assert "more pages than a CV" in attempt.reason


@pytest.mark.django_db
def test_residual_risk_a_session_can_lift_its_own_timeouts() -> None:
    """Documented residual (docs/security/parse-role.md): the role's timeouts are defaults
    every session may SET; only the connection limit is out of its reach. If Postgres ever
    refuses this, the doc can say the timeouts are pinned too."""
    import psycopg

    from ats.config.env import with_user

    s = connection.settings_dict
    url = with_user(f"postgresql://{s['USER']}@{s['HOST']}:{s['PORT']}/{s['NAME']}", "ats_parse")
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SHOW statement_timeout").fetchone() == ("30s",)
        conn.execute("SET statement_timeout = 0")
        assert conn.execute("SHOW statement_timeout").fetchone() == ("0",)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("ALTER ROLE ats_parse CONNECTION LIMIT -1")


@pytest.mark.django_db(transaction=True)
def test_a_report_the_sql_refuses_ends_typed_on_its_first_attempt(
    start_worker: Any, tmp_path: Path, stack_env: dict[str, str]
) -> None:
    """The safety net behind the single source: a worker whose limits file disagrees with
    the installed function (here it lets 20,000 DOCX pages through, the SQL 10,000) gets
    check_violation from ats_parse_submit() and reports a typed failure at once."""
    import os
    import shutil

    policy = tmp_path / "policy"
    shutil.copytree(POLICY, policy)
    os.chmod(tmp_path, 0o755)
    limits = policy / "limits.toml"
    limits.write_text(limits.read_text().replace("max_docx_pages = 10000", "max_docx_pages = 20000"))
    start_worker("untrusted", env={"ATS_SANDBOX_POLICY_DIR": str(policy)})
    # worker-default believes reports only under a policy this deployment ships: this one
    # is declared (else the report is refused as `report_rejected`, sandbox policy).
    from ats.sandbox.api import policy_hash

    accepted = {"ATS_SANDBOX_ACCEPTED_POLICY_HASHES": policy_hash(policy)}
    start_worker("default", extra=["--queues=ingest"], env=accepted)
    att, parse_job = parse_job_for_new_document(_docx_with_page_breaks(10_001), "docx")

    attempt, job = _first_attempt_and_job(att, parse_job)
    assert (attempt.state, attempt.error_code, job) == ("failed", "output_too_large", ("failed", 1))
