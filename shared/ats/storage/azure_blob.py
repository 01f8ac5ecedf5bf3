"""Azure Blob Storage ``BlobStore`` (azure-storage-blob), tested against Azurite.

* ``api_version`` is pinned: azure-storage-blob 12.31 defaults to a service version
  (2026-10-06) that Azurite 3.35 rejects; 2025-11-05 is accepted by both Azurite and
  Azure. Bump it together with the Azurite pin in /package.json.
* Every object carries ``sha256`` metadata, written at put and carried along by
  server-side copy, so idempotency checks compare hashes with a HEAD instead of
  downloading. Objects without it (written by other tools) fall back to a byte compare.
* No-overwrite writes use ``If-None-Match: *`` so two workers racing on one key cannot
  both "create" it.
* promote/copy uses server-side Copy Blob (``start_copy_from_url``) within the account.
  It is authorised by the destination request's shared key. With an Entra ID
  credential, check that same-account copy is authorised for the identity, or pass
  ``server_side_copy=False`` to copy through the worker instead.
"""

from __future__ import annotations

import base64
import hashlib
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

from azure.core import MatchConditions
from azure.core.exceptions import (
    AzureError,
    HttpResponseError,
    ResourceExistsError,
    ResourceModifiedError,
    ResourceNotFoundError,
    ServiceRequestError,
    ServiceResponseError,
)
from azure.storage.blob import BlobBlock, BlobClient, BlobServiceClient, ContentSettings

from ats.storage.base import BlobStore, BlobWriter, validate_container, validate_key
from ats.storage.data import (
    DEFAULT_MAX_GET_BYTES,
    BlobConflict,
    BlobInfo,
    BlobNotFound,
    BlobTooLarge,
    ContainerNotFound,
    PutResult,
    StorageError,
    StorageUnavailable,
)

DEFAULT_API_VERSION = "2025-11-05"
_SHA_KEY = "sha256"
# Download in 4 MiB pieces: an over-cap blob is refused after the first piece instead
# of after the SDK's default 32 MiB first GET.
_GET_CHUNK = 4 * 1024 * 1024


class AzureBlobStore(BlobStore):
    def __init__(
        self,
        *,
        connection_string: str | None = None,
        account_url: str | None = None,
        credential: Any = None,
        api_version: str = DEFAULT_API_VERSION,
        max_get_bytes: int = DEFAULT_MAX_GET_BYTES,
        connection_timeout: float = 5.0,
        read_timeout: float = 60.0,
        retry_total: int = 3,
        server_side_copy: bool = True,
        copy_timeout: float = 60.0,
    ) -> None:
        client_opts: dict[str, Any] = {
            "api_version": api_version,
            "connection_timeout": connection_timeout,
            "read_timeout": read_timeout,
            # The SDK default (10 retries, exponential) can stall a worker for minutes;
            # our task layer retries with its own policy on StorageUnavailable.
            "retry_total": retry_total,
            "max_single_get_size": _GET_CHUNK,
            "max_chunk_get_size": _GET_CHUNK,
        }
        if connection_string and not account_url:
            self._service = BlobServiceClient.from_connection_string(connection_string, **client_opts)
        elif account_url and not connection_string:
            self._service = BlobServiceClient(account_url, credential=credential, **client_opts)
        else:
            raise ValueError("AzureBlobStore needs exactly one of connection_string or account_url")
        self.max_get_bytes = max_get_bytes
        self.server_side_copy = server_side_copy
        self.copy_timeout = copy_timeout

    def __repr__(self) -> str:
        # Never the connection string: it contains the account key.
        return f"AzureBlobStore(account_url={self._service.url!r})"

    def _blob(self, container: str, key: str) -> BlobClient:
        return self._service.get_blob_client(validate_container(container), validate_key(key))

    # ----------------------------------------------------------------- interface

    def ensure_container(self, container: str) -> None:
        with _mapped(container), suppress(ResourceExistsError):
            self._service.create_container(validate_container(container))

    def put(self, container: str, key: str, data: bytes, *, overwrite: bool = False) -> PutResult:
        blob = self._blob(container, key)
        digest = hashlib.sha256(data).hexdigest()
        with _mapped(container, key):
            existed = False
            if overwrite:
                props = _properties(blob)
                if props is not None:
                    existed = True
                    if self._same(blob, props, data, digest):
                        return PutResult.UNCHANGED
            try:
                blob.upload_blob(
                    data,
                    overwrite=overwrite,
                    metadata={_SHA_KEY: digest},
                    content_settings=ContentSettings(content_type="application/octet-stream"),
                    # Transport integrity: the service checks a per-request MD5.
                    validate_content=True,
                    max_concurrency=1,
                )
            except ResourceExistsError:
                props = _properties(blob)
                if props is not None and self._same(blob, props, data, digest):
                    return PutResult.UNCHANGED
                raise BlobConflict(f"{container}/{key} exists with different content") from None
            return PutResult.REPLACED if existed else PutResult.CREATED

    def open_writer(self, container: str, key: str) -> BlobWriter:
        return _AzureWriter(self._blob(container, key), container, key)

    def list_blobs(self, container: str, *, prefix: str = "") -> Iterator[BlobInfo]:
        client = self._service.get_container_client(validate_container(container))
        with _mapped(container):
            for blob in client.list_blobs(name_starts_with=prefix or None):
                yield BlobInfo(container, blob.name, int(blob.size or 0), blob.last_modified)

    def get(self, container: str, key: str, *, max_bytes: int | None = None) -> bytes:
        cap = self.max_get_bytes if max_bytes is None else max_bytes
        blob = self._blob(container, key)
        with _mapped(container, key):
            downloader = blob.download_blob(max_concurrency=1)
            # properties.size is the whole blob even though only the first chunk has
            # been fetched so far.
            if downloader.properties.size > cap:
                raise BlobTooLarge(f"{container}/{key} is larger than {cap} bytes")
            data = downloader.readall()
        if len(data) > cap:  # the blob was replaced by a larger one mid-download
            raise BlobTooLarge(f"{container}/{key} is larger than {cap} bytes")
        return data

    def exists(self, container: str, key: str) -> bool:
        blob = self._blob(container, key)
        with _mapped(container, key):
            return bool(blob.exists())

    def delete(self, container: str, key: str) -> bool:
        blob = self._blob(container, key)
        with _mapped(container, key):
            try:
                blob.delete_blob(delete_snapshots="include")
            except ResourceNotFoundError as exc:
                if _code(exc) == "ContainerNotFound":
                    raise
                return False
        return True

    def copy(
        self,
        src_container: str,
        key: str,
        dst_container: str,
        *,
        dst_key: str | None = None,
        overwrite: bool = False,
    ) -> PutResult:
        if not self.server_side_copy:
            data = self.get(src_container, key)
            return self.put(dst_container, dst_key or key, data, overwrite=overwrite)
        src = self._blob(src_container, key)
        dst = self._blob(dst_container, dst_key or key)
        with _mapped(dst_container, dst_key or key):
            src_props = _properties(src)
            if src_props is None:
                raise BlobNotFound(f"{src_container}/{key}")
            dst_props = _properties(dst)
            if dst_props is not None:
                if self._same_blobs(src, src_props, dst, dst_props):
                    return PutResult.UNCHANGED
                if not overwrite:
                    raise BlobConflict(f"{dst_container}/{dst_key or key} exists with different content")
            conditions: dict[str, Any] = {} if overwrite else {"match_condition": MatchConditions.IfMissing}
            try:
                # Pin the source version we compared against.
                dst.start_copy_from_url(
                    src.url,
                    source_etag=src_props.etag,
                    source_match_condition=MatchConditions.IfNotModified,
                    **conditions,
                )
            except ResourceExistsError:
                # A concurrent copy/put won the race; decide like put does.
                dst_props = _properties(dst)
                if dst_props is not None and self._same_blobs(src, src_props, dst, dst_props):
                    return PutResult.UNCHANGED
                raise BlobConflict(f"{dst_container}/{dst_key or key} exists with different content") from None
            except ResourceNotFoundError as exc:
                if _code(exc) == "ContainerNotFound":
                    raise
                # Source vanished after our HEAD (Azure says CannotVerifyCopySource).
                raise BlobNotFound(f"{src_container}/{key}") from exc
            self._wait_for_copy(dst)
            return PutResult.REPLACED if dst_props is not None else PutResult.CREATED

    # ----------------------------------------------------------------- internals

    def _wait_for_copy(self, dst: BlobClient) -> None:
        # Same-account copies normally finish before start_copy_from_url returns
        # ("success"); large ones may report "pending" for a while.
        deadline = time.monotonic() + self.copy_timeout
        delay = 0.05
        while True:
            copy = dst.get_blob_properties().copy
            if copy.status in (None, "success"):
                return
            if copy.status in ("failed", "aborted"):
                raise StorageError(f"copy to {dst.blob_name} {copy.status}: {copy.status_description}")
            if time.monotonic() > deadline:
                if copy.id:
                    dst.abort_copy(copy.id)
                raise StorageUnavailable(f"copy to {dst.blob_name} still pending after {self.copy_timeout}s")
            time.sleep(delay)
            delay = min(delay * 2, 1.0)

    def _same(self, blob: BlobClient, props: Any, data: bytes, digest: str) -> bool:
        if props.size != len(data):
            return False
        stored = (props.metadata or {}).get(_SHA_KEY)
        if stored is not None:
            return bool(stored == digest)
        return bool(blob.download_blob(max_concurrency=1).readall() == data)

    def _same_blobs(self, src: BlobClient, sp: Any, dst: BlobClient, dp: Any) -> bool:
        if sp.size != dp.size:
            return False
        s_sha = (sp.metadata or {}).get(_SHA_KEY)
        d_sha = (dp.metadata or {}).get(_SHA_KEY)
        if s_sha is not None and d_sha is not None:
            return bool(s_sha == d_sha)
        s = src.download_blob(max_concurrency=1).readall()
        d = dst.download_blob(max_concurrency=1).readall()
        return bool(s == d)


def _code(exc: AzureError) -> str | None:
    # The storage SDK attaches ``error_code`` (x-ms-error-code) at runtime; azure-core's
    # types do not declare it.
    # It may be a StorageErrorCode (a str enum whose str() is the member name).
    code = getattr(exc, "error_code", None)
    if code is None:
        return None
    return str(getattr(code, "value", code))


def _properties(blob: BlobClient) -> Any:
    """Blob properties, or None if the blob (not the container) is missing."""
    try:
        return blob.get_blob_properties()
    except ResourceNotFoundError as exc:
        if _code(exc) == "ContainerNotFound":
            raise
        # HEAD responses carry no body, so a missing container can also surface as a
        # bare 404 here; callers' next write reports ContainerNotFound properly.
        return None


@contextmanager
def _mapped(container: str, key: str | None = None) -> Iterator[None]:
    """Translate SDK exceptions into ``ats.storage.data`` errors."""
    where = f"{container}/{key}" if key else container
    try:
        yield
    except StorageError:
        raise
    except ResourceNotFoundError as exc:
        if _code(exc) == "ContainerNotFound":
            raise ContainerNotFound(container) from exc
        raise BlobNotFound(where) from exc
    except (ServiceRequestError, ServiceResponseError) as exc:
        raise StorageUnavailable(f"{where}: {exc}") from exc
    except HttpResponseError as exc:
        if exc.status_code is not None and (exc.status_code >= 500 or exc.status_code == 408):
            raise StorageUnavailable(f"{where}: {exc.status_code} {_code(exc)}") from exc
        raise StorageError(f"{where}: {exc.status_code} {_code(exc)}: {exc.message}") from exc
    except AzureError as exc:
        raise StorageUnavailable(f"{where}: {exc}") from exc


# Staged blocks of a streamed write: one at a time in memory, never the whole file.
_PUT_BLOCK = 4 * 1024 * 1024


class _AzureWriter(BlobWriter):
    """Stages 4 MiB blocks as they fill and commits the block list at the end (the blob
    appears whole, with its sha256 in the metadata as `put` writes it). Abort commits
    nothing: staged blocks of a never-committed blob expire on their own (7 days)."""

    def __init__(self, blob: BlobClient, container: str, key: str) -> None:
        super().__init__()
        self._blob, self._container, self._key = blob, container, key
        self._buf = bytearray()
        self._blocks: list[BlobBlock] = []

    def _stage(self, data: bytes) -> None:
        block_id = base64.b64encode(f"{len(self._blocks):08d}".encode()).decode()
        with _mapped(self._container, self._key):
            self._blob.stage_block(block_id, data, validate_content=True)
        self._blocks.append(BlobBlock(block_id=block_id))

    def _write(self, chunk: bytes) -> None:
        self._buf += chunk
        while len(self._buf) >= _PUT_BLOCK:
            self._stage(bytes(self._buf[:_PUT_BLOCK]))
            del self._buf[:_PUT_BLOCK]

    def _commit(self, sha256: str) -> None:
        if self._buf:
            self._stage(bytes(self._buf))
            self._buf = bytearray()
        with _mapped(self._container, self._key):
            try:
                self._blob.commit_block_list(
                    self._blocks,
                    metadata={_SHA_KEY: sha256},
                    content_settings=ContentSettings(content_type="application/octet-stream"),
                    # A new blob only, as put() without overwrite.
                    match_condition=MatchConditions.IfMissing,
                )
            except (ResourceExistsError, ResourceModifiedError):
                raise BlobConflict(f"{self._container}/{self._key} exists") from None

    def _abort(self) -> None:
        self._buf = bytearray()
