"""Run a real Prometheus (Debian's `prometheus` package) for `just up` and tests.

The rules it evaluates are the `spec` of the PrometheusRule the k8s monitoring component
ships (k8s/components/monitoring/prometheus-rule.yaml) - one source for the cluster,
`just up` and the promtool tests. It scrapes the stack's two exporters (web's database
figures, worker-default's job metrics). Everything lives in one state dir:

    <state_dir>/prometheus.yml   generated: scrape targets, rule file, intervals
    <state_dir>/rules.yaml       the PrometheusRule's spec, extracted
    <state_dir>/data/            the TSDB (throwaway; `just up` keeps it between runs)
    <state_dir>/prometheus.log   its stdout/stderr
"""

from __future__ import annotations

import json
import shutil
import subprocess
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any

import yaml

from ats.devtools._localproc import REPO_ROOT, HarnessError, stop_process, wait_ready

RULE_CR = REPO_ROOT / "k8s" / "components" / "monitoring" / "prometheus-rule.yaml"
DEFAULT_PORT = 9090


def prometheus_path() -> str | None:
    return shutil.which("prometheus")


def rule_groups(path: Path = RULE_CR) -> dict[str, Any]:
    """The PrometheusRule's `spec`: a plain Prometheus rules file."""
    doc = yaml.safe_load(path.read_text())
    if doc.get("kind") != "PrometheusRule":
        raise HarnessError(f"{path} is not a PrometheusRule")
    return dict(doc["spec"])


def shipped_alert_names(path: Path = RULE_CR) -> set[str]:
    return {r["alert"] for g in rule_groups(path)["groups"] for r in g["rules"] if "alert" in r}


class PrometheusLocal:
    """`with PrometheusLocal(state_dir, port, targets) as p:` - p.url answers /api/v1/*."""

    def __init__(
        self,
        *,
        state_dir: Path,
        port: int = DEFAULT_PORT,
        targets: dict[str, str] | None = None,
        evaluation_interval: str = "15s",
        extra_groups: list[dict[str, Any]] | None = None,
    ) -> None:
        self.state_dir = state_dir
        self.port = port
        self.targets = targets or {}
        self.evaluation_interval = evaluation_interval
        self.extra_groups = extra_groups or []
        self.url = f"http://127.0.0.1:{port}"
        self.log = state_dir / "prometheus.log"
        self._proc: subprocess.Popen[bytes] | None = None

    def write_config(self) -> Path:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        groups = rule_groups()
        groups["groups"] = [*groups["groups"], *self.extra_groups]
        (self.state_dir / "rules.yaml").write_text(yaml.safe_dump(groups, sort_keys=False))
        config = {
            "global": {"scrape_interval": "15s", "evaluation_interval": self.evaluation_interval},
            "rule_files": [str(self.state_dir / "rules.yaml")],
            # The k8s PodMonitors' job names, so rules matching on `job` read the same here.
            "scrape_configs": [
                {"job_name": name, "static_configs": [{"targets": [target]}], "metrics_path": "/metrics"}
                for name, target in self.targets.items()
            ],
        }
        path = self.state_dir / "prometheus.yml"
        path.write_text(yaml.safe_dump(config, sort_keys=False))
        return path

    def start(self) -> PrometheusLocal:
        exe = prometheus_path()
        if exe is None:
            raise HarnessError("prometheus missing: scripts/bootstrap.sh installs Debian's prometheus package")
        config = self.write_config()
        with self.log.open("ab") as fh:
            self._proc = subprocess.Popen(
                [
                    exe,
                    f"--config.file={config}",
                    f"--storage.tsdb.path={self.state_dir / 'data'}",
                    "--storage.tsdb.retention.time=2d",
                    f"--web.listen-address=127.0.0.1:{self.port}",
                    "--web.enable-lifecycle",
                ],
                stdout=fh,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        wait_ready(self._proc, self._ready, timeout=60, name="prometheus", log=self.log)
        return self

    def _ready(self) -> bool:
        try:
            with urllib.request.urlopen(self.url + "/-/ready", timeout=1) as resp:  # noqa: S310 (loopback)
                return bool(resp.status == 200)
        except OSError:
            return False

    def api(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=5) as resp:  # noqa: S310 (loopback)
            return json.loads(resp.read())

    def loaded_alert_names(self) -> set[str]:
        data = self.api("/api/v1/rules?type=alert")["data"]["groups"]
        return {r["name"] for g in data for r in g["rules"]}

    def stop(self) -> None:
        if self._proc is not None:
            stop_process(self._proc, timeout=10)
            self._proc = None

    def __enter__(self) -> PrometheusLocal:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
