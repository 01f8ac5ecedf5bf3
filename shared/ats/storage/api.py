"""Public facade of ``ats.storage``: the factory, the interface and the name rules.

Typical intake use::

    store = store_for(ats_settings())   # the kind ATS_STORAGE_KIND names, from the registry
    store.put(QUARANTINE_CONTAINER, key, data)            # idempotent
    ...scan...
    store.promote(QUARANTINE_CONTAINER, key, DOCUMENTS_CONTAINER)  # clean only
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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
    "store_for",
    "store_from_config",
    "validate_container",
    "validate_key",
]


def _local(**opts: Any) -> BlobStore:
    from ats.storage.local import LocalBlobStore

    return LocalBlobStore(**opts)


def _azure(**opts: Any) -> BlobStore:
    # Imported lazily: the Azure SDK costs import time and is unused with "local".
    from ats.storage.azure_blob import AzureBlobStore

    return AzureBlobStore(**opts)


# The one registry of store kinds: each kind's factory, and the ATS settings it reads when
# a module asks for "the" store (store_for). A new kind is one row here, not an `if` in
# every module that holds blobs.
_KINDS: dict[str, tuple[Callable[..., BlobStore], Callable[[Mapping[str, Any]], dict[str, Any]]]] = {
    "local": (_local, lambda cfg: {"root": cfg["STORAGE_LOCAL_ROOT"]}),
    "azure": (_azure, lambda cfg: {"connection_string": cfg["AZURE_BLOB_CONNECTION_STRING"]}),
}
STORE_KINDS = tuple(_KINDS)


def _kind(kind: str) -> tuple[Callable[..., BlobStore], Callable[[Mapping[str, Any]], dict[str, Any]]]:
    try:
        return _KINDS[kind]
    except KeyError:
        raise ValueError(f"unknown blob store kind {kind!r}; expected one of {', '.join(STORE_KINDS)}") from None


def store_from_config(kind: str, **opts: Any) -> BlobStore:
    """Build a store of `kind` with explicit options.

    ``kind="local"``: ``root=`` (a directory), optional ``max_get_bytes=``.
    ``kind="azure"``: ``connection_string=`` (or ``account_url=`` + ``credential=``),
    optional ``api_version``, ``max_get_bytes``, ``connection_timeout``,
    ``read_timeout``, ``retry_total``, ``server_side_copy``, ``copy_timeout``.
    """
    factory, _ = _kind(kind)
    return factory(**opts)


def store_for(cfg: Mapping[str, Any]) -> BlobStore:
    """The store the ATS settings name (``settings.ATS``, i.e. ``ats_settings()``):
    ``STORAGE_KIND`` picks the kind, which reads its own settings
    (``STORAGE_LOCAL_ROOT`` / ``AZURE_BLOB_CONNECTION_STRING``). An unknown kind is an
    error naming the known ones, not a silent fall back to local disk."""
    factory, options = _kind(cfg["STORAGE_KIND"])
    return factory(**options(cfg))
