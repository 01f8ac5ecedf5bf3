"""Dockerfiles (static checks: no engine here) and the gunicorn configuration."""

from __future__ import annotations

import os
import re
import runpy
from pathlib import Path
from typing import Any

import pytest
from gunicorn.config import KNOWN_SETTINGS

from tests.deploy.helpers import REPO, carries_graceful_timeout, container, workload

SERVICES = ("web", "worker-default", "worker-untrusted")
BASE = REPO / "services" / "base.Dockerfile"


def _instructions(path: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with comments dropped and continuation lines joined."""
    text = re.sub(r"\\\n", " ", path.read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            out.append((keyword.upper(), rest.strip()))
    return out


def _final_user(path: Path, inherited: str) -> str:
    """The uid the final stage runs as: the last USER after the last FROM, else the parent's
    (`inherited` for FROM ats-base, root for any other parent)."""
    user = inherited
    for keyword, args in _instructions(path):
        if keyword == "FROM":
            user = inherited if args.split()[0] == "${ATS_BASE_IMAGE}" else "root"
        elif keyword == "USER":
            user = args
    return user.split(":")[0]


def test_base_image_installs_the_lock_with_debian_python() -> None:
    text = BASE.read_text()
    froms = [args for keyword, args in _instructions(BASE) if keyword == "FROM"]
    # build + runtime from the locally built Debian base; the extra-ca stage is empty.
    assert sum(f.startswith("${BASE_IMAGE} ") for f in froms) == 2, froms
    assert ("ARG", "BASE_IMAGE=localhost/ats-debian:bookworm") in _instructions(BASE)
    assert "python3.11" in text
    assert "UV_PYTHON=/usr/bin/python3.11" in text
    assert "UV_PYTHON_DOWNLOADS=never" in text
    assert "UV_PROJECT_ENVIRONMENT=/opt/ats/venv" in text
    syncs = re.findall(r"uv sync ([^\n\\]*)", text)
    assert syncs and all("--frozen" in s and "--no-dev" in s for s in syncs), syncs
    assert "chmod -R a+rX /opt/ats/venv" in text, "the venv must be readable by every uid"
    assert "tesseract" not in text, "OCR data belongs to worker-untrusted only"
    assert _final_user(BASE, "root") not in {"root", "0"}


@pytest.mark.parametrize("service", SERVICES)
def test_service_images_extend_the_base_and_stay_non_root(service: str) -> None:
    path = REPO / "services" / service / "Dockerfile"
    instructions = _instructions(path)
    froms = [args for keyword, args in instructions if keyword == "FROM"]
    assert froms == ["${ATS_BASE_IMAGE}"], f"{path}: {froms}"
    assert ("ARG", "ATS_BASE_IMAGE=localhost/ats-base:dev") in instructions
    assert _final_user(path, "65532") not in {"root", "0"}, f"{path} ends as root"
    installs_ocr = any(keyword == "RUN" and "tesseract-ocr-eng" in args for keyword, args in instructions)
    assert installs_ocr == (service == "worker-untrusted")
    assert (REPO / "services" / service / "README.md").is_file()


def test_worker_images_default_to_the_graceful_worker_command() -> None:
    for service in ("worker-default", "worker-untrusted"):
        cmd = [args for keyword, args in _instructions(REPO / "services" / service / "Dockerfile") if keyword == "CMD"]
        argv = re.findall(r'"([^"]*)"', cmd[-1])
        assert argv[:4] == ["ats", "worker", "--deployable", service.removeprefix("worker-")]
        assert carries_graceful_timeout(argv)


def _dockerfiles() -> list[Path]:
    services = REPO / "services"
    return [BASE, *sorted(services.glob("*/Dockerfile")), *sorted(services.glob("*/*.Dockerfile"))]


def test_no_stage_comes_from_a_registry() -> None:
    """Every FROM / COPY --from names a stage of the same file, `scratch`, or a build arg whose
    default is a localhost/ image (built by `just images`): no registry is ever contacted."""
    for path in _dockerfiles():
        instructions = _instructions(path)
        args = dict(a.split("=", 1) for k, a in instructions if k == "ARG" and "=" in a)
        stages: set[str] = {"scratch"}
        for keyword, rest in instructions:
            refs = []
            if keyword == "FROM":
                parts = rest.split()
                refs.append(parts[0])
                if len(parts) == 3 and parts[1].upper() == "AS":
                    stages.add(parts[2])
            elif keyword == "COPY":
                refs += [p.split("=", 1)[1] for p in rest.split() if p.startswith("--from=")]
            for ref in refs:
                if ref in stages:
                    continue
                match = re.fullmatch(r"\$\{(\w+)\}", ref)
                assert match, f"{path.relative_to(REPO)}: {keyword} {ref} is neither a stage nor a build arg"
                default = args.get(match.group(1), "")
                assert default.startswith("localhost/"), f"{path.relative_to(REPO)}: {ref} defaults to {default!r}"


def test_uv_comes_from_pypi_and_extra_cas_stay_in_the_build_stage() -> None:
    text = BASE.read_text()
    assert 'pip install --no-cache-dir --disable-pip-version-check -q "uv==${UV_VERSION}"' in text
    stages = re.split(r"^FROM ", text, flags=re.M)
    runtime = stages[-1]
    assert "extra-ca" not in runtime and "/usr/local/share/ca-certificates" not in runtime


def test_untrusted_image_has_no_shell() -> None:
    instructions = _instructions(REPO / "services" / "worker-untrusted" / "Dockerfile")
    removal = [a for k, a in instructions if k == "RUN" and a.startswith('["/usr/bin/rm"')]
    assert removal, "worker-untrusted keeps its shells"
    for tool in ("/usr/bin/bash", "/usr/bin/dash", "/usr/bin/sh", "/usr/bin/perl", "/usr/bin/apt-get"):
        assert f'"{tool}"' in removal[0]
    # No shell-form RUN can follow (there is no shell left to run it).
    after = instructions[[a for _, a in instructions].index(removal[0]) + 1 :]
    assert all(not (k == "RUN" and not a.startswith("[")) for k, a in after)


def test_images_ship_the_policy_read_only() -> None:
    # In the base image: the migration applies policy/db-role.sql, worker-untrusted loads
    # the seccomp/limits files.
    instructions = _instructions(REPO / "services" / "base.Dockerfile")
    assert ("COPY", "services/worker-untrusted/policy/ /opt/ats/policy/") in instructions
    assert any(keyword == "RUN" and "chmod -R a=rX /opt/ats/policy" in args for keyword, args in instructions)
    assert any(keyword == "ENV" and "ATS_SANDBOX_POLICY_DIR=/opt/ats/policy" in args for keyword, args in instructions)


def test_build_context_keeps_what_the_images_copy() -> None:
    ignored = {line.strip() for line in (REPO / ".dockerignore").read_text().splitlines()}
    for needed in ("pyproject.toml", "uv.lock", "README.md", "shared", "services"):
        assert needed not in ignored


@pytest.fixture
def gunicorn_conf(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.setenv("ATS_WEB_BIND", "0.0.0.0:8000")
    return runpy.run_path(str(REPO / "services" / "web" / "gunicorn.conf.py"))


def test_gunicorn_matches_the_connection_budget(gunicorn_conf: dict[str, Any]) -> None:
    assert gunicorn_conf["workers"] == 2
    assert gunicorn_conf["threads"] == 4
    assert gunicorn_conf["worker_class"] == "gthread"
    assert gunicorn_conf["bind"] == ["0.0.0.0:8000"]
    assert gunicorn_conf["accesslog"] == "-"


def test_gunicorn_settings_are_real_settings(gunicorn_conf: dict[str, Any]) -> None:
    known = {setting.name for setting in KNOWN_SETTINGS}
    ours = {
        k for k, v in gunicorn_conf.items() if not k.startswith("_") and not callable(v) and not isinstance(v, type(os))
    }
    assert ours <= known, f"not gunicorn settings: {ours - known}"


def test_gunicorn_graceful_timeout_fits_the_pod_grace(
    gunicorn_conf: dict[str, Any], rendered: dict[str, list[dict[str, Any]]]
) -> None:
    for docs in rendered.values():
        _, template = workload(docs, "web")
        pre_stop = container(template["spec"], "web")["lifecycle"]["preStop"]["sleep"]["seconds"]
        assert pre_stop + gunicorn_conf["graceful_timeout"] < template["spec"]["terminationGracePeriodSeconds"]
