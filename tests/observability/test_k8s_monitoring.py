"""The `monitoring` kustomize component: its custom resources validate against the CRD
schemas in the repo, the monitors point at the metrics ports, only the monitoring
namespace reaches those ports, worker-untrusted exposes none, and the Grafana dashboard
queries only metrics the code exports."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

from tests.observability.docs import documented_metrics

REPO = Path(__file__).resolve().parents[2]
COMPONENT = REPO / "k8s" / "components" / "monitoring"
K8S_VERSION = "1.32.0"
METRICS_PORT = 9100


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.fail("kubectl (with kustomize) is required")
    overlay = tmp_path_factory.mktemp("overlay")
    (overlay / "kustomization.yaml").write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kustomize.config.k8s.io/v1beta1",
                "kind": "Kustomization",
                # kustomize refuses absolute roots
                "resources": [os.path.relpath(REPO / "k8s" / "overlays" / "production", overlay)],
                "components": [os.path.relpath(COMPONENT, overlay)],
            }
        )
    )
    proc = subprocess.run(
        [kubectl, "kustomize", "--load-restrictor", "LoadRestrictionsNone", str(overlay)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return [d for d in yaml.safe_load_all(proc.stdout) if d]


def _crd_schemas() -> dict[tuple[str, str], dict[str, Any]]:
    out = {}
    for path in sorted((COMPONENT / "schemas").glob("*.yaml")):
        for crd in yaml.safe_load_all(path.read_text()):
            if not crd or crd.get("kind") != "CustomResourceDefinition":
                continue
            for version in crd["spec"]["versions"]:
                api = f"{crd['spec']['group']}/{version['name']}"
                out[(api, crd["spec"]["names"]["kind"])] = version["schema"]["openAPIV3Schema"]
    return out


def test_every_object_validates(rendered: list[dict[str, Any]]) -> None:
    schemas = _crd_schemas()
    failures, custom = [], 0
    for obj in rendered:
        key = (obj["apiVersion"], obj["kind"])
        where = f"{obj['kind']}/{obj['metadata']['name']}"
        if obj["apiVersion"].startswith("monitoring.coreos.com/"):
            assert key in schemas, f"{where}: no CRD schema in {COMPONENT / 'schemas'}"
            custom += 1
            for err in jsonschema.Draft7Validator(schemas[key]).iter_errors(obj):
                failures.append(f"{where}: {err.message} at {list(err.absolute_path)}")
            continue
        try:
            kubernetes_validate.validate(obj, K8S_VERSION, strict=True)
        except kubernetes_validate.ValidationError as exc:
            failures.append(f"{where}: {exc.message}")
    assert not failures, "\n".join(failures)
    assert custom == 3  # two PodMonitors, one PrometheusRule


def test_schema_catches_a_misspelt_field() -> None:
    schema = _crd_schemas()[("monitoring.coreos.com/v1", "PodMonitor")]
    bad = {"apiVersion": "monitoring.coreos.com/v1", "kind": "PodMonitor", "metadata": {"name": "x"}}
    bad["spec"] = {"selector": {}, "podMetricsEndpoints": [{"port": "metrics", "intervall": "30s"}]}
    assert list(jsonschema.Draft7Validator(schema).iter_errors(bad))


def _metrics_ports(template: dict[str, Any]) -> set[str]:
    return {p.get("name", "") for c in template["spec"]["containers"] for p in c.get("ports", []) if p.get("name")}


def test_monitors_scrape_the_metrics_port_of_web_and_worker_default_only(rendered: list[dict[str, Any]]) -> None:
    deployments = {d["metadata"]["name"]: d for d in rendered if d["kind"] == "Deployment"}
    monitored = set()
    for mon in (d for d in rendered if d["kind"] == "PodMonitor"):
        labels = mon["spec"]["selector"]["matchLabels"]
        targets = [
            n for n, d in deployments.items() if labels.items() <= d["spec"]["template"]["metadata"]["labels"].items()
        ]
        assert len(targets) == 1, (mon["metadata"]["name"], targets)
        for ep in mon["spec"]["podMetricsEndpoints"]:
            assert ep["port"] in _metrics_ports(deployments[targets[0]]["spec"]["template"])
        monitored.add(targets[0])
    assert monitored == {"web", "worker-default"}
    untrusted = deployments["worker-untrusted"]["spec"]["template"]
    assert "metrics" not in _metrics_ports(untrusted)
    env = {e["name"] for c in untrusted["spec"]["containers"] for e in c.get("env", [])}
    assert "ATS_METRICS_BIND" not in env


def test_metrics_port_is_open_to_the_monitoring_namespace_only(rendered: list[dict[str, Any]]) -> None:
    policies = [d for d in rendered if d["kind"] == "NetworkPolicy"]
    for app in ("web", "worker-default"):
        rules = [
            r
            for p in policies
            if p["spec"].get("podSelector", {}).get("matchLabels", {}).get("app.kubernetes.io/name") == app
            for r in p["spec"].get("ingress") or []
        ]
        to_metrics = [r for r in rules if any(port.get("port") == METRICS_PORT for port in r.get("ports", []))]
        assert to_metrics, f"{app}: metrics port not reachable at all"
        for rule in to_metrics:
            assert rule["from"] == [
                {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}
            ], rule
        for rule in rules:
            peers = rule.get("from") or []
            if any("monitoring" in json.dumps(peer) for peer in peers):
                assert all(port.get("port") == METRICS_PORT for port in rule.get("ports", [])), rule


def test_prometheus_rule_is_the_rules_file(rendered: list[dict[str, Any]]) -> None:
    (rule,) = [d for d in rendered if d["kind"] == "PrometheusRule"]
    source = yaml.safe_load((COMPONENT / "prometheus-rule.yaml").read_text())
    assert rule["spec"] == source["spec"]


def _dashboard_exprs() -> list[str]:
    dash = json.loads((COMPONENT / "dashboards" / "ats-queue.json").read_text())
    return [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]


def test_dashboard_queries_name_exported_metrics(rendered: list[dict[str, Any]]) -> None:
    exported = {m.name for m in documented_metrics()}
    rules = yaml.safe_load((COMPONENT / "prometheus-rule.yaml").read_text())["spec"]["groups"]
    recorded = {r["record"] for g in rules for r in g["rules"] if "record" in r}
    exprs = _dashboard_exprs()
    assert len(exprs) >= 20
    seen = set()
    for expr in exprs:
        names = re.findall(r"\b(ats_[a-z0-9_]+|ats:[a-z0-9_:]+)", expr)
        assert names, f"query names no ATS metric: {expr}"
        for n in names:
            base = re.sub(r"_(bucket|count|sum)$", "", n)
            assert n in exported or base in exported or n in recorded, f"{n} (in {expr!r}) is not exported"
            seen.add(base if base in exported else n)
    (cm,) = [d for d in rendered if d["kind"] == "ConfigMap" and d["metadata"]["name"].startswith("ats-grafana")]
    assert cm["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert json.loads(cm["data"]["ats-queue.json"])["uid"] == "ats-queue"
    # queues, failure rate, latency, sandbox, intake states, triggers
    for needed in (
        "ats_queue_oldest_pending_age_seconds",
        "ats:job_attempt_failure_ratio:rate15m",
        "ats_job_time_to_start_seconds",
        "ats_sandbox_reports_total",
        "ats_documents",
        "ats:job_attempts_ended:sum_rate5m",
    ):
        assert needed in seen, needed


def test_web_reaches_the_clusters_prometheus_for_the_consoles_alerts(rendered: list[dict[str, Any]]) -> None:
    """With the component, web's config names the cluster's Prometheus (ATS_PROMETHEUS_URL,
    read by /ops/alerts and the console's banner) and web alone may reach its port 9090 in
    the monitoring namespace; the base stays deny-all for every other pod."""
    configs = [d for d in rendered if d["kind"] == "ConfigMap" and name_of(d).startswith("ats-config")]
    urls = {(c.get("data") or {}).get("ATS_PROMETHEUS_URL") for c in configs}
    assert urls == {"http://prometheus-operated.monitoring.svc:9090"}
    web = next(d for d in rendered if d["kind"] == "Deployment" and name_of(d) == "web")
    sources = [
        ref["configMapRef"]["name"]
        for c in web["spec"]["template"]["spec"]["containers"]
        for ref in c.get("envFrom", [])
        if "configMapRef" in ref
    ]
    assert any(s.startswith("ats-config") for s in sources), sources
    reach_9090 = [
        d
        for d in rendered
        if d["kind"] == "NetworkPolicy"
        for rule in d["spec"].get("egress", [])
        if any(p.get("port") == 9090 for p in rule.get("ports", []))
    ]
    assert [name_of(d) for d in reach_9090] == ["egress-web-prometheus"]
    [policy] = reach_9090
    assert policy["spec"]["podSelector"]["matchLabels"] == {"app.kubernetes.io/name": "web"}
    [rule] = policy["spec"]["egress"]
    assert rule["to"] == [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}]
    kubernetes_validate.validate(policy, K8S_VERSION, strict=True)


def name_of(obj: dict[str, Any]) -> str:
    return str(obj["metadata"]["name"])
