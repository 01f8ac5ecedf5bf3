"""ADR 0004 §5 / trigger T7, derived from the rendered manifests: at maximum replicas (KEDA's
maxReplicaCount, plus a rolling update's surge) the Postgres connections of the scaled
overlay stay under 40% of the stated max_connections; KEDA's limits keep ADR T2's 4 worker
processes; PgBouncer carries web and worker-default's tasks, never a LISTEN, the watchdog's
fence or worker-untrusted."""

from __future__ import annotations

import configparser
import math
import re
import runpy
from typing import Any

import pytest

from ats.cli import DEPLOYABLES
from ats.jobs.data import DEFAULT_QUEUES, UNTRUSTED_QUEUES
from tests.deploy.helpers import REPO, command_line, env_value, name, of_kind, one, workloads

# The smallest managed tier this layout is sized for (stated in docs/deploy.md); check the
# exact value of the tier you buy. Azure Flexible Server: B2s 429, D2s_v3 859.
MAX_CONNECTIONS = 200
T7_SHARE = 0.40
T2_MAX_WORKER_PROCESSES = 4
# Fixed costs: superuser_reserved_connections (3) + migrate Job (2) + admin / ad-hoc psql (5).
FIXED = {"superuser_reserved": 3, "migrate": 2, "admin_psql": 5}


def _gunicorn_connections() -> int:
    conf = runpy.run_path(str(REPO / "services" / "web" / "gunicorn.conf.py"))
    return int(conf["workers"]) * int(conf["threads"])


def _max_replicas(docs: list[dict[str, Any]], deployment: dict[str, Any]) -> int:
    scaled = [s for s in of_kind(docs, "ScaledObject") if s["spec"]["scaleTargetRef"]["name"] == name(deployment)]
    return int(scaled[0]["spec"]["maxReplicaCount"]) if scaled else int(deployment["spec"].get("replicas", 1))


def _surge(deployment: dict[str, Any], replicas: int) -> int:
    strategy = deployment["spec"].get("strategy") or {}
    if strategy.get("type") == "Recreate":
        return 0
    surge = (strategy.get("rollingUpdate") or {}).get("maxSurge", "25%")
    return math.ceil(replicas * int(surge[:-1]) / 100) if isinstance(surge, str) else int(surge)


def _pgbouncer_server_connections(docs: list[dict[str, Any]]) -> int:
    ini = configparser.ConfigParser(inline_comment_prefixes=(";",))
    ini.read_string(one(docs, "ConfigMap", _config_map_name(docs, "pgbouncer-config"))["data"]["pgbouncer.ini"])
    return int(ini["pgbouncer"]["max_db_connections"])


def _config_map_name(docs: list[dict[str, Any]], prefix: str) -> str:
    names = [name(c) for c in of_kind(docs, "ConfigMap") if name(c).startswith(prefix)]
    assert len(names) == 1, names
    return names[0]


def _per_pod(docs: list[dict[str, Any]], pod_spec: dict[str, Any]) -> int:
    """Peak Postgres connections one pod opens (measured: shared/notes/measured-facts.md)."""
    total = 0
    for c in pod_spec["containers"]:
        argv = command_line(c)
        # Pooled: its connections are PgBouncer clients; the server side is PgBouncer's
        # max_db_connections, counted once for the pgbouncer pod.
        pooled = (env_value(c, "ATS_DB_POOLER") or {}).get("value") == "transaction"
        if argv[:2] == ["ats", "web"]:
            total += 0 if pooled else _gunicorn_connections()
        elif argv[:2] == ["ats", "worker"]:
            deployable = argv[argv.index("--deployable") + 1]
            concurrency = int(argv[argv.index("--concurrency") + 1]) if "--concurrency" in argv else None
            c_ = concurrency or DEPLOYABLES[deployable][1]
            # procrastinate pool (c) + one Django connection per executor thread (c), pooled
            # or not; LISTEN (1) + the watchdog's fence (1, ats.jobs.watchdog) always direct
            # (ats.jobs.session) - measured both ways by bench/pgbouncer_bench.py.
            total += (0 if pooled else 2 * c_) + 2
        elif argv[:1] == ["pgbouncer"]:
            total += _pgbouncer_server_connections(docs)
        # An exec probe running `ats healthcheck` holds one connection while it runs.
        probes = [c.get(p) or {} for p in ("startupProbe", "livenessProbe", "readinessProbe")]
        if not pooled and any("healthcheck" in (p.get("exec") or {}).get("command", []) for p in probes):
            total += 1
    return total


def budget(docs: list[dict[str, Any]]) -> dict[str, int]:
    out = dict(FIXED)
    for obj, template in workloads(docs):
        if obj["kind"] != "Deployment":
            continue
        per_pod = _per_pod(docs, template["spec"])
        if per_pod:
            replicas = _max_replicas(docs, obj)
            out[name(obj)] = per_pod * (replicas + _surge(obj, replicas))
    # KEDA's operator keeps one connection per PostgreSQL trigger.
    out["keda"] = sum(
        1 for s in of_kind(docs, "ScaledObject") for t in s["spec"]["triggers"] if t["type"] == "postgresql"
    )
    return out


def test_scaled_overlay_stays_under_t7_at_max_replicas(rendered: dict[str, list[dict[str, Any]]]) -> None:
    parts = budget(rendered["scaled"])
    total = sum(parts.values())
    assert total < T7_SHARE * MAX_CONNECTIONS, f"{total} connections at max replicas: {parts}"
    # The pooler is what makes it fit: web's threads no longer map 1:1 to server backends.
    assert "web" not in parts and parts["pgbouncer"] > 0, parts


@pytest.mark.parametrize("overlay", ["dev", "production"])
def test_unscaled_overlays_stay_under_t7(rendered: dict[str, list[dict[str, Any]]], overlay: str) -> None:
    parts = budget(rendered[overlay])
    assert sum(parts.values()) < T7_SHARE * MAX_CONNECTIONS, parts


def test_keda_keeps_adr_t2_and_the_scheduler(rendered: dict[str, list[dict[str, Any]]]) -> None:
    docs = rendered["scaled"]
    scaled = {s["spec"]["scaleTargetRef"]["name"]: s["spec"] for s in of_kind(docs, "ScaledObject")}
    assert set(scaled) == {"worker-default", "worker-untrusted"}
    assert sum(int(s["maxReplicaCount"]) for s in scaled.values()) <= T2_MAX_WORKER_PROCESSES
    # worker-default runs the periodic scheduler: at zero replicas nothing would wake it.
    assert int(scaled["worker-default"]["minReplicaCount"]) >= 1


@pytest.mark.parametrize(
    ("deployment", "queues"), [("worker-default", DEFAULT_QUEUES), ("worker-untrusted", UNTRUSTED_QUEUES)]
)
def test_each_scaler_counts_exactly_its_deployments_queues(
    rendered: dict[str, list[dict[str, Any]]], deployment: str, queues: tuple[str, ...]
) -> None:
    docs = rendered["scaled"]
    so = one(docs, "ScaledObject", deployment)
    (trigger,) = so["spec"]["triggers"]
    assert trigger["type"] == "postgresql"
    query = trigger["metadata"]["query"]
    assert "status = 'todo'" in query and "FROM procrastinate_jobs" in query
    assert set(re.findall(r"'([a-z_]+)'", query)) - {"todo"} == set(queues), query
    auth = one(docs, "TriggerAuthentication", trigger["authenticationRef"]["name"])
    assert [r["parameter"] for r in auth["spec"]["secretTargetRef"]] == ["connection"]
    assert auth["spec"]["secretTargetRef"][0]["name"] == "ats-keda", "KEDA must not use the app's credentials"


def test_pgbouncer_carries_web_and_worker_default_tasks_never_a_session(
    rendered: dict[str, list[dict[str, Any]]],
) -> None:
    docs = rendered["scaled"]
    ini = configparser.ConfigParser(inline_comment_prefixes=(";",))
    ini.read_string(one(docs, "ConfigMap", _config_map_name(docs, "pgbouncer-config"))["data"]["pgbouncer.ini"])
    assert ini["pgbouncer"]["pool_mode"] == "transaction"
    pooler = {"name": "ATS_DB_POOLER", "value": "transaction"}

    def secret_key(c: dict[str, Any], var: str) -> str | None:
        item = env_value(c, var) or {}
        return (item.get("valueFrom") or {}).get("secretKeyRef", {}).get("key")

    for obj, template in workloads(docs):
        for c in template["spec"]["containers"]:
            if name(obj) in {"web", "worker-default"}:
                assert secret_key(c, "DATABASE_URL") == "DATABASE_URL_POOLED", name(obj)
                assert env_value(c, "ATS_DB_POOLER") == pooler, name(obj)
            else:
                # worker-untrusted (row-level security on inet_client_addr()), migrate, ...
                assert secret_key(c, "DATABASE_URL") != "DATABASE_URL_POOLED", name(obj)
                assert env_value(c, "ATS_DB_POOLER") is None, name(obj)
            if name(obj) in {"web", "worker-default"}:
                # The session path: LISTEN and the fence (worker-default), the erasure's
                # SET lock_timeout + VACUUM (both) - ADR 0004 §5, ats.jobs.session.
                assert secret_key(c, "ATS_SESSION_DATABASE_URL") == "DATABASE_URL", c.get("env")
