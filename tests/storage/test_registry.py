"""One registry of store kinds (issue 22 item 6): every module that holds blobs asks
ats.storage for the store its settings name; a kind nobody registered is an error that
names the known kinds, never a silent fall back to local disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from ats.storage.api import STORE_KINDS, store_for
from ats.storage.local import LocalBlobStore

pytestmark = pytest.mark.unit


def test_store_for_builds_the_kind_the_settings_name(tmp_path: Path) -> None:
    store = store_for({"STORAGE_KIND": "local", "STORAGE_LOCAL_ROOT": tmp_path, "AZURE_BLOB_CONNECTION_STRING": ""})
    assert isinstance(store, LocalBlobStore)
    store.ensure_container("documents")
    store.put("documents", "k", b"v")
    assert (tmp_path / "documents" / "k").read_bytes() == b"v"


def test_an_unknown_kind_is_a_clear_error_naming_the_kinds(tmp_path: Path) -> None:
    assert STORE_KINDS == ("local", "azure")
    with pytest.raises(ValueError, match=r"unknown blob store kind 's3'; expected one of local, azure"):
        store_for({"STORAGE_KIND": "s3", "STORAGE_LOCAL_ROOT": tmp_path, "AZURE_BLOB_CONNECTION_STRING": ""})
    assert not any(tmp_path.iterdir())
