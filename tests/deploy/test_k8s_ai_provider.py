"""The AI provider is off unless configured: no overlay sets ATS_AI_BASE_URL or opens
egress to a provider; an overlay with the ai-provider component does both, for
worker-default only, and still validates strictly."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from tests.deploy.helpers import K8S_VERSION, REPO, name, render


@pytest.mark.parametrize("overlay", ["dev", "production"])
def test_shipped_overlays_leave_ai_disabled(overlay: str) -> None:
    docs = render(overlay)
    for cm in (d for d in docs if d["kind"] == "ConfigMap"):
        assert not (cm.get("data") or {}).get("ATS_AI_BASE_URL"), name(cm)
    assert "egress-ai-provider" not in {name(d) for d in docs if d["kind"] == "NetworkPolicy"}


def test_ai_provider_component_adds_config_and_worker_default_egress(tmp_path: Path) -> None:
    overlay = tmp_path / "with-ai"
    overlay.mkdir()
    (overlay / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: ats\n"
        f"resources:\n  - {os.path.relpath(REPO / 'k8s' / 'overlays' / 'production', overlay)}\n"
        f"components:\n  - {os.path.relpath(REPO / 'k8s' / 'components' / 'ai-provider', overlay)}\n"
    )
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.fail("kubectl (with kustomize) is required")
    proc = subprocess.run(
        [kubectl, "kustomize", "--load-restrictor=LoadRestrictionsNone", str(overlay)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    docs: list[dict[str, Any]] = [d for d in yaml.safe_load_all(proc.stdout) if d]
    [policy] = [d for d in docs if d["kind"] == "NetworkPolicy" and name(d) == "egress-ai-provider"]
    assert policy["spec"]["podSelector"]["matchLabels"] == {"app.kubernetes.io/name": "worker-default"}
    assert policy["spec"]["policyTypes"] == ["Egress"] and policy["spec"]["egress"][0]["ports"][0]["port"] == 8000
    configs = [d for d in docs if d["kind"] == "ConfigMap" and (d.get("data") or {}).get("ATS_AI_BASE_URL")]
    assert configs and all(name(c).startswith("ats-config") for c in configs)
    for obj in (policy, *configs):
        kubernetes_validate.validate(obj, K8S_VERSION, strict=True)
