"""Issue 21 N4: a blob written in pieces (the web upload streams each file this way) -
against the local store and a real Azurite: whole or nothing, hashed on the way, the
first bytes kept for the magic, never held whole by the writer."""

from __future__ import annotations

import hashlib
import os

import pytest

from ats.storage.api import BlobConflict, BlobNotFound, BlobStore

CHUNK = 256 * 1024


def test_a_streamed_blob_is_stored_whole_with_its_hash_and_head(store: BlobStore, containers: tuple[str, str]) -> None:
    quarantine, _ = containers
    data = b"%PDF-1.7\n" + os.urandom(9 * 1024 * 1024 + 123)  # over two 4 MiB Azure blocks
    writer = store.open_writer(quarantine, "2026/12/01/streamed")
    for i in range(0, len(data), CHUNK):
        writer.write(data[i : i + CHUNK])
    with pytest.raises(BlobNotFound):  # nothing visible before commit
        store.get(quarantine, "2026/12/01/streamed")
    written = writer.commit()
    assert written.size == len(data) and written.sha256 == hashlib.sha256(data).hexdigest()
    assert written.head == data[:4096] and written.head.startswith(b"%PDF-")
    assert store.get(quarantine, "2026/12/01/streamed", max_bytes=len(data)) == data
    # put() of the same bytes afterwards sees them as the same blob (same metadata).
    assert store.put(quarantine, "2026/12/01/streamed", data).value == "unchanged"


def test_an_aborted_write_leaves_nothing(store: BlobStore, containers: tuple[str, str]) -> None:
    quarantine, _ = containers
    writer = store.open_writer(quarantine, "2026/12/01/aborted")
    writer.write(b"x" * CHUNK)
    writer.abort()
    with pytest.raises(BlobNotFound):
        store.get(quarantine, "2026/12/01/aborted")
    assert [b.key for b in store.list_blobs(quarantine)] == []


def test_an_empty_file_and_an_existing_key(store: BlobStore, containers: tuple[str, str]) -> None:
    quarantine, _ = containers
    empty = store.open_writer(quarantine, "2026/12/01/empty").commit()
    assert empty.size == 0 and store.get(quarantine, "2026/12/01/empty") == b""
    store.put(quarantine, "2026/12/01/taken", b"first")
    writer = store.open_writer(quarantine, "2026/12/01/taken")
    writer.write(b"second")
    with pytest.raises(BlobConflict):
        writer.commit()
    assert store.get(quarantine, "2026/12/01/taken") == b"first"
