"""Hardening of every pod and container, worker-untrusted's isolation (network, seccomp,
credentials, memory), and the shutdown grace the ADR requires of the workers."""

from __future__ import annotations

import base64
import ipaddress
from typing import Any

from tests.deploy.helpers import (
    ADR_GRACE_S,
    NAME_LABEL,
    SECCOMP_CHILD_NAME,
    SECCOMP_CONTAINER,
    WORKERS,
    all_containers,
    carries_graceful_timeout,
    command_line,
    container,
    effective,
    env_value,
    is_ipv4,
    load_seccomp_profile,
    name,
    one,
    policies_for,
    port_set,
    quantity_bytes,
    selector_matches,
    untrusted_memory_bound,
    workload,
    workloads,
)

# --- every pod, every container ---------------------------------------------------------


def test_every_container_is_hardened(docs: list[dict[str, Any]]) -> None:
    problems = []
    for obj, template in workloads(docs):
        spec = template["spec"]
        for c in all_containers(spec):
            where = f"{obj['kind']}/{name(obj)}:{c['name']}"
            sc = c.get("securityContext") or {}
            if effective(spec, c, "runAsNonRoot") is not True:
                problems.append(f"{where}: runAsNonRoot is not true")
            if effective(spec, c, "runAsUser") == 0:
                problems.append(f"{where}: runAsUser 0")
            if sc.get("allowPrivilegeEscalation") is not False:
                problems.append(f"{where}: allowPrivilegeEscalation is not false")
            if sc.get("privileged"):
                problems.append(f"{where}: privileged")
            if "ALL" not in ((sc.get("capabilities") or {}).get("drop") or []):
                problems.append(f"{where}: capabilities do not drop ALL")
            if (sc.get("capabilities") or {}).get("add"):
                problems.append(f"{where}: adds capabilities")
            if sc.get("readOnlyRootFilesystem") is not True:
                problems.append(f"{where}: root filesystem is writable")
            limits = (c.get("resources") or {}).get("limits") or {}
            requests = (c.get("resources") or {}).get("requests") or {}
            for resource in ("cpu", "memory"):
                if resource not in limits:
                    problems.append(f"{where}: no {resource} limit")
                if resource not in requests:
                    problems.append(f"{where}: no {resource} request")
    assert not problems, "\n".join(problems)


def test_every_pod_is_hardened(docs: list[dict[str, Any]]) -> None:
    problems = []
    for obj, template in workloads(docs):
        spec = template["spec"]
        where = f"{obj['kind']}/{name(obj)}"
        if spec.get("automountServiceAccountToken") is not False:
            problems.append(f"{where}: service account token is mounted")
        for host_ns in ("hostNetwork", "hostPID", "hostIPC"):
            if spec.get(host_ns):
                problems.append(f"{where}: {host_ns}")
        if any("hostPath" in v for v in spec.get("volumes", [])):
            problems.append(f"{where}: hostPath volume")
        for c in all_containers(spec):
            profile = effective(spec, c, "seccompProfile") or {}
            expected = "Localhost" if name(obj) == "worker-untrusted" else "RuntimeDefault"
            if profile.get("type") != expected:
                problems.append(f"{where}:{c['name']}: seccompProfile {profile.get('type')!r}, want {expected}")
    assert not problems, "\n".join(problems)


def test_every_long_running_container_has_probes(docs: list[dict[str, Any]]) -> None:
    # freshclam serves nothing; a failed signature update must not restart it.
    unprobed_by_design = {("clamd", "freshclam")}
    problems = []
    for obj, template in workloads(docs):
        if obj["kind"] == "Job":
            continue
        for c in template["spec"]["containers"]:
            if (name(obj), c["name"]) in unprobed_by_design:
                continue
            for probe in ("livenessProbe", "readinessProbe"):
                if probe not in c:
                    problems.append(f"{obj['kind']}/{name(obj)}:{c['name']}: no {probe}")
    assert not problems, "\n".join(problems)


def test_web_probes_and_workers_healthcheck(docs: list[dict[str, Any]]) -> None:
    _, web = workload(docs, "web")
    c = container(web["spec"], "web")
    assert c["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert c["readinessProbe"]["httpGet"]["path"] == "/readyz"
    for worker in WORKERS:
        _, template = workload(docs, worker)
        c = template["spec"]["containers"][0]
        deployable = worker.removeprefix("worker-")
        for probe in ("livenessProbe", "readinessProbe"):
            assert c[probe]["exec"]["command"] == ["ats", "healthcheck", "--deployable", deployable]


def test_web_probes_send_an_allowed_host(docs: list[dict[str, Any]]) -> None:
    """Django answers 400 to a Host outside ATS_ALLOWED_HOSTS - the kubelet's default is the pod IP."""
    _, web = workload(docs, "web")
    c = container(web["spec"], "web")
    config = next(d for d in docs if d["kind"] == "ConfigMap" and name(d).startswith("ats-config"))
    allowed = config["data"]["ATS_ALLOWED_HOSTS"].split(",")
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        headers = {h["name"].lower(): h["value"] for h in c[probe]["httpGet"].get("httpHeaders", [])}
        assert headers.get("host") in allowed, f"{probe} Host {headers.get('host')!r} not in {allowed}"


# --- shutdown grace (ADR 0004 §6) --------------------------------------------------------


def test_workers_get_the_adr_grace_period(docs: list[dict[str, Any]]) -> None:
    for worker in WORKERS:
        _, template = workload(docs, worker)
        spec = template["spec"]
        grace = spec.get("terminationGracePeriodSeconds", 30)
        assert grace >= ADR_GRACE_S + 10, f"{worker}: grace {grace}s leaves no margin over the {ADR_GRACE_S}s shutdown"
        argv = command_line(spec["containers"][0])
        assert argv[:4] == ["ats", "worker", "--deployable", worker.removeprefix("worker-")], argv
        assert carries_graceful_timeout(argv), f"{worker}: command lacks --shutdown-graceful-timeout {ADR_GRACE_S}"


# --- worker-untrusted --------------------------------------------------------------------


def _untrusted(docs: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    _, template = workload(docs, "worker-untrusted")
    return template, container(template["spec"], "worker")


def test_worker_untrusted_uses_the_container_seccomp_profile(docs: list[dict[str, Any]]) -> None:
    template, c = _untrusted(docs)
    profile = effective(template["spec"], c, "seccompProfile")
    assert profile["type"] == "Localhost"
    path = profile["localhostProfile"]
    assert path.endswith("/" + SECCOMP_CONTAINER.name) or path == SECCOMP_CONTAINER.name, path
    assert SECCOMP_CHILD_NAME not in path, "the child profile is loaded in-process, never by the kubelet"
    assert SECCOMP_CONTAINER.is_file(), f"{SECCOMP_CONTAINER} is referenced but missing"


def test_the_container_seccomp_profile_denies_by_default() -> None:
    """Reads the profile another engineer writes: fails (never skips) until it is right."""
    profile = load_seccomp_profile()
    assert profile.get("defaultAction") in {
        "SCMP_ACT_ERRNO",
        "SCMP_ACT_KILL",
        "SCMP_ACT_KILL_PROCESS",
        "SCMP_ACT_KILL_THREAD",
    }, f"defaultAction {profile.get('defaultAction')!r} is not deny-by-default"
    assert isinstance(profile.get("syscalls"), list) and profile["syscalls"], (
        "no syscall rules: not a container profile"
    )
    # Anything that is not an errno/kill/trap action lets the call through.
    denying = {"SCMP_ACT_ERRNO", "SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD", "SCMP_ACT_TRAP"}
    allowed = {
        syscall
        for rule in profile["syscalls"]
        if rule.get("action") not in denying
        for syscall in [*rule.get("names", []), *([rule["name"]] if "name" in rule else [])]
    }
    for forbidden in ("ptrace", "mount", "bpf"):
        assert forbidden not in allowed, f"the container profile allows {forbidden}"


def test_worker_untrusted_egress_is_postgres_only(overlay: str, docs: list[dict[str, Any]]) -> None:
    template, c = _untrusted(docs)
    labels = template["metadata"]["labels"]
    rules = [rule for p in policies_for(docs, labels, "Egress") for rule in p["spec"].get("egress") or []]
    assert rules, "worker-untrusted cannot reach Postgres at all"
    postgres_address = env_value(c, "PGHOSTADDR")
    for rule in rules:
        ports = port_set(rule)
        assert ports, "an egress rule without ports opens every port"
        # No DNS (decision in docs/deploy.md) and, above all, no 443.
        assert ports == {("TCP", 5432)}, f"worker-untrusted may reach ports {sorted(ports, key=str)}"
        assert rule.get("to"), "an egress rule without `to` reaches every destination"
        for peer in rule["to"]:
            assert "namespaceSelector" not in peer, f"egress into other namespaces: {peer}"
            if "ipBlock" in peer:
                network = ipaddress.ip_network(peer["ipBlock"]["cidr"])
                assert network.num_addresses <= 16, f"Postgres egress to a wide block {network}"
                assert postgres_address and ipaddress.ip_address(postgres_address["value"]) in network
            else:
                _, postgres = workload(docs, "postgres")
                assert selector_matches(peer["podSelector"], postgres["metadata"]["labels"])
                others = [
                    name(o)
                    for o, t in workloads(docs)
                    if name(o) != "postgres" and selector_matches(peer["podSelector"], t["metadata"]["labels"])
                ]
                assert not others, f"Postgres egress selector also matches {others}"


def test_worker_untrusted_accepts_no_connections(docs: list[dict[str, Any]]) -> None:
    template, _ = _untrusted(docs)
    labels = template["metadata"]["labels"]
    rules = [rule for p in policies_for(docs, labels, "Ingress") for rule in p["spec"].get("ingress") or []]
    assert not rules, f"ingress to worker-untrusted is allowed: {rules}"


def test_worker_untrusted_reaches_postgres_without_dns(overlay: str, docs: list[dict[str, Any]]) -> None:
    template, c = _untrusted(docs)
    item = env_value(c, "PGHOSTADDR")
    assert item is not None and "value" in item, "PGHOSTADDR must be set: the pod has no DNS"
    if overlay == "dev":
        assert item["value"] == "$(POSTGRES_SERVICE_HOST)"
        assert template["spec"].get("enableServiceLinks", True) is True
        service = one(docs, "Service", "postgres")
        assert service["spec"].get("clusterIP") != "None", "headless Services get no *_SERVICE_HOST variable"
    else:
        address = item["value"]
        assert is_ipv4(address), f"PGHOSTADDR {address!r} is not an address"
        assert ipaddress.ip_address(address) not in ipaddress.ip_network("192.0.2.0/24"), "placeholder address"


def test_worker_untrusted_sees_only_its_own_credentials(overlay: str, docs: list[dict[str, Any]]) -> None:
    _, c = _untrusted(docs)
    assert not c.get("envFrom"), "envFrom would hand worker-untrusted every trusted setting"
    secrets = {
        item["valueFrom"]["secretKeyRef"]["name"]
        for item in c.get("env", [])
        if "secretKeyRef" in (item.get("valueFrom") or {})
    }
    assert secrets == {"ats-untrusted"}, secrets
    names = {item["name"] for item in c.get("env", [])}
    leaked = names & {"REDIS_URL", "ATS_AZURE_BLOB_CONNECTION_STRING", "ATS_GRAPH_CLIENT_SECRET"}
    assert not leaked, f"worker-untrusted gets {leaked}"
    if overlay == "dev":
        untrusted = {k: base64.b64decode(v).decode() for k, v in one(docs, "Secret", "ats-untrusted")["data"].items()}
        trusted = {k: base64.b64decode(v).decode() for k, v in one(docs, "Secret", "ats-app")["data"].items()}
        assert untrusted["DATABASE_URL"].startswith("postgresql://ats_parse:"), "not the least-privilege role"
        assert untrusted["ATS_SECRET_KEY"] != trusted["ATS_SECRET_KEY"]


def test_worker_untrusted_memory_fits_two_sandboxed_parses(docs: list[dict[str, Any]]) -> None:
    """The limit must exceed 2 x the per-child RLIMIT_AS budget + worker and zygote, so a
    greedy document fails inside the sandbox instead of getting the worker OOM-killed."""
    _, c = _untrusted(docs)
    limit = quantity_bytes(c["resources"]["limits"]["memory"])
    bound = untrusted_memory_bound()
    assert limit >= bound, f"memory limit {limit / 2**20:.0f} MiB < {bound / 2**20:.0f} MiB (limits.toml [memory])"


def test_only_postgres_pods_accept_worker_untrusted(docs: list[dict[str, Any]]) -> None:
    """No other pod lists worker-untrusted as an allowed client."""
    untrusted_labels = {NAME_LABEL: "worker-untrusted"}
    for policy in (d for d in docs if d["kind"] == "NetworkPolicy"):
        selected = policy["spec"].get("podSelector") or {}
        if selector_matches(selected, {NAME_LABEL: "postgres"}) and selected:
            continue
        for rule in policy["spec"].get("ingress") or []:
            for peer in rule.get("from") or []:
                if "podSelector" in peer and "namespaceSelector" not in peer:
                    assert not selector_matches(peer["podSelector"], untrusted_labels), (
                        f"NetworkPolicy {name(policy)} admits worker-untrusted"
                    )
