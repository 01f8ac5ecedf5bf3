"""`just compose-smoke`: the compose stack from freshly built images, end to end.

Documents go in through the containerised web API, are scanned by worker-default's clamd,
parsed by worker-untrusted's sandbox; the untrusted container's isolation is checked from
inside the live container, against a control container where the same probe succeeds.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from ats.devtools.compose_stack import podman
from tests.containers.conftest import WebClient
from tests.containers.documents import EICAR, TEST_SIGNATURE, scanned_cv, text_cv
from tests.deploy.helpers import REPO

# Secrets worker-untrusted must never see (blob storage, mail/Graph, Redis, the app's DB role).
FORBIDDEN_ENV = ("ATS_AZURE_BLOB_CONNECTION_STRING", "ATS_GRAPH_CLIENT_SECRET", "ATS_GRAPH_CLIENT_ID", "REDIS_URL")

# Runs inside a container as its own uid: reports what the kernel says about the processes.
PROBE = r"""
import ctypes, errno, json, os, socket, sys
targets = json.loads(sys.argv[1])
def status(pid):
    d = {}
    for line in open(f"/proc/{pid}/status"):
        k, _, v = line.partition(":")
        d[k] = v.strip()
    return {k: d.get(k) for k in ("Seccomp", "CapEff", "CapBnd", "NoNewPrivs")}
out = {"pid1": status(1), "self": status("self")}
workers = []
for pid in os.listdir("/proc"):
    if pid.isdigit() and pid != "1":
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        if b"procrastinate" in cmd or b"worker" in cmd:
            workers.append(pid)
out["worker"] = status(sorted(workers, key=int)[0]) if workers else None
libc = ctypes.CDLL(None, use_errno=True)
# personality(PER_LINUX), a no-op here: podman's default seccomp profile allows exactly this.
rc = libc.syscall(135, ctypes.c_ulong(0))
out["personality"] = [rc, errno.errorcode.get(ctypes.get_errno(), "")]
rootfs = {}
for path in ("/opt/ats/probe", "/etc/probe", "/probe", "/tmp/probe"):
    try:
        with open(path, "w") as fh:
            fh.write("x")
        rootfs[path] = "written"
    except OSError as exc:
        rootfs[path] = errno.errorcode[exc.errno]
out["rootfs"] = rootfs
def read(path):
    try:
        return open(path).read().strip()
    except OSError:
        return None
out["memory_limit"] = read("/sys/fs/cgroup/memory/memory.limit_in_bytes") or read("/sys/fs/cgroup/memory.max")
out["pids_max"] = read("/sys/fs/cgroup/pids/pids.max") or read("/sys/fs/cgroup/pids.max")
out["connect"] = {}
for name, (host, port) in targets.items():
    s = socket.socket()
    s.settimeout(3)
    try:
        s.connect((host, port))
        out["connect"][name] = "connected"
    except OSError as exc:
        out["connect"][name] = type(exc).__name__
    finally:
        s.close()
try:
    socket.getaddrinfo("example.com", 443)
    out["dns"] = "resolved"
except OSError as exc:
    out["dns"] = type(exc).__name__
out["env"] = sorted(os.environ)
print(json.dumps(out))
"""


def _probe(container: str, targets: dict[str, tuple[str, int]]) -> dict[str, Any]:
    proc = podman("exec", container, "python", "-c", PROBE, json.dumps(targets), timeout=120)
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def _networks(container: str) -> dict[str, dict[str, Any]]:
    data = json.loads(podman("inspect", "--type", "container", container).stdout)[0]
    return dict(data["NetworkSettings"]["Networks"])


def _address(container: str, network_suffix: str) -> str:
    for name, net in _networks(container).items():
        if name.endswith(network_suffix):
            return str(net["IPAddress"])
    raise AssertionError(f"{container} is not on *{network_suffix}")


def _gateway(container: str, network_suffix: str) -> str:
    for name, net in _networks(container).items():
        if name.endswith(network_suffix):
            return str(net["Gateway"])
    raise AssertionError(f"{container} is not on *{network_suffix}")


@pytest.fixture(scope="module")
def host_listener() -> Iterator[int]:
    """A TCP server on the host's 0.0.0.0, like any service a host may run (a Postgres on
    5432, `just up`): what an `internal` network alone does not protect."""
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("0.0.0.0", 0))  # every interface: the point of the test
    server.listen(16)
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.5)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
                conn.close()
            except OSError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join(5)
    server.close()


@pytest.fixture(scope="module")
def probes(stack: Any, host_listener: int) -> dict[str, dict[str, Any]]:
    untrusted = stack.container("worker-untrusted")
    web = stack.container("web")
    targets = {
        "postgres": (_address(stack.container("postgres"), "_untrusted"), 5432),
        "web": (_address(web, "_backend"), 8000),
        "clamd": (_address(stack.container("clamd"), "_backend"), 3310),
        "azurite": (_address(stack.container("azurite"), "_backend"), 10000),
        "redis": (_address(stack.container("redis"), "_backend"), 6379),
        "host_via_gateway": (_gateway(untrusted, "_untrusted"), host_listener),
        "outside": ("1.1.1.1", 443),
    }
    # Control: the same probe from web (backend + egress, the runtime's default seccomp
    # profile) reaches the host listener through its own gateway.
    control_targets = {"host_via_gateway": (_gateway(web, "_backend"), host_listener)}
    return {"untrusted": _probe(untrusted, targets), "control": _probe(web, control_targets)}


def test_stack_came_up_health_gated(stack: Any) -> None:
    health = stack.health()
    assert health and all(health.values()), health
    assert stack.state(stack.container("migrate"))["ExitCode"] == 0


def test_text_scanned_and_eicar_reach_their_terminal_states(web: WebClient) -> None:
    started = time.monotonic()
    upload = web.upload({"cv-text.pdf": text_cv("Text"), "cv-scanned.pdf": scanned_cv("Scan"), "eicar.txt": EICAR})
    assert [a["state"] for a in upload["attachments"]] == ["received"] * 3, upload
    final = web.wait_terminal([upload["raw_intake_id"]], timeout=300)
    took = time.monotonic() - started
    assert final["cv-text.pdf"]["state"] == "candidate_created", final["cv-text.pdf"]
    assert final["cv-scanned.pdf"]["state"] == "candidate_created", final["cv-scanned.pdf"]
    assert final["eicar.txt"]["state"] == "blocked_malware", final["eicar.txt"]
    assert final["eicar.txt"]["scan_signature"] == TEST_SIGNATURE, final["eicar.txt"]
    print(f"three documents terminal in {took:.1f} s")


def test_untrusted_process_is_confined_by_the_project_profile(probes: dict[str, dict[str, Any]]) -> None:
    u = probes["untrusted"]
    for who in ("pid1", "self", "worker"):
        assert u[who] is not None, f"no {who} process found"
        assert u[who]["Seccomp"] == "2", (who, u[who])
        assert u[who]["CapEff"] == "0000000000000000", (who, u[who])
        assert u[who]["CapBnd"] == "0000000000000000", (who, u[who])
        assert u[who]["NoNewPrivs"] == "1", (who, u[who])
    # personality() is allowed by podman's default profile (the control) and refused by
    # seccomp-container.json: the filter in force is the project's, not the runtime default.
    assert u["personality"] == [-1, "EPERM"], u["personality"]
    assert probes["control"]["personality"][0] >= 0, probes["control"]["personality"]


def test_untrusted_root_is_read_only_and_limits_apply(probes: dict[str, dict[str, Any]]) -> None:
    u = probes["untrusted"]
    assert u["rootfs"] == {"/opt/ats/probe": "EROFS", "/etc/probe": "EROFS", "/probe": "EROFS", "/tmp/probe": "written"}
    assert int(u["memory_limit"]) == 3200 * 2**20, u["memory_limit"]
    assert u["pids_max"] == "256", u["pids_max"]


def test_untrusted_reaches_postgres_and_nothing_else(probes: dict[str, dict[str, Any]]) -> None:
    reached = probes["untrusted"]["connect"]
    assert reached.pop("postgres") == "connected"
    assert all(result != "connected" for result in reached.values()), reached
    assert probes["untrusted"]["dns"] != "resolved", "outside names resolve: a DNS exfiltration path"
    # Without the firewall rule this would connect: an internal network reaches the host.
    assert probes["control"]["connect"]["host_via_gateway"] == "connected", probes["control"]


def test_untrusted_has_no_blob_mail_or_app_credentials(stack: Any, probes: dict[str, dict[str, Any]]) -> None:
    data = json.loads(podman("inspect", "--type", "container", stack.container("worker-untrusted")).stdout)[0]
    env = dict(item.split("=", 1) for item in data["Config"]["Env"])
    for name in (*FORBIDDEN_ENV, *probes["untrusted"]["env"]):
        assert name not in FORBIDDEN_ENV or name not in env, name
    assert not set(FORBIDDEN_ENV) & set(probes["untrusted"]["env"])
    assert env["DATABASE_URL"].startswith("postgresql://ats_parse:"), "not the least-privilege role"


def test_sandbox_layers_and_escape_probes_inside_the_container(stack: Any) -> None:
    """The per-document child still works in root-less container mode, and every escape
    attempt ends typed (ats.sandbox.check runs real children with the self-check probes)."""
    untrusted = stack.container("worker-untrusted")
    proc = podman("exec", untrusted, "python", "-m", "ats.sandbox.check", "--json", check=False)
    report = json.loads(proc.stdout)
    failed = [c for c in report["checks"] if not c["ok"]]
    # On a CPU-starved host (CI shares 2 cores) a CPU spin can hit the wall-clock limit
    # before it has burnt its CPU seconds: still a typed end, by the other limit.
    contention = [c for c in failed if c["check"] == "CPU spin ends as timeout_cpu" and c["detail"] == "timeout_wall"]
    assert proc.returncode == 0 or failed == contention, (report.get("required_missing"), failed)
    assert report["uid"] == 65532
    assert not report["required_missing"], report["required_missing"]
    assert len(report["checks"]) > 10
    assert "seccomp" in report["layers"] and "no_new_privs" in report["layers"]


def test_replacing_worker_containers_mid_backlog_loses_nothing(stack: Any, web: WebClient) -> None:
    # Each CV names a person (a name of letters: "Alex Smoke Ada"), or it ends
    # no_candidate_details instead of making a candidate (issue 28).
    names = ("Ada", "Ben", "Cleo", "Dan", "Eve", "Finn", "Gus", "Hana", "Ivo", "Jin", "Kai", "Lea")
    files = {f"backlog-{i:02d}.pdf": (scanned_cv if i % 2 else text_cv)(n) for i, n in enumerate(names)}
    upload = web.upload(files)
    rid = upload["raw_intake_id"]
    pending = [a for a in web.intake(rid)["attachments"] if not a["terminal"]]
    assert pending, "the backlog drained before the replacement started: the test proves nothing"
    # A rolling deploy of both workers: SIGTERM, the 90 s graceful shutdown, a new container.
    stopped = {svc: stack.replace(svc) for svc in ("worker-untrusted", "worker-default")}
    final = web.wait_terminal([rid], timeout=600)
    assert {name: a["state"] for name, a in final.items()} == dict.fromkeys(files, "candidate_created")
    # A candidate's follow-up jobs (dedupe, search index) may still be running when the last
    # document turns terminal: wait for the queue to settle. A job the replacement stranded
    # would stay `doing` (or be rescued and finish - nothing lost either way); none may fail.
    query = (
        "SELECT status || ':' || task_name, count(*) FROM procrastinate_jobs"
        " WHERE status IN ('doing', 'failed') GROUP BY 1 ORDER BY 1"
    )
    deadline = time.monotonic() + 180
    while True:
        jobs = podman("exec", stack.container("postgres"), "psql", "-U", "ats", "-d", "ats", "-tAc", query).stdout
        if not jobs.strip() or "failed:" in jobs or time.monotonic() > deadline:
            break
        time.sleep(2)
    assert not jobs.strip(), jobs
    verify = podman("exec", stack.container("web"), "ats", "intake-verify", "--json", check=False)
    assert verify.returncode == 0 and json.loads(verify.stdout)["lost"] == 0, verify.stdout + verify.stderr
    print(f"{len(pending)} of {len(files)} pending at replacement; graceful stops took {stopped}")


def test_keda_role_and_scaler_queries_against_the_live_database(stack: Any) -> None:
    """components/keda: keda-role.sql applies after the migrations, each ScaledObject's query
    runs as that role and returns a count, and the role cannot read job arguments."""
    import subprocess

    import yaml

    postgres = stack.container("postgres")
    sql = (REPO / "k8s" / "components" / "keda" / "keda-role.sql").read_text()
    subprocess.run(
        ["podman", "exec", "-i", postgres, "psql", "-U", "ats", "-d", "ats", "-v", "ON_ERROR_STOP=1",
         "-v", "keda_password='keda-dev-only'"],
        input=sql, text=True, capture_output=True, check=True, timeout=60,
    )  # fmt: skip
    url = "postgresql://ats_keda:keda-dev-only@127.0.0.1:5432/ats"
    for so in ("worker-default", "worker-untrusted"):
        doc = yaml.safe_load((REPO / "k8s" / "components" / "keda" / f"scaledobject-{so}.yaml").read_text())
        query = doc["spec"]["triggers"][0]["metadata"]["query"]
        count = podman("exec", postgres, "psql", url, "-tAc", query).stdout.strip()
        assert count.isdigit(), (so, count)
    denied = podman("exec", postgres, "psql", url, "-tAc", "SELECT args FROM procrastinate_jobs LIMIT 1", check=False)
    assert denied.returncode != 0 and "permission denied" in denied.stderr, denied.stderr
    readonly = podman("exec", postgres, "psql", url, "-tAc", "DELETE FROM procrastinate_jobs", check=False)
    assert readonly.returncode != 0, readonly.stdout
