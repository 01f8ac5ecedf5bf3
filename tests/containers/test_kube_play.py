"""`podman kube play` of worker-untrusted's pod spec as `kubectl kustomize k8s/overlays/dev`
renders it, with the locally built image, joined to the live compose stack's untrusted
network so the worker really connects to Postgres as `ats_parse`.

What kube play honours is checked on the running container (runAsUser, readOnlyRoot
filesystem, capability drop, allowPrivilegeEscalation, memory limit). What it ignores is
replaced, and said so: `securityContext.seccompProfile` (-> the pod annotation podman
reads, with --seccomp-profile-root at the same policy directory), Secret/ConfigMap
references (-> literal dev values), NetworkPolicy (covered by tests/deploy statically and by
the compose smoke's live connect checks).
"""

from __future__ import annotations

import copy
import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from ats.devtools.compose_stack import podman
from tests.deploy.helpers import POLICY_DIR, REPO

# Values of the references kube play cannot resolve, from compose.yaml's dev placeholders.
LITERALS = {
    "ATS_LOG_LEVEL": "INFO",
    "DATABASE_URL": "postgresql://ats_parse:ats-parse-dev-only@postgres:5432/ats",
    "ATS_SECRET_KEY": "dev-only-untrusted-worker-key-unrelated-to-web",
}
POD = "ats-kube-worker-untrusted"


def _rendered_deployment() -> dict[str, Any]:
    out = subprocess.run(
        ["kubectl", "kustomize", str(REPO / "k8s" / "overlays" / "dev")],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    for doc in yaml.safe_load_all(out):
        if doc and doc["kind"] == "Deployment" and doc["metadata"]["name"] == "worker-untrusted":
            return dict(doc)
    raise AssertionError("no worker-untrusted Deployment rendered")


def _pod_for_kube_play(deployment: dict[str, Any], postgres_address: str) -> dict[str, Any]:
    template = copy.deepcopy(deployment["spec"]["template"])
    spec = template["spec"]
    profile = spec["securityContext"].pop("seccompProfile")
    assert profile == {"type": "Localhost", "localhostProfile": "ats/seccomp-container.json"}
    annotations = template["metadata"].setdefault("annotations", {})
    # The same file; podman resolves localhost/<name> under --seccomp-profile-root.
    annotations["seccomp.security.alpha.kubernetes.io/pod"] = "localhost/seccomp-container.json"
    (container,) = spec["containers"]
    container["image"] = "localhost/ats-worker-untrusted:dev"
    env = []
    for item in container["env"]:
        if "valueFrom" in item:
            if item["valueFrom"].get("configMapKeyRef", {}).get("optional"):
                continue
            item = {"name": item["name"], "value": LITERALS[item["name"]]}
        env.append(item)
    container["env"] = [
        e if e["name"] != "PGHOSTADDR" else {"name": "PGHOSTADDR", "value": postgres_address} for e in env
    ]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": POD, **template["metadata"]}, "spec": spec}


@pytest.fixture(scope="module")
def kube_pod(stack: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, Any]]]:
    deployment = _rendered_deployment()
    networks = json.loads(podman("inspect", "--type", "container", stack.container("worker-untrusted")).stdout)[0]
    network = next(n for n in networks["NetworkSettings"]["Networks"] if n.endswith("_untrusted"))
    pod = _pod_for_kube_play(deployment, "10.213.13.10")
    path = Path(tmp_path_factory.mktemp("kube")) / "worker-untrusted.yaml"
    path.write_text(yaml.safe_dump(pod))
    podman("kube", "down", str(path), check=False)
    # The pod takes over queue parse from the compose worker, whose connections would
    # otherwise count against ats_parse's CONNECTION LIMIT (16) together with the pod's.
    compose_worker = stack.container("worker-untrusted")
    podman("stop", "-t", "100", compose_worker, timeout=200)
    podman("kube", "play", "--network", network, "--seccomp-profile-root", str(POLICY_DIR), str(path), timeout=300)
    container = f"{POD}-worker"
    try:
        yield container, pod
    finally:
        podman("kube", "down", str(path), check=False, timeout=200)
        podman("start", compose_worker, check=False)


def _wait_healthy(container: str, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        proc = podman("exec", container, "ats", "healthcheck", "--deployable", "untrusted", check=False)
        if proc.returncode == 0:
            return
        last = proc.stderr + proc.stdout
        time.sleep(2)
    logs = podman("logs", "--tail", "30", container, check=False)
    sessions = podman(
        "exec",
        "ats_postgres_1",
        "psql",
        "-U",
        "ats",
        "-d",
        "ats",
        "-tAc",
        "SELECT usename, application_name, state FROM pg_stat_activity WHERE usename = 'ats_parse'",
        check=False,
    )
    raise AssertionError(
        f"kube-played worker never healthy: {last}\n{logs.stdout}{logs.stderr}\nats_parse sessions:\n{sessions.stdout}"
    )


def test_kube_played_worker_runs_and_reaches_postgres(kube_pod: tuple[str, dict[str, Any]]) -> None:
    container, _ = kube_pod
    _wait_healthy(container)


def test_kube_play_honours_the_pod_security_context(kube_pod: tuple[str, dict[str, Any]]) -> None:
    container, pod = kube_pod
    data = json.loads(podman("inspect", "--type", "container", container).stdout)[0]
    assert data["Config"]["User"].split(":")[0] == "65532"
    assert data["HostConfig"]["ReadonlyRootfs"] is True
    limit = pod["spec"]["containers"][0]["resources"]["limits"]["memory"]
    assert limit == "3200Mi" and data["HostConfig"]["Memory"] == 3200 * 2**20
    script = (
        "import ctypes, errno, json\n"
        "s = dict(l.split(':', 1) for l in open('/proc/1/status') if ':' in l)\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "rc = libc.syscall(135, ctypes.c_ulong(0))\n"
        "try:\n"
        "    open('/opt/ats/x', 'w'); ro = 'written'\n"
        "except OSError as e:\n"
        "    ro = errno.errorcode[e.errno]\n"
        "print(json.dumps({k: s[k].strip() for k in ('Uid', 'CapEff', 'NoNewPrivs', 'Seccomp')}"
        " | {'personality': [rc, errno.errorcode.get(ctypes.get_errno(), '')], 'rootfs': ro}))\n"
    )
    facts = json.loads(podman("exec", container, "python", "-c", script).stdout)
    assert facts["Uid"].split()[0] == "65532"
    assert facts["CapEff"] == "0000000000000000"
    assert facts["NoNewPrivs"] == "1"
    assert facts["rootfs"] == "EROFS"
    # seccompProfile is ignored by kube play; the annotation route applies the same file.
    assert facts["Seccomp"] == "2"
    assert facts["personality"] == [-1, "EPERM"], facts
