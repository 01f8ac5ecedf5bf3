"""Public facade of ``ats.storage``: the factory, the interface and the name rules.

Typical intake use::

    store = store_from_config(settings.BLOB_STORE_KIND, **settings.BLOB_STORE_OPTIONS)
    store.put(QUARANTINE_CONTAINER, key, data)            # idempotent
    ...scan...
    store.promote(QUARANTINE_CONTAINER, key, DOCUMENTS_CONTAINER)  # clean only
"""

from __future__ import annotations

from typing import Any

from ats.storage.base import BlobStore, BlobWriter, WrittenBlob, validate_container, validate_key
from ats.storage.data import (
    DEFAULT_MAX_GET_BYTES,
    DERIVATIVES_CONTAINER,
    DOCUMENTS_CONTAINER,
    QUARANTINE_CONTAINER,
    BlobConflict,
    BlobInfo,
    BlobNotFound,
    BlobTooLarge,
    ContainerNotFound,
    InvalidName,
    PromoteResult,
    PutResult,
    StorageError,
    StorageUnavailable,
)

STORE_KINDS = ("local", "azure")

__all__ = [
    "DEFAULT_MAX_GET_BYTES",
    "DERIVATIVES_CONTAINER",
    "DOCUMENTS_CONTAINER",
    "QUARANTINE_CONTAINER",
    "STORE_KINDS",
    "BlobConflict",
    "BlobInfo",
    "BlobNotFound",
    "BlobStore",
    "BlobTooLarge",
    "BlobWriter",
    "ContainerNotFound",
    "InvalidName",
    "PromoteResult",
    "PutResult",
    "StorageError",
    "StorageUnavailable",
    "WrittenBlob",
    "store_from_config",
    "validate_container",
    "validate_key",
]


def store_from_config(kind: str, **opts: Any) -> BlobStore:
    """Build a store from settings.

    ``kind="local"``: ``root=`` (a directory), optional ``max_get_bytes=``.
    ``kind="azure"``: ``connection_string=`` (or ``account_url=`` + ``credential=``),
    optional ``api_version``, ``max_get_bytes``, ``connection_timeout``,
    ``read_timeout``, ``retry_total``, ``server_side_copy``, ``copy_timeout``.
    """
    if kind == "local":
        from ats.storage.local import LocalBlobStore

        return LocalBlobStore(**opts)
    if kind == "azure":
        # Imported lazily: the Azure SDK costs import time and is unused with "local".
        from ats.storage.azure_blob import AzureBlobStore

        return AzureBlobStore(**opts)
    raise ValueError(f"unknown blob store kind {kind!r}; expected one of {STORE_KINDS}")
