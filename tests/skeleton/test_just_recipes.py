"""`just` passes every recipe's arguments through intact: real CV file names have spaces,
quotes and parentheses, and requisition titles have spaces too."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
JUST = shutil.which("just")
HOSTILE = ["Jane O'Neil CV (2026).pdf", 'say "hi" & $HOME *.pdf', "  spaced  ", "--json", ""]

pytestmark = [pytest.mark.unit, pytest.mark.skipif(JUST is None, reason="just is installed by ./just or bootstrap")]


def _recipes() -> dict[str, dict]:
    out = subprocess.run(
        [JUST, "--justfile", str(REPO / "Justfile"), "--dump", "--dump-format", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)["recipes"]


def _argument_recipes() -> list[str]:
    return sorted(name for name, r in _recipes().items() if r["parameters"])


def test_the_recipes_that_take_arguments_are_found() -> None:
    assert {"ats", "test", "test-fast"} <= set(_argument_recipes())


@pytest.mark.parametrize("recipe", _argument_recipes() if JUST else [])
def test_recipe_passes_its_arguments_through_intact(recipe: str, tmp_path: Path) -> None:
    """Run the recipe with its interpreter swapped for a printer (`--set PY`), no deps."""
    printer = tmp_path / "printargs"
    printer.write_text('#!/bin/sh\nfor a in "$@"; do printf "%s\\0" "$a"; done\n')
    printer.chmod(0o755)
    res = subprocess.run(
        [JUST, "--justfile", str(REPO / "Justfile"), "--no-deps", "--set", "PY", str(printer), recipe, *HOSTILE],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert res.returncode == 0, res.stderr
    printed = res.stdout.split("\0")[:-1]
    # Whatever the recipe puts first (e.g. `-m ats.cli`), the user's arguments come last, unchanged.
    assert printed[-len(HOSTILE) :] == HOSTILE, printed


def test_ats_runs_from_any_directory_of_the_checkout(tmp_path: Path) -> None:
    """`[no-cd]`: a relative path means what it means in the user's shell."""
    sub = REPO / "docs"
    # As a user's shell: not the test runner's extra test apps (importable from the root only).
    env = {k: v for k, v in os.environ.items() if k not in {"ATS_EXTRA_APPS", "PYTHONPATH"}}
    res = subprocess.run(
        [JUST, "ats", "ingest", "--json", "no such dir/Jane O'Neil CV (2026).pdf"],
        capture_output=True,
        text=True,
        cwd=sub,
        env=env,
        timeout=120,
    )
    assert res.returncode == 2, res.stdout + res.stderr
    assert "no such dir/Jane O'Neil CV (2026).pdf: no such file" in res.stderr
    assert res.stdout == ""


def _recipe_argv(recipe: str, printer: Path, env: dict[str, str]) -> list[str]:
    """What `recipe` hands to {{PY}}, with {{PY}} set to `printer` (no test is run)."""
    res = subprocess.run(
        [JUST, "--justfile", str(REPO / "Justfile"), "--no-deps", "--set", "PY", str(printer), recipe],
        capture_output=True,
        text=True,
        cwd=printer.parent,
        env=env,
        timeout=60,
    )
    assert res.returncode == 0, res.stderr
    return res.stdout.split("\0")[:-1]


@pytest.mark.parametrize("recipe", ["test", "test-fast"])
def test_test_recipes_run_in_parallel_with_a_configurable_worker_count(recipe: str, tmp_path: Path) -> None:
    """CI's 2 cores: the pytest stage fits its time only with xdist (docs/testing.md)."""
    printer = tmp_path / "printargs"
    printer.write_text('#!/bin/sh\nfor a in "$@"; do printf "%s\\0" "$a"; done\n')
    printer.chmod(0o755)
    env = {**os.environ, "ATS_TEST_WORKERS": "3"}
    printed = _recipe_argv(recipe, printer, env)
    assert printed[printed.index("-n") + 1] == "3", printed
    assert printed[printed.index("--dist") + 1] == "worksteal", printed
    # The defaults: the gate one worker per core plus one (its slow tests wait more than
    # they compute), the CPU-bound fast loop one per core (docs/testing.md, "Running").
    del env["ATS_TEST_WORKERS"]
    printed = _recipe_argv(recipe, printer, env)
    cores = len(os.sched_getaffinity(0))  # what nproc counts
    assert printed[printed.index("-n") + 1] == str(cores + 1 if recipe == "test" else cores), printed


def test_every_recipe_says_what_it_does_in_one_line() -> None:
    """`just` lists each recipe with its doc: the [doc] attribute or the comment line right
    above it. A wrapped comment's last line ("docs/testing.md), each with ...") is no
    description; each begins as a sentence does."""
    for name, recipe in _recipes().items():
        doc = recipe.get("doc") or ""
        assert doc[:1].isupper(), (name, doc)
        assert not doc.rstrip().endswith((",", "(", "-")), (name, doc)
