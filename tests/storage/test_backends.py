"""Backend-specific behaviour: local atomicity/symlinks, Azure pinning/errors/metadata,
and the Azurite harness itself."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from azure.core.exceptions import HttpResponseError
from azure.storage.blob import BlobServiceClient

from ats.devtools.api import AzuriteLocal, dev_connection_string, free_tcp_port
from ats.storage.api import InvalidName, PutResult, StorageUnavailable, store_from_config

# --------------------------------------------------------------------------- local


def test_local_layout_and_no_leftover_temp_files(tmp_path: Path) -> None:
    store = store_from_config("local", root=tmp_path)
    store.ensure_container("documents")
    store.put("documents", "a/b/cv.pdf", b"v1")
    store.put("documents", "a/b/cv.pdf", b"v2", overwrite=True)
    files = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert files == ["documents/a/b/cv.pdf"]
    assert (tmp_path / "documents/a/b/cv.pdf").stat().st_mode & 0o777 == 0o600


def test_local_never_follows_planted_symlinks(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_bytes(b"secret")
    store = store_from_config("local", root=tmp_path / "root")
    store.ensure_container("documents")
    (tmp_path / "root/documents/link").symlink_to(outside / "secret")
    (tmp_path / "root/documents/dirlink").symlink_to(outside)
    with pytest.raises(InvalidName):
        store.get("documents", "link")
    with pytest.raises(InvalidName):
        store.get("documents", "dirlink/secret")
    with pytest.raises(InvalidName):
        store.put("documents", "dirlink/new", b"x")
    assert sorted(p.name for p in outside.iterdir()) == ["secret"]


def test_local_promote_raced_by_another_promote_of_the_same_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two promotes of one key at once (a redelivered ingest beside its first run): the one
    whose source vanished between its check and its rename reports ALREADY_PROMOTED, not a
    FileNotFoundError that would fail the job (seen in CI: a test's in-process ingest beside
    the stack's worker)."""
    from ats.storage import local
    from ats.storage.api import PromoteResult

    store = store_from_config("local", root=tmp_path)
    other = store_from_config("local", root=tmp_path)
    for c in ("intake-quarantine", "documents"):
        store.ensure_container(c)
    store.put("intake-quarantine", "2026/cv.pdf", b"%PDF-1.7 cv")
    real_rename = local._rename_noreplace

    def beaten(src: Path, dst: Path) -> bool:
        monkeypatch.setattr(local, "_rename_noreplace", real_rename)
        assert other.promote("intake-quarantine", "2026/cv.pdf", "documents") is PromoteResult.PROMOTED
        return real_rename(src, dst)  # the source is gone now: ENOENT

    monkeypatch.setattr(local, "_rename_noreplace", beaten)
    assert store.promote("intake-quarantine", "2026/cv.pdf", "documents") is PromoteResult.ALREADY_PROMOTED
    assert store.get("documents", "2026/cv.pdf") == b"%PDF-1.7 cv"
    assert not store.exists("intake-quarantine", "2026/cv.pdf")


# --------------------------------------------------------------------------- azure


def test_azure_stores_sha256_metadata(azurite: AzuriteLocal) -> None:
    store = store_from_config("azure", connection_string=azurite.connection_string)
    container = f"documents-{uuid.uuid4().hex[:8]}"
    store.ensure_container(container)
    store.ensure_container(container)  # idempotent
    assert store.put(container, "cv.pdf", b"bytes") is PutResult.CREATED
    client = BlobServiceClient.from_connection_string(azurite.connection_string, api_version="2025-11-05")
    props = client.get_blob_client(container, "cv.pdf").get_blob_properties()
    assert props.metadata["sha256"] == hashlib.sha256(b"bytes").hexdigest()


def test_azure_unpinned_api_version_is_rejected_by_azurite(azurite: AzuriteLocal) -> None:
    # Why DEFAULT_API_VERSION is pinned: the SDK's default is newer than Azurite knows.
    client = BlobServiceClient.from_connection_string(azurite.connection_string, retry_total=0)
    with pytest.raises(HttpResponseError) as info:
        client.create_container(f"x-{uuid.uuid4().hex[:8]}")
    assert info.value.status_code == 400


def test_azure_unreachable_is_storage_unavailable() -> None:
    store = store_from_config(
        "azure",
        connection_string=dev_connection_string(port=free_tcp_port()),
        retry_total=0,
        connection_timeout=1,
    )
    started = time.monotonic()
    with pytest.raises(StorageUnavailable):
        store.put("documents", "cv.pdf", b"x")
    with pytest.raises(StorageUnavailable):
        store.get("documents", "cv.pdf")
    assert time.monotonic() - started < 5


def test_azure_copy_through_worker_when_server_side_copy_is_off(azurite: AzuriteLocal) -> None:
    store = store_from_config("azure", connection_string=azurite.connection_string, server_side_copy=False)
    q, docs = f"q-{uuid.uuid4().hex[:8]}", f"d-{uuid.uuid4().hex[:8]}"
    store.ensure_container(q)
    store.ensure_container(docs)
    store.put(q, "cv.pdf", b"bytes")
    assert store.promote(q, "cv.pdf", docs).value == "promoted"
    assert store.get(docs, "cv.pdf") == b"bytes"


def test_azure_repr_does_not_leak_the_account_key(azurite: AzuriteLocal) -> None:
    store = store_from_config("azure", connection_string=azurite.connection_string)
    assert "AccountKey" not in repr(store) and "Eby8" not in repr(store)


# --------------------------------------------------------------------------- harness


def test_azurite_harness_reports_its_startup(azurite: AzuriteLocal) -> None:
    # The start-up time is reported, not bounded: a ceiling (once < 10 s) measured the
    # machine's load (issue 22 item 8); `running` is the event that matters.
    assert azurite.running
    assert azurite.startup_seconds is not None and azurite.startup_seconds > 0
    print(f"azurite started in {azurite.startup_seconds:.1f} s")


def test_azurite_cli_runs_in_the_foreground(tmp_path: Path) -> None:
    port = free_tcp_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ats.devtools.azurite_local", "--location", str(tmp_path), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        store = store_from_config("azure", connection_string=dev_connection_string(port=port), retry_total=0)
        deadline = time.monotonic() + 20
        while True:
            try:
                store.ensure_container("documents")
                break
            except StorageUnavailable:
                assert proc.poll() is None
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert store.put("documents", "k", b"v") is PutResult.CREATED
        # exec'd: the pid we started is node itself.
        assert os.path.basename(os.readlink(f"/proc/{proc.pid}/exe")).startswith("node")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
