"""Real-browser harness: gunicorn on loopback, Debian's chromium driven by Playwright,
axe-core from node_modules. Used by the browser journeys (tests/web/journeys/) and `just screenshots`.

Playwright cannot download its own browser builds here, so it is pointed at the system
chromium (`apt-get install chromium`); as root chromium needs --no-sandbox.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ats.config.env import REPO_ROOT

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
AXE_JS = REPO_ROOT / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING_IMPACTS = ("serious", "critical")


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@contextlib.contextmanager
def web_server(env: dict[str, str], port: int, log: Path) -> Iterator[str]:
    """`ats web` (gunicorn, the production config) on 127.0.0.1:port until the block ends."""
    with log.open("ab") as fh:
        proc = subprocess.Popen(
            [sys.executable, "-m", "ats.cli", "web"],
            env={**env, "ATS_WEB_BIND": f"127.0.0.1:{port}", "ATS_PROCESS_NAME": "test-web"},
            stdout=fh,
            stderr=subprocess.STDOUT,
            cwd=REPO_ROOT,
            start_new_session=True,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    with urllib.request.urlopen(f"{base}/readyz", timeout=2) as res:  # noqa: S310 - loopback
                        if res.status == 200:
                            break
                except OSError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"web did not start: {log.read_text(errors='replace')[-2000:]}")
                time.sleep(0.2)
            yield base
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 15)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
                proc.wait(5)


def launch(pw: Any) -> Any:
    """Debian's chromium through a running Playwright (`sync_playwright()`)."""
    executable = chromium_path()
    if executable is None:
        raise RuntimeError("no chromium: apt-get install chromium (scripts/bootstrap.sh does)")
    return pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)


@contextlib.contextmanager
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = launch(pw)
        try:
            yield b
        finally:
            b.close()


def axe_violations(page: Any) -> list[str]:
    """Run axe-core (WCAG 2 A/AA + best practices) in the page; serious/critical findings.

    Injected through the DevTools protocol (page.evaluate), not a <script> tag: the page's
    CSP forbids inline scripts and stays on while it is checked.
    """
    page.evaluate(AXE_JS.read_text())
    found = page.evaluate(
        """async () => {
            const r = await axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']});
            return r.violations.map(v => ({id: v.id, impact: v.impact, n: v.nodes.length,
                                            target: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
        }"""
    )
    return [f"{v['impact']} {v['id']} x{v['n']} {v['target']}" for v in found if v["impact"] in BLOCKING_IMPACTS]
