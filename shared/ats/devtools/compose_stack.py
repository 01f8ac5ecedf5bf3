"""Run compose.yaml with podman, health-gated: `just compose-up` / `just compose-down`.

podman-compose 1.6 with podman 4.3 creates everything compose.yaml describes (networks,
volumes, containers with their hardening), but it ignores `condition: service_healthy`
("podman 4.3.1 doesn't support healthy"), and podman never runs a healthcheck by itself
here (it schedules them with systemd timers; there is no systemd). So this supervisor:

1. `podman-compose up --no-start --no-deps`: create all containers, start none (`--no-deps`
   also keeps podman's `--requires` off, which would restart the finished `migrate`
   whenever a dependant starts);
2. closes what an `internal: true` network leaves open to worker-untrusted: the host's own
   ports through the bridge gateway (an iptables DROP for the untrusted subnet, INPUT and
   FORWARD);
3. starts services in dependency order, and before each one waits for exactly what its
   `depends_on` says: `service_healthy` -> `podman healthcheck run` until it passes (within
   the dependency's start_period + retries x interval), `service_completed_successfully` ->
   `podman wait` and exit code 0. A dependency that exits or stays unhealthy stops the
   start with its log tail - nothing starts on a broken dependency;
4. finally waits until every long-running service is healthy.

It never pretends: a healthcheck that does not pass in time is a failure.

    python -m ats.devtools.compose_stack up [--timeout 600]
    python -m ats.devtools.compose_stack down [--volumes]
    python -m ats.devtools.compose_stack health        # one healthcheck round, all services

Runs as root (rootful podman: the firewall rule needs it). The container recipes source
scripts/containers/env.sh first (project-local CONTAINERS_CONF).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ats.devtools._localproc import REPO_ROOT
from ats.errors import AtsError

COMPOSE_FILE = REPO_ROOT / "compose.yaml"
PODMAN_COMPOSE = os.environ.get("ATS_PODMAN_COMPOSE", "/opt/ats/container-tools/bin/podman-compose")
FIREWALL_TAG = "ats-compose-untrusted"
UNTRUSTED_NETWORK = "untrusted"
LOG_DIR = REPO_ROOT / ".ats" / "containers"


class StackError(AtsError, RuntimeError):
    pass


def _log(msg: str) -> None:
    sys.stderr.write(f"[compose] {msg}\n")
    sys.stderr.flush()


def _seconds(value: Any, default: float) -> float:
    """A compose duration ("5s", "1m30s", "100ms", 90) in seconds."""
    if value is None:
        return default
    text = str(value).strip()
    try:
        return float(text)
    except ValueError:
        pass
    total, number = 0.0, ""
    units = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6}
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isdigit() or ch == ".":
            number += ch
            i += 1
            continue
        unit = text[i : i + 2] if text[i : i + 2] in {"ms", "us"} else ch
        total += float(number) * units[unit]
        number, i = "", i + len(unit)
    return total


def podman(*args: str, check: bool = True, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(["podman", *args], capture_output=True, text=True, timeout=timeout, check=False)
    if check and proc.returncode != 0:
        raise StackError(f"podman {' '.join(args)} -> {proc.returncode}: {proc.stderr.strip()[-2000:]}")
    return proc


@dataclass
class Stack:
    compose_file: Path = COMPOSE_FILE
    spec: dict[str, Any] = field(init=False)
    project: str = field(init=False)

    def __post_init__(self) -> None:
        import yaml

        self.spec = yaml.safe_load(self.compose_file.read_text())
        self.project = str(self.spec.get("name") or self.compose_file.parent.name)

    # ------------------------------------------------------------------ model

    @property
    def services(self) -> dict[str, dict[str, Any]]:
        return dict(self.spec["services"])

    def depends_on(self, service: str) -> dict[str, str]:
        deps = self.services[service].get("depends_on") or {}
        if isinstance(deps, list):
            return {d: "service_started" for d in deps}
        return {d: (spec or {}).get("condition", "service_started") for d, spec in deps.items()}

    def start_order(self) -> list[str]:
        """Services so that each comes after everything it depends on (stable by file order)."""
        order: list[str] = []
        visiting: set[str] = set()

        def visit(svc: str) -> None:
            if svc in order:
                return
            if svc in visiting:
                raise StackError(f"dependency cycle through {svc}")
            visiting.add(svc)
            for dep in self.depends_on(svc):
                visit(dep)
            visiting.discard(svc)
            order.append(svc)

        for svc in self.services:
            visit(svc)
        return order

    def one_shot(self, service: str) -> bool:
        return str(self.services[service].get("restart", "no")) == "no"

    def container(self, service: str) -> str:
        """The container podman-compose created for `service` (found by its labels)."""
        proc = podman(
            "ps",
            "-a",
            "--filter",
            f"label=io.podman.compose.project={self.project}",
            "--filter",
            f"label=com.docker.compose.service={service}",
            "--format",
            "{{.Names}}",
        )
        names = proc.stdout.split()
        if len(names) != 1:
            raise StackError(f"expected one container for {service}, found {names}")
        return names[0]

    def untrusted_subnet(self) -> str | None:
        net = (self.spec.get("networks") or {}).get(UNTRUSTED_NETWORK) or {}
        configs = (net.get("ipam") or {}).get("config") or []
        return str(configs[0]["subnet"]) if configs else None

    # ------------------------------------------------------------------ podman-compose

    def compose(self, *args: str, timeout: float = 900) -> None:
        LOG_DIR.mkdir(parents=True, exist_ok=True)
        log = LOG_DIR / "podman-compose.log"
        with log.open("a") as fh:
            fh.write(f"\n$ podman-compose {' '.join(args)}\n")
            fh.flush()
            proc = subprocess.run(
                [PODMAN_COMPOSE, "-f", str(self.compose_file), *args],
                cwd=self.compose_file.parent,  # relative paths (seccomp profile, binds)
                stdout=fh,
                stderr=subprocess.STDOUT,
                timeout=timeout,
                check=False,
            )
        if proc.returncode != 0:
            tail = log.read_text(errors="replace")[-3000:]
            raise StackError(f"podman-compose {' '.join(args)} failed ({proc.returncode}):\n{tail}")

    # ------------------------------------------------------------------ firewall

    def _iptables_rules(self) -> list[list[str]]:
        subnet = self.untrusted_subnet()
        if subnet is None:
            return []
        comment = ["-m", "comment", "--comment", FIREWALL_TAG]
        return [
            # The bridge gateway is the host: without this, every host port bound to
            # 0.0.0.0 (a Postgres on 5432, `just up`'s web) is one connect() away.
            ["INPUT", "-s", subnet, *comment, "-j", "DROP"],
            # Defence in depth: nothing from the subnet is routed anywhere else either.
            ["FORWARD", "-s", subnet, "!", "-d", subnet, *comment, "-j", "DROP"],
        ]

    def firewall_close(self) -> None:
        if not shutil.which("iptables"):
            raise StackError("iptables is missing: cannot close the untrusted network's route to the host")
        for rule in self._iptables_rules():
            exists = subprocess.run(["iptables", "-C", *rule], capture_output=True, check=False).returncode == 0
            if not exists:
                subprocess.run(["iptables", "-I", *rule], check=True, capture_output=True)

    def firewall_open(self) -> None:
        if not shutil.which("iptables"):
            return
        for rule in self._iptables_rules():
            while subprocess.run(["iptables", "-D", *rule], capture_output=True, check=False).returncode == 0:
                pass

    # ------------------------------------------------------------------ waiting

    def state(self, name: str) -> dict[str, Any]:
        data = json.loads(podman("inspect", "--type", "container", name).stdout)[0]
        return dict(data["State"])

    def logs_tail(self, name: str, lines: int = 40) -> str:
        proc = podman("logs", "--tail", str(lines), name, check=False)
        return (proc.stdout + proc.stderr)[-4000:]

    def health_budget(self, service: str) -> float:
        hc = self.services[service].get("healthcheck") or {}
        return (
            _seconds(hc.get("start_period"), 0)
            + _seconds(hc.get("retries"), 3) * (_seconds(hc.get("interval"), 30) + _seconds(hc.get("timeout"), 30))
            + 30
        )

    def wait_healthy(self, service: str, *, timeout: float | None = None) -> float:
        """Drive `podman healthcheck run` until it passes; seconds it took."""
        name = self.container(service)
        budget = timeout if timeout is not None else self.health_budget(service)
        start = time.monotonic()
        last = ""
        while time.monotonic() - start < budget:
            state = self.state(name)
            if not state.get("Running"):
                raise StackError(
                    f"{service} is not running (exit {state.get('ExitCode')}) while waiting for it to be healthy:\n"
                    f"{self.logs_tail(name)}"
                )
            proc = podman("healthcheck", "run", name, check=False, timeout=120)
            if proc.returncode == 0:
                return time.monotonic() - start
            last = (proc.stdout + proc.stderr).strip()
            time.sleep(1.0)
        raise StackError(f"{service} not healthy after {budget:.0f} s (last: {last!r}):\n{self.logs_tail(name)}")

    def wait_completed(self, service: str, *, timeout: float = 600) -> float:
        name = self.container(service)
        start = time.monotonic()
        proc = podman("wait", name, timeout=timeout)
        code = int(proc.stdout.strip().splitlines()[-1])
        if code != 0:
            raise StackError(f"{service} exited {code}:\n{self.logs_tail(name)}")
        return time.monotonic() - start

    def wait_condition(self, service: str, condition: str) -> None:
        if condition == "service_healthy":
            took = self.wait_healthy(service)
            _log(f"  {service}: healthy ({took:.1f} s)")
        elif condition == "service_completed_successfully":
            took = self.wait_completed(service)
            _log(f"  {service}: completed with exit 0 ({took:.1f} s)")
        elif not self.state(self.container(service)).get("Running"):
            raise StackError(f"{service} is not running")

    # ------------------------------------------------------------------ commands

    def up(self, services: list[str] | None = None) -> dict[str, float]:
        """Create and start (a subset of) the stack, health-gated; per-service start times."""
        started_at = time.monotonic()
        wanted = self.start_order() if not services else [s for s in self.start_order() if s in services]
        self.compose("up", "--no-start", "--no-deps", *(services or []))
        self.firewall_close()
        timings: dict[str, float] = {}
        satisfied: set[tuple[str, str]] = set()
        for svc in wanted:
            for dep, condition in self.depends_on(svc).items():
                if (dep, condition) not in satisfied:
                    self.wait_condition(dep, condition)
                    satisfied.add((dep, condition))
            name = self.container(svc)
            if not self.state(name).get("Running"):
                podman("start", name)
            timings[svc] = time.monotonic() - started_at
            _log(f"started {svc} at +{timings[svc]:.1f} s")
        for svc in wanted:
            if not self.one_shot(svc) and "healthcheck" in self.services[svc]:
                took = self.wait_healthy(svc)
                _log(f"  {svc}: healthy ({took:.1f} s)")
        _log(f"stack up and healthy in {time.monotonic() - started_at:.1f} s")
        return timings

    def down(self, *, volumes: bool = False) -> None:
        args = ["down", "-t", "100"]
        if volumes:
            args.append("--volumes")
        self.compose(*args)
        self.firewall_open()

    def health(self) -> dict[str, bool]:
        result = {}
        for svc in self.start_order():
            if self.one_shot(svc) or "healthcheck" not in self.services[svc]:
                continue
            proc = podman("healthcheck", "run", self.container(svc), check=False, timeout=120)
            result[svc] = proc.returncode == 0
        return result

    def replace(self, service: str, *, stop_timeout: int = 100) -> float:
        """Stop a service's container gracefully (SIGTERM, then `stop_timeout`), remove it,
        create a fresh one from the image and wait until it is healthy - a rolling deploy of
        one replica. Seconds the stop took."""
        name = self.container(service)
        start = time.monotonic()
        podman("stop", "-t", str(stop_timeout), name, timeout=stop_timeout + 60)
        stopped = time.monotonic() - start
        podman("rm", name)
        self.compose("up", "--no-start", "--no-deps", service)
        podman("start", self.container(service))
        self.wait_healthy(service)
        return stopped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ats.devtools.compose_stack")
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("up", help="create and start the stack, health-gated")
    up.add_argument("services", nargs="*")
    down = sub.add_parser("down", help="stop and remove containers and networks")
    down.add_argument("--volumes", action="store_true", help="also remove the named volumes (database, blobs)")
    sub.add_parser("health", help="run every healthcheck once")
    args = parser.parse_args(argv)
    stack = Stack()
    try:
        if args.command == "up":
            stack.up(args.services or None)
            port = os.environ.get("ATS_COMPOSE_WEB_PORT", "18000")
            _log(f"web: http://127.0.0.1:{port}/  (stop: just compose-down)")
        elif args.command == "down":
            stack.down(volumes=args.volumes)
        else:
            result = stack.health()
            for svc, ok in result.items():
                sys.stdout.write(f"{svc}: {'healthy' if ok else 'UNHEALTHY'}\n")
            return 0 if all(result.values()) else 1
    except StackError as exc:
        _log(f"FAILED: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
