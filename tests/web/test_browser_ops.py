"""The operator's console in a real browser (Debian's chromium via Playwright) against
gunicorn on loopback: the 24 h chart of `ingest` renders with data and switches range in
place (no page load); axe-core finds no serious or critical violation at 1280 and 390 px.

With ATS_SCREENSHOTS_DIR set (`just screenshots`) the run writes the pages as PNGs there.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from ats.devtools import browser as harness
from tests.jobs.test_rollup import finished_job
from tests.web.browser import MARKS, PHONE, SHOTS, login

pytestmark = MARKS


@pytest.fixture(scope="module")
def _ops_web(stack_env: dict[str, str], state_dir: Path) -> Iterator[str]:
    # No workers: the console reads tables; the rollup is run in-process below. One
    # gunicorn for the module (it holds no row between requests); users and rows per test.
    from ats.devtools.pg_local import free_port

    with harness.web_server(stack_env, free_port(), state_dir / "web-ops.log") as base:
        yield base


@pytest.fixture
def web(_ops_web: str, users: dict[str, Any]) -> str:
    return _ops_web


def _axe(page: Any, name: str) -> None:
    assert harness.axe_violations(page) == [], name
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _ingest_history() -> None:
    """A day of `ingest` runs spread over 24 h (every 90 min), one failure, rolled up."""
    from ats.jobs import ops_api as jobs_ops

    now = timezone.now()
    for i in range(16):
        at = now - datetime.timedelta(minutes=30 + 90 * i)
        finished_job(queue="ingest", deferred=at, wait_s=1 + i % 4, run_s=0.5 + (i % 3))
    finished_job(queue="ingest", deferred=now - datetime.timedelta(hours=5), wait_s=2, run_s=4, outcome="failed")
    jobs_ops.rollup_minutes()


def test_the_24h_chart_of_ingest_renders_with_data_and_switches_in_place(web: str, chromium: Any) -> None:
    _ingest_history()
    page = login(chromium, web, "operator")
    page.goto("/ops/")
    panel = page.locator("#ops-charts")
    assert panel.locator("h2").inner_text() == "Charts: queue ingest, last 24 hours"
    throughput = panel.locator('svg[data-chart="throughput"]')
    assert throughput.locator("rect").count() >= 10  # one bar per 15-minute bucket that ran
    # 17 here; earlier tests' real ingest jobs (procrastinate's tables outlive a test) add theirs.
    label = throughput.get_attribute("aria-label") or ""
    assert int(label.rsplit(": ", 1)[1].split()[0]) >= 17, label
    assert panel.locator('svg[data-chart="failures"] rect').count() >= 1
    assert panel.locator('svg[data-chart="run"] polyline, svg[data-chart="run"] circle').count() >= 2
    box = throughput.bounding_box()
    assert box and box["width"] > 300 and box["height"] > 50  # drawn, not an empty box
    _axe(page, "ops-charts")

    # Another range: htmx swaps the panel; the page itself is not reloaded.
    page.evaluate("window.__notReloaded = true")
    panel.get_by_role("link", name="7 days").click()
    expect(page.locator("#ops-charts h2")).to_contain_text("7 days")
    assert page.evaluate("window.__notReloaded === true")
    assert page.locator('#ops-charts svg[data-chart="throughput"] rect').count() >= 1
    page.locator("#ops-charts").get_by_role("link", name="parse").click()
    expect(page.locator("#ops-charts h2")).to_contain_text("queue parse")
    assert page.evaluate("window.__notReloaded === true")

    phone = login(chromium, web, "operator", viewport=PHONE)
    phone.goto("/ops/?chart=ingest&range=24h")
    assert phone.locator('#ops-charts svg[data-chart="throughput"] rect').count() >= 10
    assert phone.evaluate("document.documentElement.scrollWidth <= 390 + 1")
    _axe(phone, "ops-charts-phone")


def test_operator_bulk_retries_every_failed_parse_of_the_last_hour_and_a_read_only_one_cannot(
    web: str, chromium: Any
) -> None:
    from ats.jobs import ops_api as jobs_ops
    from tests.web import helpers
    from tests.web.test_ops_bulk_cli import _parse_job_failed

    docs = [helpers.parse_failed(f"locked-bulk-{i}.pdf") for i in range(3)]
    for att in docs:
        _parse_job_failed(att)
    n = len(jobs_ops.job_ids_matching(status="failed", task_name=helpers.PARSE, since=jobs_ops.parse_since("1h")))
    assert n >= 3

    page = login(chromium, web, "operator")
    page.goto("/ops/jobs/")
    page.fill("#j-task", helpers.PARSE)
    page.select_option("#j-status", "failed")
    page.fill("#j-since", "1h")
    page.click("form.filters button[type=submit]")
    expect(page.locator("#jobs tbody tr")).to_have_count(n)
    page.check("#jobs-bulk input[name=scope][value=filter]")
    page.click("#bulk-retry")
    expect(page.locator("h1")).to_have_text(f"Retry {n} failed jobs?")
    _axe(page, "jobs-bulk-confirm")
    page.click("#bulk-confirm")
    expect(page.locator(".messages")).to_contain_text(f"{n} failed jobs matched; ")
    for att in docs:  # retried through each document's own action: a new parse job waits
        assert helpers.jobs_for(att.pk, helpers.PARSE)[-1] == "todo"

    # Tick one waiting parse job and try to cancel it: the count is stated first, and a
    # job its document waits for is refused (cancelling it would lose the document).
    page.goto(f"/ops/jobs/?task={helpers.PARSE}&status=todo")
    _axe(page, "jobs-selection")
    first = page.locator("#jobs tbody tr").first
    job_id = int(first.locator("th a").inner_text())
    first.locator("input[name=ids]").check()
    expect(page.locator("[data-selected-count]")).to_have_text("1")
    page.click("#bulk-cancel")
    expect(page.locator("h1")).to_have_text("Cancel 1 waiting job?")
    page.click("#bulk-confirm")
    expect(page.locator(".messages")).to_contain_text("1 ticked jobs matched; 0 cancelled. 1 left as they were")
    assert jobs_ops.job_row(job_id)["status"] == "todo"

    ro = login(chromium, web, "operator_readonly")
    ro.goto(f"/ops/jobs/?task={helpers.PARSE}")
    expect(ro.locator("#jobs tbody tr").first).to_be_visible()
    assert ro.locator("#jobs-bulk, input[name=ids], #bulk-retry").count() == 0
    ro.goto("/ops/")
    assert ro.locator("button.queue-toggle").count() == 0
