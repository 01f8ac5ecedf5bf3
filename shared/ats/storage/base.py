"""The ``BlobStore`` interface, name validation, and the backend-independent promote.

Names are *validated*, never silently rewritten: "sanitising" ``a/../b`` into ``a/b``
would let two different keys address one object. Keys are produced by our own code
(e.g. ``applications/<uuid>/cv``), so anything outside the allowed alphabet is a bug or
an attack and is refused with ``InvalidName``. The rules are the intersection of what
is safe as a relative filesystem path and what Azure Blob accepts without escaping.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from abc import ABC, abstractmethod
from collections.abc import Iterator

from ats.storage.data import BlobInfo, BlobNotFound, InvalidName, PromoteResult, PutResult

# Azure container rules: 3-63 chars, lowercase letters/digits/hyphens, starts and ends
# with a letter or digit, no "--". Enforced for the local store too so a name that
# works in dev also works in production.
_CONTAINER_RE = re.compile(r"^(?!.*--)[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$")
# One path segment: no leading dot (rules out "." / ".." and collisions with the local
# store's ".ats-tmp-*" temp files), no trailing dot (Azure strips it), portable chars.
_SEGMENT_RE = re.compile(r"^[A-Za-z0-9_-](?:[A-Za-z0-9._-]{0,253}[A-Za-z0-9_-])?$")
MAX_KEY_LENGTH = 512
MAX_KEY_DEPTH = 16


def validate_container(name: str) -> str:
    if not isinstance(name, str) or not _CONTAINER_RE.match(name):
        raise InvalidName(f"invalid container name {name!r}")
    return name


def validate_key(key: str) -> str:
    """Return ``key`` unchanged if it is a safe relative ``a/b/c`` path, else raise."""
    if not isinstance(key, str) or not key or len(key) > MAX_KEY_LENGTH:
        raise InvalidName(f"invalid key {key!r}: empty or longer than {MAX_KEY_LENGTH}")
    segments = key.split("/")
    if len(segments) > MAX_KEY_DEPTH:
        raise InvalidName(f"invalid key {key!r}: deeper than {MAX_KEY_DEPTH}")
    for segment in segments:
        if not _SEGMENT_RE.match(segment):
            raise InvalidName(f"invalid key {key!r}: bad segment {segment!r}")
    return key


# How many leading bytes a writer keeps: enough for every signature intake checks.
HEAD_BYTES = 4096


@dataclasses.dataclass(frozen=True)
class WrittenBlob:
    """What a streamed write stored: its size, sha256 and first bytes (for the magic)."""

    size: int
    sha256: str
    head: bytes


class BlobWriter(ABC):
    """A blob written in pieces: `write` each chunk, then `commit` (the blob appears whole,
    atomically) or `abort` (nothing appears). The bytes are hashed and counted on the way,
    so no caller holds the whole file."""

    def __init__(self) -> None:
        self._hash = hashlib.sha256()
        self.size = 0
        self._head = bytearray()
        self.finished = False

    def write(self, chunk: bytes) -> None:
        if self.finished:
            raise ValueError("write after commit/abort")
        self._hash.update(chunk)
        self.size += len(chunk)
        if len(self._head) < HEAD_BYTES:
            self._head += chunk[: HEAD_BYTES - len(self._head)]
        self._write(chunk)

    def commit(self) -> WrittenBlob:
        if self.finished:
            raise ValueError("commit after commit/abort")
        digest = self._hash.hexdigest()
        try:
            self._commit(digest)
        except BaseException:
            self.abort()
            raise
        self.finished = True
        return WrittenBlob(size=self.size, sha256=digest, head=bytes(self._head))

    def abort(self) -> None:
        if not self.finished:
            self.finished = True
            self._abort()

    @abstractmethod
    def _write(self, chunk: bytes) -> None: ...

    @abstractmethod
    def _commit(self, sha256: str) -> None: ...

    @abstractmethod
    def _abort(self) -> None: ...


class _BufferedWriter(BlobWriter):
    """Fallback for stores without a streaming write: collects, then one `put`."""

    def __init__(self, store: BlobStore, container: str, key: str) -> None:
        super().__init__()
        self._store, self._container, self._key = store, container, key
        self._buf = bytearray()

    def _write(self, chunk: bytes) -> None:
        self._buf += chunk

    def _commit(self, sha256: str) -> None:
        self._store.put(self._container, self._key, bytes(self._buf))

    def _abort(self) -> None:
        self._buf = bytearray()


class BlobStore(ABC):
    """Immutable-ish byte objects addressed by (container, key).

    Every operation is safe to retry: ``put`` of identical bytes and ``promote`` after
    an earlier successful promote are no-ops reporting ``UNCHANGED`` /
    ``ALREADY_PROMOTED``. Transport failures raise ``StorageUnavailable``.
    """

    # Default cap for get(); each backend sets it from its config.
    max_get_bytes: int

    @abstractmethod
    def ensure_container(self, container: str) -> None:
        """Create the container if missing (dev/test; production containers come from infra)."""

    @abstractmethod
    def put(self, container: str, key: str, data: bytes, *, overwrite: bool = False) -> PutResult:
        """Store ``data`` atomically (readers see old or new bytes, never a mix).

        Without ``overwrite``: CREATED, or UNCHANGED if the same bytes are already
        there, or ``BlobConflict`` if different bytes are.
        """

    def open_writer(self, container: str, key: str) -> BlobWriter:
        """A streamed write of a NEW blob (``BlobConflict`` at commit if the key exists)."""
        return _BufferedWriter(self, validate_container(container), validate_key(key))

    @abstractmethod
    def get(self, container: str, key: str, *, max_bytes: int | None = None) -> bytes:
        """The object's bytes; ``BlobTooLarge`` beyond ``max_bytes`` (default: the
        store's ``max_get_bytes``), ``BlobNotFound`` if absent."""

    @abstractmethod
    def exists(self, container: str, key: str) -> bool: ...

    @abstractmethod
    def delete(self, container: str, key: str) -> bool:
        """True if something was deleted, False if it was already gone."""

    @abstractmethod
    def copy(
        self,
        src_container: str,
        key: str,
        dst_container: str,
        *,
        dst_key: str | None = None,
        overwrite: bool = False,
    ) -> PutResult:
        """Copy one object (server-side where the backend can), same semantics as put."""

    @abstractmethod
    def list_blobs(self, container: str, *, prefix: str = "") -> Iterator[BlobInfo]:
        """Every object in ``container`` (optionally under ``prefix``), in no set order.

        For reconciliation, not for serving requests: it walks the whole container.
        """

    def promote(self, src_container: str, key: str, dst_container: str) -> PromoteResult:
        """Move ``key`` from ``src_container`` to ``dst_container`` (quarantine -> documents).

        Copy first, delete the source only after the copy is in place: a crash in
        between leaves two identical copies, and the retry finishes the job. The source
        is *not* kept: a clean document must exist exactly once, so an erasure request
        (GDPR art. 17) that deletes it from ``documents`` leaves no forgotten copy in
        quarantine. A retry after a completed promote (source gone, destination there)
        reports ALREADY_PROMOTED. Different bytes already at the destination raise
        ``BlobConflict`` and the source stays put.
        """
        try:
            self.copy(src_container, key, dst_container)
        except BlobNotFound:
            if self.exists(dst_container, key):
                return PromoteResult.ALREADY_PROMOTED
            raise
        self.delete(src_container, key)
        return PromoteResult.PROMOTED
