"""Fixtures for ats.storage: the same contract suite runs against the local filesystem
store and the Azure store talking to a real Azurite (node_modules/.bin/azurite-blob).
No Django."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from ats.devtools.api import AzuriteLocal
from ats.storage.api import BlobStore, store_from_config


@pytest.fixture(autouse=True, scope="session")
def _settings_for_in_process_calls() -> None:
    """Override the root conftest's autouse fixture: these tests need neither Django nor clamd."""


@pytest.fixture(scope="session")
def azurite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AzuriteLocal]:
    with AzuriteLocal(location=tmp_path_factory.mktemp("azurite"), silent=True) as server:
        yield server


@pytest.fixture(params=["local", "azure"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> BlobStore:
    if request.param == "local":
        return store_from_config("local", root=tmp_path / "blobs")
    azurite: AzuriteLocal = request.getfixturevalue("azurite")
    return store_from_config("azure", connection_string=azurite.connection_string)


@pytest.fixture
def containers(store: BlobStore) -> tuple[str, str]:
    """Fresh (quarantine, documents) containers per test; Azurite state is session-wide."""
    suffix = uuid.uuid4().hex[:12]
    names = (f"intake-quarantine-{suffix}", f"documents-{suffix}")
    for name in names:
        store.ensure_container(name)
    return names
