"""Every overlay renders, every object validates against the Kubernetes 1.32 schema (strict),
the default-deny policy is in place before anything runs, and every reference resolves."""

from __future__ import annotations

from typing import Any

import kubernetes_validate
import pytest

from tests.deploy.helpers import (
    CUSTOM_KINDS,
    EXTERNAL_SECRETS,
    K8S_VERSION,
    NAMESPACE,
    REPO,
    SCALED_EXTERNAL_SECRETS,
    name,
    of_kind,
    pod_template,
    referenced_config,
    validate_custom_resource,
    workloads,
)


def test_every_object_validates_strictly(docs: list[dict[str, Any]]) -> None:
    failures = []
    for obj in docs:
        if obj["kind"] in CUSTOM_KINDS:
            assert obj["apiVersion"] == CUSTOM_KINDS[obj["kind"]], obj["apiVersion"]
            failures += [f"{obj['kind']}/{name(obj)}: {e}" for e in validate_custom_resource(obj)]
            continue
        try:
            kubernetes_validate.validate(obj, K8S_VERSION, strict=True)
        except kubernetes_validate.ValidationError as exc:
            failures.append(f"{obj['kind']}/{name(obj)}: {exc.message} at {list(exc.absolute_path)}")
        except kubernetes_validate.SchemaNotFoundError as exc:
            failures.append(f"{obj['kind']}/{name(obj)}: {exc.message}")
    assert not failures, "\n".join(failures)


def test_enum_fields_the_schema_does_not_check(docs: list[dict[str, Any]]) -> None:
    """kubernetes-validate's strict mode catches unknown fields, not bad enum values."""
    problems = []
    for policy in of_kind(docs, "NetworkPolicy"):
        spec = policy["spec"]
        if not set(spec.get("policyTypes", [])) <= {"Ingress", "Egress"}:
            problems.append(f"{name(policy)}: policyTypes {spec['policyTypes']}")
        for rule in [*(spec.get("ingress") or []), *(spec.get("egress") or [])]:
            for port in rule.get("ports") or []:
                if port.get("protocol", "TCP") not in {"TCP", "UDP", "SCTP"}:
                    problems.append(f"{name(policy)}: protocol {port['protocol']}")
    for obj, template in workloads(docs):
        spec = template["spec"]
        profile = (spec.get("securityContext") or {}).get("seccompProfile") or {}
        if profile.get("type") not in {"RuntimeDefault", "Localhost"}:
            problems.append(f"{name(obj)}: seccompProfile type {profile.get('type')!r}")
        if obj["kind"] == "Job" and spec.get("restartPolicy") not in {"Never", "OnFailure"}:
            problems.append(f"{name(obj)}: restartPolicy {spec.get('restartPolicy')!r}")
    assert not problems, "\n".join(problems)


def test_everything_lives_in_the_ats_namespace(docs: list[dict[str, Any]]) -> None:
    namespaces = of_kind(docs, "Namespace")
    assert [name(n) for n in namespaces] == [NAMESPACE]
    # Pod Security Admission "restricted" rejects root, capabilities, privilege escalation.
    assert namespaces[0]["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"
    stray = [
        f"{d['kind']}/{name(d)}"
        for d in docs
        if d["kind"] != "Namespace" and d["metadata"].get("namespace") != NAMESPACE
    ]
    assert not stray, f"objects outside namespace {NAMESPACE} escape its default deny: {stray}"


def _is_default_deny(policy: dict[str, Any]) -> bool:
    spec = policy["spec"]
    selector = spec.get("podSelector")
    return (
        selector is not None
        and not selector.get("matchLabels")
        and not selector.get("matchExpressions")
        and {"Ingress", "Egress"} <= set(spec.get("policyTypes", []))
        and not spec.get("ingress")
        and not spec.get("egress")
    )


def test_default_deny_exists_and_is_applied_first(docs: list[dict[str, Any]]) -> None:
    policies = of_kind(docs, "NetworkPolicy")
    denies = [p for p in policies if _is_default_deny(p)]
    assert denies, "no NetworkPolicy with an empty podSelector denying both Ingress and Egress"
    # Output order is apply order: namespace, then the deny, then the other policies, and
    # every policy before anything that runs a pod.
    kinds = [d["kind"] for d in docs]
    assert kinds[0] == "Namespace"
    assert _is_default_deny(docs[1]), f"second object is {docs[1]['kind']}/{name(docs[1])}, not the default deny"
    last_policy = max(i for i, d in enumerate(docs) if d["kind"] == "NetworkPolicy")
    first_pod = min(i for i, d in enumerate(docs) if pod_template(d) is not None)
    assert last_policy < first_pod, "a workload is applied before every NetworkPolicy exists"


def test_every_referenced_configmap_and_secret_is_accounted_for(overlay: str, docs: list[dict[str, Any]]) -> None:
    config_maps = {name(d) for d in of_kind(docs, "ConfigMap")}
    secrets = {name(d) for d in of_kind(docs, "Secret")}
    problems = []
    for obj, template in workloads(docs):
        needed_cms, needed_secrets = referenced_config(template["spec"])
        for cm in sorted(needed_cms - config_maps):
            problems.append(f"{obj['kind']}/{name(obj)} needs ConfigMap {cm}, which the overlay does not define")
        for secret in sorted(needed_secrets - secrets):
            if overlay in {"production", "scaled"} and secret in EXTERNAL_SECRETS | SCALED_EXTERNAL_SECRETS:
                continue  # provisioned out of band, see the next test
            problems.append(f"{obj['kind']}/{name(obj)} needs Secret {secret}, which the overlay does not define")
    assert not problems, "\n".join(problems)


def test_production_defines_no_secrets_and_documents_the_ones_it_needs(
    rendered: dict[str, list[dict[str, Any]]],
) -> None:
    docs = rendered["production"]
    assert not of_kind(docs, "Secret"), "production must not carry Secret values"
    assert not of_kind(rendered["scaled"], "Secret"), "the scaled production overlay must not carry Secret values"
    needed: set[str] = set()
    for _, template in workloads(docs):
        needed |= referenced_config(template["spec"])[1]
    assert needed == EXTERNAL_SECRETS
    scaled: set[str] = set()
    for _, template in workloads(rendered["scaled"]):
        scaled |= referenced_config(template["spec"])[1]
    for auth in of_kind(rendered["scaled"], "TriggerAuthentication"):
        scaled |= {ref["name"] for ref in auth["spec"].get("secretTargetRef", [])}
    assert scaled == EXTERNAL_SECRETS | SCALED_EXTERNAL_SECRETS
    guide = (REPO / "docs" / "deploy.md").read_text()
    for secret in sorted(scaled):
        assert f"`{secret}`" in guide, f"docs/deploy.md does not say how to provision Secret {secret}"


@pytest.mark.parametrize("kind_name", [("Job", "migrate")])
def test_migrations_run_as_a_one_shot_job(docs: list[dict[str, Any]], kind_name: tuple[str, str]) -> None:
    kind, job_name = kind_name
    job = next(d for d in of_kind(docs, kind) if name(d) == job_name)
    spec = job["spec"]["template"]["spec"]
    assert spec["restartPolicy"] == "Never"
    main = spec["containers"][0]
    assert [*main.get("command", []), *main.get("args", [])][-2:] == ["ats", "migrate"]
