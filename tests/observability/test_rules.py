"""The alert rules, unit-tested with promtool: every alert fires in one case and stays
quiet in another (tests/observability/rules_test.yaml), and every metric a rule reads is
one the code exports (docs/observability.md's table)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.observability.docs import documented_metrics

REPO = Path(__file__).resolve().parents[2]
RULE_CR = REPO / "k8s" / "components" / "monitoring" / "prometheus-rule.yaml"
RULE_TESTS = Path(__file__).with_name("rules_test.yaml")


def promtool() -> str:
    path = shutil.which("promtool")
    if path is None:
        pytest.fail("promtool missing: scripts/bootstrap.sh installs Debian's prometheus package")
    return path


def rule_groups() -> dict[str, Any]:
    doc = yaml.safe_load(RULE_CR.read_text())
    assert doc["kind"] == "PrometheusRule"
    return doc["spec"]


def alerts() -> dict[str, dict[str, Any]]:
    return {r["alert"]: r for g in rule_groups()["groups"] for r in g["rules"] if "alert" in r}


def _render(template: str, labels: dict[str, str]) -> str:
    return re.sub(r"\{\{\s*\$labels\.(\w+)\s*\}\}", lambda m: labels.get(m.group(1), ""), template)


def _write_inputs(tmp_path: Path) -> Path:
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump(rule_groups(), sort_keys=False))
    tests = yaml.safe_load(RULE_TESTS.read_text())
    by_name = alerts()
    for group in tests["tests"]:
        for case in group.get("alert_rule_test", []):
            for exp in case.get("exp_alerts", []):
                exp["exp_annotations"] = {
                    k: _render(v, exp["exp_labels"]) for k, v in by_name[case["alertname"]]["annotations"].items()
                }
    out = tmp_path / "rules_test.yaml"
    out.write_text(yaml.safe_dump(tests, sort_keys=False))
    return out


def test_rules_file_is_valid() -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "rules.yaml"
        path.write_text(yaml.safe_dump(rule_groups(), sort_keys=False))
        res = subprocess.run([promtool(), "check", "rules", str(path)], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_promtool_rule_unit_tests_pass(tmp_path: Path) -> None:
    res = subprocess.run([promtool(), "test", "rules", str(_write_inputs(tmp_path))], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_every_alert_has_a_firing_and_a_quiet_case() -> None:
    fired: set[str] = set()
    quiet: set[str] = set()
    for group in yaml.safe_load(RULE_TESTS.read_text())["tests"]:
        for case in group.get("alert_rule_test", []):
            (fired if case.get("exp_alerts") else quiet).add(case["alertname"])
    names = set(alerts())
    assert names - fired == set(), "alerts never shown firing"
    assert names - quiet == set(), "alerts never shown quiet"


def test_every_alert_has_a_runbook_section_and_is_documented() -> None:
    runbook = (REPO / "docs" / "runbook" / "alerts.md").read_text()
    anchors = {
        "#" + re.sub(r"[^a-z0-9 -]", "", h.lower()).strip().replace(" ", "-")
        for h in re.findall(r"^#+ (.+)$", runbook, re.M)
    }
    observability = (REPO / "docs" / "observability.md").read_text()
    for name, rule in alerts().items():
        url = rule["annotations"]["runbook_url"]
        assert url.startswith("docs/runbook/alerts.md#"), name
        assert url.removeprefix("docs/runbook/alerts.md") in anchors, f"{name}: no section {url}"
        assert f"`{name}`" in observability, f"{name} missing from docs/observability.md"


def test_rules_read_only_exported_metrics() -> None:
    exported = {m.name for m in documented_metrics()}
    recorded = {r["record"] for g in rule_groups()["groups"] for r in g["rules"] if "record" in r}
    for group in rule_groups()["groups"]:
        for rule in group["rules"]:
            for name in re.findall(r"\b(ats_[a-z0-9_]+|ats:[a-z0-9_:]+)", rule["expr"]):
                base = re.sub(r"_(bucket|count|sum)$", "", name)
                assert name in exported or base in exported or name in recorded, f"{name} is not exported"
