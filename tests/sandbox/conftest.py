"""Fixtures for the sandbox tests: real zygotes and children, no database, no Django.

Run: python -m pytest -p no:django -p no:cacheprovider tests/sandbox -q
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ats.sandbox.api import ForkServerSandbox, SandboxPolicy, load_policy
from ats.sandbox.zygote import PROBES_ENV

HERE = Path(__file__).resolve().parent
# Short caps so CPU and wall probes finish in seconds; everything else as in limits.toml.
SHORT = {"cpu_soft_s": 2, "cpu_hard_s": 3, "wall_s": 4.0, "address_space_budget_mb": 256}


@pytest.fixture(autouse=True, scope="session")
def _settings_for_in_process_calls() -> None:
    """Overrides tests/conftest.py's autouse fixture (clamd + Django): not needed here."""


@pytest.fixture(scope="session")
def policy() -> SandboxPolicy:
    return load_policy()


@pytest.fixture(scope="session")
def short_policy() -> SandboxPolicy:
    return load_policy(**SHORT)


def probe_sandbox(policy: SandboxPolicy, **kwargs: object) -> ForkServerSandbox:
    os.environ[PROBES_ENV] = "1"  # test-only switch; the zygote also needs --test-probes
    return ForkServerSandbox(policy=policy, probes="probes", probes_path=str(HERE), **kwargs)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def probes(short_policy: SandboxPolicy) -> Iterator[ForkServerSandbox]:
    """One zygote for a whole module: every probe must leave it alive for the next."""
    with probe_sandbox(short_policy) as sandbox:
        sandbox.start()
        yield sandbox


@pytest.fixture(scope="module")
def documents(policy: SandboxPolicy) -> Iterator[ForkServerSandbox]:
    """Production configuration: real parser, limits.toml as is, no probes."""
    with ForkServerSandbox(policy=policy) as sandbox:
        sandbox.start()
        yield sandbox
