"""The production wheel (what every image installs) carries no dev or test harness.

ats.devtools starts fake and local services (a Graph server that accepts any token, a
Postgres cluster, clamd, Azurite) and the pytest plugin: nothing a deployed process may
run. The wheel is built here from the checkout exactly as services/base.Dockerfile builds
it (`uv sync --no-editable` builds it with the project's hatch settings).
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from tests.deploy.helpers import REPO

pytestmark = pytest.mark.integration


def _uv() -> str:
    uv = shutil.which("uv") or "/opt/ats/tools/bin/uv"
    assert Path(uv).exists(), "uv is installed by `just bootstrap`"
    return uv


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    out = tmp_path_factory.mktemp("wheel")
    # --offline: the build backend (hatchling) is in uv's cache since bootstrap built the
    # editable install with it; a test must not depend on reaching the registry.
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
    argv = [_uv(), "build", "--wheel", "--offline", "--quiet", "--python", "/usr/bin/python3.11"]
    done = subprocess.run(
        [*argv, "-o", str(out), str(REPO)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    (built,) = out.glob("ats_intake-*.whl")
    return zipfile.ZipFile(built)


def _modules(wheel: zipfile.ZipFile) -> list[str]:
    return [n for n in wheel.namelist() if n.startswith("ats/")]


def test_the_wheel_has_the_application_and_no_devtools(wheel: zipfile.ZipFile) -> None:
    names = _modules(wheel)
    # The positive control: the wheel is the application.
    for needed in ("ats/cli.py", "ats/jobs/wakeup.py", "ats/parse_worker/tasks.py", "ats/config/settings.py"):
        assert needed in names, needed
    assert [n for n in names if n.startswith("ats/devtools/")] == []


def _devtools_references(source: str) -> list[str]:
    """Imports of ats.devtools, and dotted strings naming it (import_module, settings)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("ats.devtools")]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("ats.devtools") or (
                node.module == "ats" and any(a.name == "devtools" for a in node.names)
            ):
                found.append(node.module)
        elif isinstance(node, ast.Call):
            found += [
                arg.value
                for arg in node.args
                if isinstance(arg, ast.Constant)
                and isinstance(arg.value, str)
                and re.fullmatch(r"ats\.devtools(\.\w+)*(:\w+)?", arg.value)
            ]
    return found


def test_nothing_in_the_wheel_imports_devtools(wheel: zipfile.ZipFile) -> None:
    """A shipped module that imported ats.devtools would fail in the image at run time."""
    offenders = {
        name: refs
        for name in _modules(wheel)
        if name.endswith(".py") and (refs := _devtools_references(wheel.read(name).decode()))
    }
    assert offenders == {}


def test_the_reference_check_finds_each_form() -> None:
    found = _devtools_references(
        "import ats.devtools.up\nfrom ats.devtools import api\nfrom ats import devtools\n"
        "import_module('ats.devtools.fake_graph')\n"
    )
    assert found == ["ats.devtools.up", "ats.devtools", "ats", "ats.devtools.fake_graph"]


def test_the_runtime_image_stage_takes_the_installed_venv_not_the_source_tree() -> None:
    """The base image's runtime stage copies /opt/ats/venv (the wheel installed, not
    editable) and the sandbox policy; a COPY of shared/ would bring devtools back."""
    text = (REPO / "services" / "base.Dockerfile").read_text()
    runtime = text.split("AS runtime", 1)[1]
    copies = re.findall(r"^COPY\s+(.*)$", runtime, flags=re.MULTILINE)
    assert copies == ["--from=build /opt/ats/venv /opt/ats/venv", "services/worker-untrusted/policy/ /opt/ats/policy/"]
    assert "--no-editable" in text.split("AS runtime", 1)[0]
