"""Small, dependency-free readers for rendered Kubernetes objects (no cluster needed)."""

from __future__ import annotations

import ipaddress
import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
OVERLAYS = ("dev", "production", "scaled")
# kubectl 1.32 renders; validate against the same API version.
K8S_VERSION = "1.32.0"
NAMESPACE = "ats"
NAME_LABEL = "app.kubernetes.io/name"
POLICY_DIR = REPO / "services" / "worker-untrusted" / "policy"
SECCOMP_CONTAINER = POLICY_DIR / "seccomp-container.json"
SECCOMP_CHILD_NAME = "seccomp-child.json"
WORKERS = ("worker-default", "worker-untrusted")
ADR_GRACE_S = 90
# Secrets production provisions out of band (docs/deploy.md); the overlay never defines them.
EXTERNAL_SECRETS = {"ats-app", "ats-untrusted", "ats-redis"}
# ...and those the scaled overlay adds (PgBouncer's userlist, KEDA's read-only connection).
SCALED_EXTERNAL_SECRETS = {"pgbouncer-auth", "ats-keda"}

# Custom resources (kind -> apiVersion) validated against the offline schemas in k8s/crds/.
CUSTOM_KINDS = {"ScaledObject": "keda.sh/v1alpha1", "TriggerAuthentication": "keda.sh/v1alpha1"}
CRD_SCHEMAS = REPO / "k8s" / "crds" / "keda.sh_v1alpha1.yaml"

POD_TEMPLATE_KINDS = {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"}


def render(overlay: str) -> list[dict[str, Any]]:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.fail("kubectl (with kustomize) is required to render k8s/overlays; it is not on PATH")
    proc = subprocess.run(
        [kubectl, "kustomize", str(REPO / "k8s" / "overlays" / overlay)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, f"kubectl kustomize k8s/overlays/{overlay} failed:\n{proc.stderr}"
    return [doc for doc in yaml.safe_load_all(proc.stdout) if doc]


def name(obj: dict[str, Any]) -> str:
    return str(obj["metadata"]["name"])


def of_kind(docs: list[dict[str, Any]], *kinds: str) -> list[dict[str, Any]]:
    return [d for d in docs if d["kind"] in kinds]


def one(docs: list[dict[str, Any]], kind: str, obj_name: str) -> dict[str, Any]:
    found = [d for d in docs if d["kind"] == kind and name(d) == obj_name]
    assert len(found) == 1, f"expected exactly one {kind}/{obj_name}, found {len(found)}"
    return found[0]


def pod_template(obj: dict[str, Any]) -> dict[str, Any] | None:
    if obj["kind"] in POD_TEMPLATE_KINDS:
        return obj["spec"]["template"]
    if obj["kind"] == "CronJob":
        return obj["spec"]["jobTemplate"]["spec"]["template"]
    return None


def workloads(docs: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(object, pod template) for everything that runs pods."""
    for obj in docs:
        template = pod_template(obj)
        if template is not None:
            yield obj, template


def workload(docs: list[dict[str, Any]], obj_name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    for obj, template in workloads(docs):
        if name(obj) == obj_name:
            return obj, template
    raise AssertionError(f"no workload named {obj_name}")


def all_containers(pod_spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [*pod_spec.get("initContainers", []), *pod_spec.get("containers", [])]


def container(pod_spec: dict[str, Any], container_name: str) -> dict[str, Any]:
    for c in all_containers(pod_spec):
        if c["name"] == container_name:
            return c
    raise AssertionError(f"no container {container_name}")


def effective(pod_spec: dict[str, Any], c: dict[str, Any], field: str) -> Any:
    """A securityContext field as the kubelet sees it: the container's, else the pod's."""
    own = (c.get("securityContext") or {}).get(field)
    return own if own is not None else (pod_spec.get("securityContext") or {}).get(field)


def command_line(c: dict[str, Any]) -> list[str]:
    return [*c.get("command", []), *c.get("args", [])]


def env_value(c: dict[str, Any], var: str) -> dict[str, Any] | None:
    for item in c.get("env", []):
        if item["name"] == var:
            return item
    return None


def selector_matches(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    """Kubernetes label-selector semantics (matchLabels AND every matchExpression)."""
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expr in selector.get("matchExpressions") or []:
        key, op, values = expr["key"], expr["operator"], expr.get("values") or []
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and labels.get(key) in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def policies_for(docs: list[dict[str, Any]], labels: dict[str, str], policy_type: str) -> list[dict[str, Any]]:
    """NetworkPolicies of this namespace that select a pod with `labels` for `policy_type`."""
    return [
        p
        for p in of_kind(docs, "NetworkPolicy")
        if policy_type in p["spec"].get("policyTypes", [])
        and selector_matches(p["spec"].get("podSelector") or {}, labels)
    ]


def port_set(rule: dict[str, Any]) -> set[tuple[str, int | str]]:
    return {(p.get("protocol", "TCP"), p.get("port")) for p in rule.get("ports") or []}


def referenced_config(pod_spec: dict[str, Any]) -> tuple[set[str], set[str]]:
    """(ConfigMap names, Secret names) a pod needs to start (optional references excluded)."""
    config_maps: set[str] = set()
    secrets: set[str] = set()
    for c in all_containers(pod_spec):
        for source in c.get("envFrom", []):
            if "configMapRef" in source and not source["configMapRef"].get("optional"):
                config_maps.add(source["configMapRef"]["name"])
            if "secretRef" in source and not source["secretRef"].get("optional"):
                secrets.add(source["secretRef"]["name"])
        for item in c.get("env", []):
            ref = item.get("valueFrom") or {}
            if "configMapKeyRef" in ref and not ref["configMapKeyRef"].get("optional"):
                config_maps.add(ref["configMapKeyRef"]["name"])
            if "secretKeyRef" in ref and not ref["secretKeyRef"].get("optional"):
                secrets.add(ref["secretKeyRef"]["name"])
    for volume in pod_spec.get("volumes", []):
        if "configMap" in volume and not volume["configMap"].get("optional"):
            config_maps.add(volume["configMap"]["name"])
        if "secret" in volume and not volume["secret"].get("optional"):
            secrets.add(volume["secret"]["secretName"])
    return config_maps, secrets


_QUANTITY = re.compile(r"^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T|)$")
_FACTORS = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def quantity_bytes(value: str | int) -> float:
    """A Kubernetes memory quantity ("2560Mi", "1Gi", "512M") in bytes."""
    match = _QUANTITY.match(str(value))
    assert match, f"unparsed memory quantity {value!r}"
    return float(match.group(1)) * _FACTORS[match.group(2)]


def compose_bytes(value: str | int) -> float:
    """A compose byte value ("2560m", "2g", "1610612736") in bytes."""
    match = re.match(r"^(\d+(?:\.\d+)?)\s*([bkmg]?)b?$", str(value).strip().lower())
    assert match, f"unparsed compose byte value {value!r}"
    return float(match.group(1)) * {"": 1, "b": 1, "k": 2**10, "m": 2**20, "g": 2**30}[match.group(2)]


def compose_seconds(value: str | int) -> float:
    """A compose duration ("100s", "1m40s", "90") in seconds."""
    text = str(value).strip()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    parts = re.findall(r"(\d+(?:\.\d+)?)(h|ms|m|s|us)", text)
    assert parts and "".join(n + u for n, u in parts) == text, f"unparsed duration {value!r}"
    scale = {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6}
    return sum(float(n) * scale[u] for n, u in parts)


def carries_graceful_timeout(argv: list[str], seconds: int = ADR_GRACE_S) -> bool:
    """True if argv passes `--shutdown-graceful-timeout <seconds>` (either spelling)."""
    flag = "--shutdown-graceful-timeout"
    for i, arg in enumerate(argv):
        if arg == f"{flag}={seconds}":
            return True
        if arg == flag and i + 1 < len(argv) and argv[i + 1] == str(seconds):
            return True
    return False


def is_ipv4(text: str) -> bool:
    try:
        ipaddress.IPv4Address(text)
    except ValueError:
        return False
    return True


def load_seccomp_profile() -> dict[str, Any]:
    assert SECCOMP_CONTAINER.is_file(), (
        f"{SECCOMP_CONTAINER.relative_to(REPO)} does not exist: Kubernetes and compose reference it "
        "as the worker-untrusted container profile, so nothing can start that pod without it"
    )
    data = json.loads(SECCOMP_CONTAINER.read_text())
    assert isinstance(data, dict), "the seccomp profile must be a JSON object"
    return data


def _strict(schema: Any) -> Any:
    """Kubernetes structural-schema semantics, strictly: an object that lists properties
    admits no others unless it says x-kubernetes-preserve-unknown-fields."""
    if isinstance(schema, dict):
        out = {k: _strict(v) for k, v in schema.items() if k != "x-kubernetes-preserve-unknown-fields"}
        if (
            schema.get("type") == "object"
            and "properties" in schema
            and not schema.get("x-kubernetes-preserve-unknown-fields")
        ):
            out.setdefault("additionalProperties", False)
        return out
    if isinstance(schema, list):
        return [_strict(v) for v in schema]
    return schema


def validate_custom_resource(obj: dict[str, Any]) -> list[str]:
    """Errors of a custom resource against its vendored schema ([] when valid)."""
    import jsonschema

    schemas = yaml.safe_load(CRD_SCHEMAS.read_text())
    schema = schemas.get(obj["kind"])
    if schema is None:
        return [f"no vendored schema for {obj['kind']}"]
    validator = jsonschema.Draft7Validator(_strict(schema))
    return [f"{e.message} at {list(e.absolute_path)}" for e in validator.iter_errors(obj)]


def untrusted_memory_bound() -> int:
    """Bytes worker-untrusted may use at its concurrency (policy/limits.toml [memory]): the
    worker, one zygote per concurrent parse, and per zygote one child that can map at most
    RLIMIT_AS = zygote mapped + address_space_budget_mb (copy-on-write pages included)."""
    import tomllib

    from ats.sandbox.api import policy_dir

    limits = tomllib.loads((policy_dir() / "limits.toml").read_text())
    memory, budget = limits["memory"], limits["child"]["address_space_budget_mb"]
    per_parse = memory["zygote_rss_mb"] + memory["zygote_mapped_mb"] + budget
    return int((memory["worker_mb"] + memory["concurrency"] * per_parse) * 2**20)
