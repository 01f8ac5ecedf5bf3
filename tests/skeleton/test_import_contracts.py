"""The import contracts in pyproject.toml cover what exists, not what someone remembered.

A new package under shared/ats is a domain module unless it is listed below as tooling;
the facade contract must name it, or its internals are open to every other module.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
# Not domain modules: settings/environment parsing and the dev/test harnesses.
NOT_DOMAINS = {"config", "devtools"}


def _contracts() -> list[dict[str, Any]]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    return list(config["tool"]["importlinter"]["contracts"])


def _packages() -> set[str]:
    return {p.parent.name for p in (REPO / "shared" / "ats").glob("*/__init__.py")}


def test_every_package_is_a_facade_domain_or_named_tooling() -> None:
    [facade] = [c for c in _contracts() if c["type"] == "facade"]
    packages = _packages()
    assert {"channels", "web", "parse_worker"} <= packages  # the check sees real packages
    assert set(facade["domains"]) == packages - NOT_DOMAINS
    assert packages >= NOT_DOMAINS, "a tooling name that no longer exists: drop it here"


def test_the_untrusted_worker_package_is_walled_off() -> None:
    [wall] = [c for c in _contracts() if c.get("source_modules") == ["ats.parse_worker"]]
    assert wall["type"] == "forbidden"
    assert wall.get("allow_indirect_imports", False) is False
    required = {
        "ats.intake",
        "ats.storage",
        "ats.scanning",
        "ats.audit",
        "ats.candidates",
        "ats.iam",
        "ats.channels",
        "ats.mail",
        "azure",
        "msal",
        "httpx",
    }
    assert required <= set(wall["forbidden_modules"])
    # Every other domain package is forbidden too, except what the worker needs: the jobs
    # machinery, the sandbox facade, its log formatter, and its own package.
    needed = {"jobs", "sandbox", "observability", "parse_worker", "parsing"}
    others = {f"ats.{p}" for p in _packages() - NOT_DOMAINS - needed}
    assert others <= set(wall["forbidden_modules"]), others - set(wall["forbidden_modules"])


def test_every_audience_facade_names_its_audience() -> None:
    # The facade contract lets anyone import a `<audience>_api.py`; only an `audience`
    # contract keeps the other audiences out of it (issue 22: jobs' three facades).
    audience = {c["facade"] for c in _contracts() if c["type"] == "audience"}
    facades = {
        ".".join(("ats", *p.relative_to(REPO / "shared" / "ats").with_suffix("").parts))
        for p in (REPO / "shared" / "ats").glob("*/*_api.py")
    }
    assert {"ats.jobs.ops_api", "ats.jobs.worker_api"} <= facades  # the check sees real files
    assert facades == audience


def test_audience_patterns_match_whole_segments() -> None:
    from ats.devtools.importlinter_facade import _matches

    assert _matches("ats.intake.management.commands.status", "ats.*.management.commands")
    assert not _matches("ats.intake.services", "ats.*.management.commands")
    assert _matches("ats.web.ops", "ats.web")
    assert _matches("ats.web", "ats.web")
    assert not _matches("ats.webhooks", "ats.web")
