"""One contract, two backends: every test runs against LocalBlobStore and AzureBlobStore
(on Azurite)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from ats.storage.api import (
    BlobConflict,
    BlobNotFound,
    BlobStore,
    BlobTooLarge,
    ContainerNotFound,
    InvalidName,
    PromoteResult,
    PutResult,
    store_from_config,
)

KEY = "applications/6f1c2a7e-1b2d-4c1e-9a43-2f4c1c0f9d10/cv.pdf"
DATA = b"%PDF-1.7\nnot really a CV\n%%EOF\n"


def test_put_get_exists_delete(store: BlobStore, containers: tuple[str, str]) -> None:
    q, _ = containers
    assert not store.exists(q, KEY)
    assert store.put(q, KEY, DATA) is PutResult.CREATED
    assert store.exists(q, KEY)
    assert store.get(q, KEY) == DATA
    assert store.delete(q, KEY) is True
    assert store.delete(q, KEY) is False  # idempotent
    assert not store.exists(q, KEY)
    with pytest.raises(BlobNotFound):
        store.get(q, KEY)


def test_put_is_idempotent_for_identical_bytes(store: BlobStore, containers: tuple[str, str]) -> None:
    q, _ = containers
    assert store.put(q, KEY, DATA) is PutResult.CREATED
    assert store.put(q, KEY, DATA) is PutResult.UNCHANGED
    assert store.put(q, KEY, DATA, overwrite=True) is PutResult.UNCHANGED


def test_put_refuses_different_bytes_without_overwrite(store: BlobStore, containers: tuple[str, str]) -> None:
    q, _ = containers
    store.put(q, KEY, DATA)
    with pytest.raises(BlobConflict):
        store.put(q, KEY, DATA + b"tampered")
    with pytest.raises(BlobConflict):  # same length, different bytes
        store.put(q, KEY, DATA[:-1] + b"!")
    assert store.get(q, KEY) == DATA
    assert store.put(q, KEY, b"v2", overwrite=True) is PutResult.REPLACED
    assert store.get(q, KEY) == b"v2"


def test_empty_object(store: BlobStore, containers: tuple[str, str]) -> None:
    q, _ = containers
    assert store.put(q, "empty", b"") is PutResult.CREATED
    assert store.get(q, "empty") == b""
    assert store.put(q, "empty", b"") is PutResult.UNCHANGED


def test_concurrent_identical_puts_create_once(store: BlobStore, containers: tuple[str, str]) -> None:
    q, _ = containers
    results: list[PutResult] = []
    barrier = threading.Barrier(6)

    def worker() -> None:
        barrier.wait()
        results.append(store.put(q, KEY, DATA))

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == sorted([PutResult.CREATED] + [PutResult.UNCHANGED] * 5)
    assert store.get(q, KEY) == DATA


def test_get_enforces_max_bytes(store: BlobStore, containers: tuple[str, str]) -> None:
    q, _ = containers
    store.put(q, KEY, b"x" * 1000)
    assert store.get(q, KEY, max_bytes=1000) == b"x" * 1000
    with pytest.raises(BlobTooLarge):
        store.get(q, KEY, max_bytes=999)


def test_large_object_and_cap_beyond_first_chunk(store: BlobStore, containers: tuple[str, str]) -> None:
    q, _ = containers
    data = os.urandom(5 * 1024 * 1024 + 7)  # > the Azure store's 4 MiB download chunk
    store.put(q, KEY, data)
    assert store.get(q, KEY) == data
    with pytest.raises(BlobTooLarge):
        store.get(q, KEY, max_bytes=len(data) - 1)


def test_promote_moves_quarantine_to_documents(store: BlobStore, containers: tuple[str, str]) -> None:
    q, docs = containers
    store.put(q, KEY, DATA)
    assert store.promote(q, KEY, docs) is PromoteResult.PROMOTED
    assert store.get(docs, KEY) == DATA
    assert not store.exists(q, KEY)  # no forgotten copy of personal data in quarantine
    # A retried task after a completed promote is a no-op.
    assert store.promote(q, KEY, docs) is PromoteResult.ALREADY_PROMOTED


def test_promote_finishes_after_a_crash_between_copy_and_delete(store: BlobStore, containers: tuple[str, str]) -> None:
    q, docs = containers
    store.put(q, KEY, DATA)
    assert store.copy(q, KEY, docs) is PutResult.CREATED  # ...then the worker died
    assert store.promote(q, KEY, docs) is PromoteResult.PROMOTED
    assert not store.exists(q, KEY)
    assert store.get(docs, KEY) == DATA


def test_promote_refuses_to_clobber_different_bytes(store: BlobStore, containers: tuple[str, str]) -> None:
    q, docs = containers
    store.put(q, KEY, DATA)
    store.put(docs, KEY, b"something else")
    with pytest.raises(BlobConflict):
        store.promote(q, KEY, docs)
    assert store.get(q, KEY) == DATA  # the quarantined bytes stay put
    assert store.get(docs, KEY) == b"something else"


def test_promote_of_nothing(store: BlobStore, containers: tuple[str, str]) -> None:
    q, docs = containers
    with pytest.raises(BlobNotFound):
        store.promote(q, KEY, docs)


def test_copy_to_another_key(store: BlobStore, containers: tuple[str, str]) -> None:
    q, docs = containers
    store.put(q, KEY, DATA)
    assert store.copy(q, KEY, docs, dst_key="archive/cv.pdf") is PutResult.CREATED
    assert store.copy(q, KEY, docs, dst_key="archive/cv.pdf") is PutResult.UNCHANGED
    assert store.get(docs, "archive/cv.pdf") == DATA
    assert store.exists(q, KEY)
    store.put(q, "other", b"other bytes")
    with pytest.raises(BlobConflict):
        store.copy(q, "other", docs, dst_key="archive/cv.pdf")
    assert store.copy(q, "other", docs, dst_key="archive/cv.pdf", overwrite=True) is PutResult.REPLACED
    assert store.get(docs, "archive/cv.pdf") == b"other bytes"


def test_missing_container(store: BlobStore) -> None:
    with pytest.raises(ContainerNotFound):
        store.put("no-such-container", KEY, DATA)


@pytest.mark.parametrize(
    "key",
    [
        "../escape",
        "a/../../etc/passwd",
        "/etc/passwd",
        "a//b",
        "a/./b",
        "a\\..\\b",
        ".hidden",
        "a/.ats-tmp-123",
        "trailing/",
        "trailing.",
        "nul\x00byte",
        "spa ce",
        "",
        "x" * 513,
        "/".join(["d"] * 17),
    ],
)
def test_unsafe_keys_are_rejected(store: BlobStore, containers: tuple[str, str], key: str) -> None:
    q, docs = containers
    for call in (
        lambda: store.put(q, key, DATA),
        lambda: store.get(q, key),
        lambda: store.exists(q, key),
        lambda: store.delete(q, key),
        lambda: store.promote(q, key, docs),
    ):
        with pytest.raises(InvalidName):
            call()


@pytest.mark.parametrize("container", ["..", "../etc", "UPPER", "ab", "a--b", "-ab", "with/slash", "x" * 64])
def test_unsafe_container_names_are_rejected(store: BlobStore, container: str) -> None:
    with pytest.raises(InvalidName):
        store.put(container, KEY, DATA)
    with pytest.raises(InvalidName):
        store.ensure_container(container)


def test_store_from_config_rejects_unknown_kind(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown blob store kind"):
        store_from_config("s3", root=tmp_path)


def test_default_max_get_bytes_comes_from_config(store: BlobStore, containers: tuple[str, str]) -> None:
    q, _ = containers
    store.put(q, KEY, b"x" * 100)
    store.max_get_bytes = 99
    with pytest.raises(BlobTooLarge):
        store.get(q, KEY)
    assert store.get(q, KEY, max_bytes=100) == b"x" * 100


def test_list_blobs_names_every_object_with_size_and_age(store: BlobStore, containers: tuple[str, str]) -> None:
    import datetime

    quarantine, documents = containers
    store.put(quarantine, "2026/11/30/a", b"abc")
    store.put(quarantine, "2026/11/30/b", b"")
    store.put(quarantine, "other/c", b"12345")
    store.put(documents, "2026/11/30/d", b"x")
    listed = {b.key: b for b in store.list_blobs(quarantine)}
    assert set(listed) == {"2026/11/30/a", "2026/11/30/b", "other/c"}
    assert (listed["2026/11/30/a"].size, listed["other/c"].size, listed["2026/11/30/b"].size) == (3, 5, 0)
    now = datetime.datetime.now(datetime.UTC)
    for info in listed.values():
        assert info.container == quarantine
        assert abs((now - info.last_modified).total_seconds()) < 120
    assert {b.key for b in store.list_blobs(quarantine, prefix="2026/")} == {"2026/11/30/a", "2026/11/30/b"}
    store.delete(quarantine, "other/c")
    assert "other/c" not in {b.key for b in store.list_blobs(quarantine)}
