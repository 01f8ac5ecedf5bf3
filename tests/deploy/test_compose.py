"""compose.yaml: the shared hardening anchor, health-gated start order, and the isolated
worker-untrusted (own network with Postgres only, seccomp profile, own credentials)."""

from __future__ import annotations

import ipaddress
from typing import Any

import yaml

from tests.deploy.helpers import (
    ADR_GRACE_S,
    REPO,
    SECCOMP_CONTAINER,
    carries_graceful_timeout,
    compose_bytes,
    compose_seconds,
    untrusted_memory_bound,
)

APP_SERVICES = {"migrate", "web", "worker-default", "worker-untrusted"}
TRUSTED_ONLY_ENV = {"REDIS_URL", "ATS_AZURE_BLOB_CONNECTION_STRING", "ATS_GRAPH_CLIENT_SECRET"}


def _services_merging(compose_text: str, anchor_key: str) -> set[str]:
    """Names of services whose mapping merges (`<<:`) the node anchored at `anchor_key`."""
    root = yaml.compose(compose_text)
    assert root is not None, "compose.yaml is empty"
    top = {k.value: v for k, v in root.value}
    anchor = top[anchor_key]
    services = {k.value: v for k, v in top["services"].value}
    return {
        svc
        for svc, node in services.items()
        if any(k.tag == "tag:yaml.org,2002:merge" and v is anchor for k, v in node.value)
    }


def test_app_services_merge_the_common_anchor(compose_text: str) -> None:
    assert _services_merging(compose_text, "x-ats-common") == APP_SERVICES


def test_the_anchor_hardening_reaches_every_app_service(compose: dict[str, Any]) -> None:
    for svc in sorted(APP_SERVICES):
        conf = compose["services"][svc]
        assert conf.get("read_only") is True, f"{svc}: root filesystem is writable"
        assert conf.get("cap_drop") == ["ALL"], f"{svc}: capabilities are not all dropped"
        assert "no-new-privileges:true" in conf.get("security_opt", []), f"{svc}: no-new-privileges missing"
        uid = str(conf.get("user", "0")).split(":")[0]
        assert uid not in {"0", "root"}, f"{svc}: runs as root"
        assert any(str(t).split(":")[0] == "/tmp" for t in conf.get("tmpfs", [])), f"{svc}: no tmpfs /tmp"
        assert conf.get("build"), f"{svc}: not built from this repository"


def test_every_dependency_is_health_or_completion_gated(compose: dict[str, Any]) -> None:
    services = compose["services"]
    for svc, conf in services.items():
        depends = conf.get("depends_on")
        if depends is None:
            continue
        assert isinstance(depends, dict), f"{svc}: short depends_on form starts without waiting for health"
        for dep, spec in depends.items():
            condition = (spec or {}).get("condition")
            assert condition in {"service_healthy", "service_completed_successfully"}, f"{svc} -> {dep}: {condition}"
            if condition == "service_healthy":
                assert "healthcheck" in services[dep], f"{svc} waits for {dep} to be healthy, which has no healthcheck"
            else:
                assert services[dep].get("restart") == "no", f"{dep} is a one-shot but restarts"


def test_long_running_services_have_healthchecks(compose: dict[str, Any]) -> None:
    missing = [
        svc for svc, conf in compose["services"].items() if conf.get("restart") != "no" and "healthcheck" not in conf
    ]
    assert not missing, f"no healthcheck: {missing}"


def test_everything_waits_for_migrations(compose: dict[str, Any]) -> None:
    assert compose["services"]["migrate"]["command"] == ["ats", "migrate"]
    for svc in ("web", "worker-default", "worker-untrusted"):
        deps = compose["services"][svc]["depends_on"]
        assert deps["migrate"]["condition"] == "service_completed_successfully", svc


def test_workers_get_the_adr_grace_period(compose: dict[str, Any]) -> None:
    for svc in ("worker-default", "worker-untrusted"):
        conf = compose["services"][svc]
        assert carries_graceful_timeout(conf["command"]), f"{svc}: no --shutdown-graceful-timeout {ADR_GRACE_S}"
        assert compose_seconds(conf["stop_grace_period"]) >= ADR_GRACE_S + 10, f"{svc}: stop_grace_period too short"


def test_worker_untrusted_seccomp_profile_is_the_container_profile(compose: dict[str, Any]) -> None:
    opts = compose["services"]["worker-untrusted"]["security_opt"]
    assert "no-new-privileges:true" in opts
    profiles = [o.split("=", 1)[1] for o in opts if o.startswith("seccomp=")]
    assert profiles == [str(SECCOMP_CONTAINER.relative_to(REPO))], profiles
    assert (REPO / profiles[0]).is_file(), f"{profiles[0]} is referenced by compose.yaml but missing"


def test_worker_untrusted_network_reaches_only_postgres(compose: dict[str, Any]) -> None:
    services = compose["services"]
    networks = services["worker-untrusted"]["networks"]
    assert networks == ["untrusted"], networks
    assert compose["networks"]["untrusted"].get("internal") is True, "the untrusted network must have no route out"
    members = {svc for svc, conf in services.items() if "untrusted" in (conf.get("networks") or [])}
    assert members == {"worker-untrusted", "postgres"}, members
    assert "ports" not in services["worker-untrusted"]


def test_worker_untrusted_has_its_own_credentials(compose: dict[str, Any]) -> None:
    env = compose["services"]["worker-untrusted"]["environment"]
    web_env = compose["services"]["web"]["environment"]
    assert not TRUSTED_ONLY_ENV & set(env), f"worker-untrusted gets {TRUSTED_ONLY_ENV & set(env)}"
    assert env["DATABASE_URL"].startswith("postgresql://ats_parse:"), "not the least-privilege role"
    assert env["ATS_SECRET_KEY"] != web_env["ATS_SECRET_KEY"]
    assert "env_file" not in compose["services"]["worker-untrusted"]


def test_worker_untrusted_memory_fits_two_sandboxed_parses(compose: dict[str, Any]) -> None:
    limit = compose_bytes(compose["services"]["worker-untrusted"]["mem_limit"])
    assert limit >= untrusted_memory_bound()


def test_redis_is_a_cache_not_a_broker(compose: dict[str, Any]) -> None:
    command = compose["services"]["redis"]["command"]
    assert command[command.index("--maxmemory-policy") + 1] == "allkeys-lru"
    assert command[command.index("--save") + 1] == ""
    assert command[command.index("--appendonly") + 1] == "no"
    assert "volumes" not in compose["services"]["redis"]


def test_images_build_from_the_repository_dockerfiles(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert services["migrate"]["build"]["dockerfile"] == "services/base.Dockerfile"
    assert services["migrate"]["image"] == "localhost/ats-base:dev"
    for svc in ("web", "worker-default", "worker-untrusted"):
        build = services[svc]["build"]
        assert build["dockerfile"] == f"services/{svc}/Dockerfile"
        assert (REPO / build["dockerfile"]).is_file()
        assert services[svc]["image"] == f"localhost/ats-{svc}:dev"
        # The per-service Dockerfiles start FROM the base image `migrate` builds; buildah
        # cannot resolve `additional_contexts: service:`, so the base is named explicitly.
        assert build["args"] == {"ATS_BASE_IMAGE": services["migrate"]["image"]}


def test_every_image_is_local_and_never_pulled(compose: dict[str, Any]) -> None:
    for svc, conf in compose["services"].items():
        assert str(conf["image"]).startswith("localhost/"), f"{svc}: {conf['image']} would come from a registry"
        assert conf.get("pull_policy") == "never", f"{svc}: may be pulled"
        assert (REPO / conf["build"]["dockerfile"]).is_file(), f"{svc}: no Dockerfile in the repository"


def test_web_port_does_not_collide_with_just_up(compose: dict[str, Any]) -> None:
    ports = compose["services"]["web"]["ports"]
    assert ports[0] == "127.0.0.1:${ATS_COMPOSE_WEB_PORT:-18000}:8000", ports
    published = {p.split(":")[1] for svc in compose["services"].values() for p in svc.get("ports", [])}
    # `just up`'s web, Postgres, clamd and metrics ports.
    assert not published & {"8000", "54329", "3311", "9100", "9101"}, published


def test_untrusted_network_has_no_resolver_and_postgres_a_fixed_address(compose: dict[str, Any]) -> None:
    net = compose["networks"]["untrusted"]
    assert net["x-podman.disable_dns"] is True
    subnet = ipaddress.ip_network(net["ipam"]["config"][0]["subnet"])
    pg_address = compose["services"]["postgres"]["networks"]["untrusted"]["ipv4_address"]
    assert ipaddress.ip_address(pg_address) in subnet
    untrusted = compose["services"]["worker-untrusted"]
    assert untrusted["dns"] == "none"
    assert untrusted["environment"]["PGHOSTADDR"] == pg_address
