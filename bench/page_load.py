"""Page-load times of the recruiter's pages, from the browser (issue 23's closing note).

    /opt/ats/venv/bin/python bench/page_load.py [--cvs 100] [--loads 20] [--json]

One ephemeral stack (Postgres, clamd, worker-default, worker-untrusted, gunicorn on a free
loopback port; bench/paced_bench.py's `stack`), seeded through the real services: `--cvs`
distinct one-page CVs ingested and read by the workers (page images rendered), one
requisition they all apply to (scored by the worker), a hiring manager assigned to it.
Then Debian's chromium (Playwright) signs in as each role and loads every page of the
workspace `--loads` times after two unmeasured loads, reading the browser's own
Navigation Timing entry for each load:

- load: navigation start -> the load event's end (HTML, CSS, scripts, images - the CV
  page images on the candidate and document pages included);
- ttfb: navigation start -> the first byte of the response (the server's share).

Reported per page: p50 and p95 of both, and the HTML's size. The machine may be shared:
the load average before and after is printed beside the figures; compare pages within
one run rather than runs on different days.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import paced_bench as pb  # noqa: E402 - the stack and the distinct CVs live there

# A throwaway stack, but no fixed password in the source: a fresh one per run.
PASSWORD = secrets.token_urlsafe(18)
TIMING = """() => { const n = performance.getEntriesByType('navigation')[0];
  return {load: n.loadEventEnd - n.startTime, ttfb: n.responseStart - n.startTime,
          html_bytes: n.decodedBodySize}; }"""


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))], 1)


def seed(cvs: int) -> dict[str, Any]:
    """Users, CVs read by the workers, one requisition they all apply to (scored)."""
    from django.db import transaction

    from ats.iam import api as iam_api
    from ats.intake import api as intake_api
    from ats.scoring import api as scoring_api

    actor = iam_api.SystemActor("bench:page-load")
    users = {
        role: iam_api.user_create(username=f"bench-{role}", password=PASSWORD, role=role)
        for role in ("recruiter", "hiring_manager", "operator")
    }
    raws = [pb.receive(pb.distinct_cv(i), f"cv-{i:04d}.pdf") for i in range(cvs)]
    states = pb.wait_terminal(raws, timeout_s=60 + 3 * cvs)
    attachments = [intake_api.raw_intake_attachments(r.pk)[0] for r in raws]
    candidate_ids = sorted({s["candidate_id"] for s in states if s.get("candidate_id")})
    req = scoring_api.requisition_create(
        title="Backend engineer", must_have=["Python", "PostgreSQL"], nice_to_have=["Kubernetes"], actor=actor
    )
    scoring_api.requisition_assign(requisition_id=req.requisition_id, user_id=users["hiring_manager"].pk, actor=actor)
    apps = []
    for cid in candidate_ids:
        with transaction.atomic():
            apps.append(scoring_api.application_apply(candidate_id=cid, requisition_id=req.requisition_id).id)
    _wait_images_and_scores(attachments, apps)
    return {
        "candidate": candidate_ids[0],
        "document": next(a.pk for a in attachments if a.candidate_id == candidate_ids[0]),
        "requisition": req.requisition_id,
        "application": apps[0],
        "states": sorted({s["state"] for s in states}),
        "candidates": len(candidate_ids),
    }


def _wait_images_and_scores(attachments: list[Any], apps: list[int], timeout_s: float = 600) -> None:
    from django.db import connection

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with connection.cursor() as cur:
            cur.execute("SELECT count(*) FROM procrastinate_jobs WHERE status IN ('todo', 'doing')")
            if cur.fetchone()[0] == 0:
                return
        time.sleep(1)
    print("warning: jobs still waiting after the seed's deadline", file=sys.stderr)


def pages(s: dict[str, Any]) -> dict[str, list[tuple[str, str]]]:
    """role -> (name, URL) of every page that role works on."""
    return {
        "recruiter": [
            ("inbox (needs attention)", "/"),
            ("inbox: all documents", "/?state="),
            ("upload", "/upload/"),
            ("candidates", "/candidates/"),
            ("candidate (with the CV viewer)", f"/candidates/{s['candidate']}"),
            ("document (with the CV viewer)", f"/documents/{s['document']}"),
            ("requisitions", "/requisitions/"),
            ("requisition (ranked)", f"/requisitions/{s['requisition']}/"),
            ("application", f"/applications/{s['application']}/"),
        ],
        "hiring_manager": [
            ("candidates (hiring manager)", "/candidates/"),
            ("candidate (hiring manager)", f"/candidates/{s['candidate']}"),
        ],
        "operator": [("ops", "/ops/"), ("jobs", "/ops/jobs/")],
    }


def measure(base: str, plan: dict[str, list[tuple[str, str]]], loads: int) -> dict[str, dict[str, Any]]:
    from ats.devtools import browser as harness

    out: dict[str, dict[str, Any]] = {}
    with harness.browser() as b:
        for role, rows in plan.items():
            context = b.new_context(base_url=base, viewport={"width": 1280, "height": 900})
            context.set_default_timeout(60_000)
            page = context.new_page()
            page.goto("/login/")
            page.fill("#id_username", f"bench-{role}")
            page.fill("#id_password", PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_load_state()
            for name, url in rows:
                samples: list[dict[str, float]] = []
                for n in range(loads + 2):
                    response = page.goto(url)
                    assert response is not None and response.status == 200, (url, response and response.status)
                    page.wait_for_function("() => performance.getEntriesByType('navigation')[0].loadEventEnd > 0")
                    if n >= 2:  # the first loads fill caches (browser, connections, templates)
                        samples.append(page.evaluate(TIMING))
                load = [x["load"] for x in samples]
                ttfb = [x["ttfb"] for x in samples]
                out[name] = {
                    "url": url,
                    "role": role,
                    "loads": len(samples),
                    "load_p50_ms": round(statistics.median(load), 1),
                    "load_p95_ms": _pct(load, 95),
                    "ttfb_p50_ms": round(statistics.median(ttfb), 1),
                    "ttfb_p95_ms": _pct(ttfb, 95),
                    "html_kb": round(samples[-1]["html_bytes"] / 1024, 1),
                }
            context.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cvs", type=int, default=100, help="distinct CVs seeded (each a candidate)")
    ap.add_argument("--loads", type=int, default=20, help="measured loads per page")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    from ats.devtools.pg_local import free_port

    port = free_port()
    with pb.stack(web=True, extra_env={"ATS_WEB_BIND": f"127.0.0.1:{port}"}):
        seeded = seed(args.cvs)
        load_before = os.getloadavg()
        results = measure(f"http://127.0.0.1:{port}", pages(seeded), args.loads)
        load_after = os.getloadavg()
    report = {
        "cvs": args.cvs,
        "candidates": seeded["candidates"],
        "document_states": seeded["states"],
        "loads_per_page": args.loads,
        "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in load_after],
        "pages": results,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(
        f"{report['candidates']} candidates from {args.cvs} CVs ({', '.join(report['document_states'])}); "
        f"{args.loads} loads per page at 1280 px; load average {report['loadavg_before']} -> {report['loadavg_after']}"
    )
    print(f"{'page':<34}{'load p50':>10}{'load p95':>10}{'ttfb p50':>10}{'ttfb p95':>10}{'HTML KB':>9}")
    for name, r in results.items():
        print(
            f"{name:<34}{r['load_p50_ms']:>10}{r['load_p95_ms']:>10}{r['ttfb_p50_ms']:>10}{r['ttfb_p95_ms']:>10}"
            f"{r['html_kb']:>9}"
        )


if __name__ == "__main__":
    main()
