"""Filesystem ``BlobStore`` for development, tests and single-node installs.

Layout: ``<root>/<container>/<key>``. Writes go to a ``.ats-tmp-*`` file in the target
directory, are fsynced, then published with ``link()`` (fails if the name exists, so
no-overwrite puts are race-free between workers) or ``replace()`` (overwrite), followed
by an fsync of the directory so the new name survives a crash.
"""

from __future__ import annotations

import contextlib
import ctypes
import datetime
import errno
import os
import stat
import uuid
from collections.abc import Iterator
from pathlib import Path

from ats.storage.base import BlobStore, BlobWriter, validate_container, validate_key
from ats.storage.data import (
    DEFAULT_MAX_GET_BYTES,
    BlobConflict,
    BlobInfo,
    BlobNotFound,
    BlobTooLarge,
    ContainerNotFound,
    InvalidName,
    PromoteResult,
    PutResult,
)

_TMP_PREFIX = ".ats-tmp-"
# Documents are personal data: owner-only by default.
_DIR_MODE = 0o700
_FILE_MODE = 0o600

# renameat2(2) with RENAME_NOREPLACE (Linux 3.15+, glibc 2.28+; ext4, xfs, btrfs, tmpfs):
# an atomic rename that fails with EEXIST instead of replacing the target. Python has no
# binding for it; None where libc lacks it (promote then copies, as every other store).
_AT_FDCWD = -100
_RENAME_NOREPLACE = 1


def _load_renameat2() -> object | None:
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    fn.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint)
    fn.restype = ctypes.c_int
    return fn


_renameat2 = _load_renameat2()
# The errors that say "this filesystem or kernel cannot do it": fall back to the copy.
_NO_ATOMIC_RENAME = frozenset({errno.EINVAL, errno.ENOSYS, errno.EXDEV, errno.EOPNOTSUPP, errno.EPERM})


def _rename_noreplace(src: Path, dst: Path) -> bool:
    """Atomically rename src to dst unless dst exists (FileExistsError). False when the
    platform cannot (no renameat2, or an error in _NO_ATOMIC_RENAME): nothing moved."""
    if _renameat2 is None:
        return False
    if _renameat2(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), _RENAME_NOREPLACE) == 0:  # type: ignore[operator]
        return True
    err = ctypes.get_errno()
    if err in _NO_ATOMIC_RENAME:
        return False
    raise OSError(err, os.strerror(err), str(src), None, str(dst))


class LocalBlobStore(BlobStore):
    def __init__(self, root: str | os.PathLike[str], *, max_get_bytes: int = DEFAULT_MAX_GET_BYTES):
        self.root = Path(root).resolve()
        self.root.mkdir(mode=_DIR_MODE, parents=True, exist_ok=True)
        self.max_get_bytes = max_get_bytes

    def __repr__(self) -> str:
        return f"LocalBlobStore(root={str(self.root)!r})"

    # ----------------------------------------------------------------- paths

    def _container_dir(self, container: str) -> Path:
        path = self.root / validate_container(container)
        if not path.is_dir():
            raise ContainerNotFound(container)
        return path

    def _path(self, container: str, key: str) -> Path:
        base = self._container_dir(container)
        path = base / validate_key(key)
        # Validation already rules out "..", absolute paths and backslashes; this also
        # catches a symlinked directory someone planted inside the store.
        # (resolve() is non-strict: it resolves the existing part of the path.)
        if not path.parent.resolve().is_relative_to(base.resolve()):
            raise InvalidName(f"key {key!r} escapes container {container!r}")
        return path

    # ----------------------------------------------------------------- interface

    def ensure_container(self, container: str) -> None:
        (self.root / validate_container(container)).mkdir(mode=_DIR_MODE, exist_ok=True)

    def list_blobs(self, container: str, *, prefix: str = "") -> Iterator[BlobInfo]:
        base = self._container_dir(container)
        for dirpath, _dirs, files in os.walk(base):
            for name in files:
                if name.startswith(_TMP_PREFIX):
                    continue  # a write in progress (or a crashed one), never an object
                path = Path(dirpath) / name
                key = path.relative_to(base).as_posix()
                if not key.startswith(prefix):
                    continue
                try:
                    st = path.stat()
                except FileNotFoundError:
                    continue  # deleted while we walked
                modified = datetime.datetime.fromtimestamp(st.st_mtime, tz=datetime.UTC)
                yield BlobInfo(container, key, st.st_size, modified)

    def put(self, container: str, key: str, data: bytes, *, overwrite: bool = False) -> PutResult:
        path = self._path(container, key)
        existing = self._read_if_exists(path, limit=len(data) + 1)
        if existing is not None and existing == data:
            return PutResult.UNCHANGED
        if existing is not None and not overwrite:
            raise BlobConflict(f"{container}/{key} exists with different content")

        try:
            path.parent.mkdir(mode=_DIR_MODE, parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError) as exc:
            # Azure allows both "a" and "a/b"; a filesystem cannot. Keys are generated
            # by our code and never nest like that, so report it rather than work round.
            raise BlobConflict(f"{container}/{key}: a prefix of the key is an object") from exc
        tmp = path.parent / f"{_TMP_PREFIX}{uuid.uuid4().hex}"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, _FILE_MODE)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            if overwrite:
                os.replace(tmp, path)
                result = PutResult.CREATED if existing is None else PutResult.REPLACED
            else:
                try:
                    os.link(tmp, path)
                except FileExistsError:
                    # Lost a race with a concurrent put of the same key.
                    if self._read_if_exists(path, limit=len(data) + 1) == data:
                        return PutResult.UNCHANGED
                    raise BlobConflict(f"{container}/{key} exists with different content") from None
                result = PutResult.CREATED
        finally:
            tmp.unlink(missing_ok=True)
        self._fsync_dir(path.parent)
        return result

    def open_writer(self, container: str, key: str) -> BlobWriter:
        return _LocalWriter(self, self._path(container, key))

    def get(self, container: str, key: str, *, max_bytes: int | None = None) -> bytes:
        cap = self.max_get_bytes if max_bytes is None else max_bytes
        path = self._path(container, key)
        data = self._read_if_exists(path, limit=cap + 1)
        if data is None:
            raise BlobNotFound(f"{container}/{key}")
        if len(data) > cap:
            raise BlobTooLarge(f"{container}/{key} is larger than {cap} bytes")
        return data

    def exists(self, container: str, key: str) -> bool:
        try:
            st = os.lstat(self._path(container, key))
        except (FileNotFoundError, NotADirectoryError):
            return False
        return stat.S_ISREG(st.st_mode)

    def delete(self, container: str, key: str) -> bool:
        path = self._path(container, key)
        try:
            path.unlink()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return False
        self._fsync_dir(path.parent)
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
        src = self._path(src_container, key)
        data = self._read_if_exists(src, limit=None)
        if data is None:
            raise BlobNotFound(f"{src_container}/{key}")
        return self.put(dst_container, dst_key or key, data, overwrite=overwrite)

    def promote(self, src_container: str, key: str, dst_container: str) -> PromoteResult:
        """Quarantine -> documents as one atomic rename that never replaces (issue 26: the
        ingest hop's latency). The base class's copy rewrote the bytes, fsynced them again,
        then deleted the source: three fsyncs (file, two directories) on the ingest hop, 4-5
        ms of its ~15 at p50 on a 2-core VM. The bytes were fsynced when they were put in
        quarantine (put and the streamed writer both fsync before publishing), so only the
        name moves here; both directories are fsynced before returning, so the new name and
        the source's removal are durable before the caller's row says `documents` - the
        same guarantee as before. A crash leaves the one copy under one of the two names
        (never both, never neither), and the retry finishes the job (ALREADY_PROMOTED).

        Anything but a plain file at the source (absent, a planted symlink), an existing
        destination (same bytes: PROMOTED; different: BlobConflict, source kept) or a
        filesystem without RENAME_NOREPLACE goes through the base class's copy, unchanged."""
        src = self._path(src_container, key)
        dst = self._path(dst_container, key)
        try:
            plain_file = stat.S_ISREG(os.lstat(src).st_mode)
        except (FileNotFoundError, NotADirectoryError):
            plain_file = False
        if not plain_file:
            return super().promote(src_container, key, dst_container)
        try:
            dst.parent.mkdir(mode=_DIR_MODE, parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError) as exc:
            raise BlobConflict(f"{dst_container}/{key}: a prefix of the key is an object") from exc
        try:
            moved = _rename_noreplace(src, dst)
        except FileExistsError:
            moved = False  # the base class compares the bytes
        except FileNotFoundError:
            # A concurrent promote of the same key (a job redelivered while its first run
            # still works, or an in-process call beside a worker) moved the source between
            # the lstat and the rename: the base class sees the source gone and the
            # destination there (ALREADY_PROMOTED), or raises BlobNotFound if neither.
            moved = False
        if not moved:
            return super().promote(src_container, key, dst_container)
        self._fsync_dir(dst.parent)
        self._fsync_dir(src.parent)
        return PromoteResult.PROMOTED

    # ----------------------------------------------------------------- internals

    @staticmethod
    def _read_if_exists(path: Path, *, limit: int | None) -> bytes | None:
        """Bytes of a regular file (at most ``limit``), None if absent. O_NOFOLLOW: a
        symlink in place of an object is never followed out of the store."""
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise InvalidName(f"{path} is a symlink") from exc
            if exc.errno == errno.ENOTDIR:
                return None
            raise
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return None
            return fh.read() if limit is None else fh.read(limit)

    @staticmethod
    def _fsync_dir(path: Path) -> None:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class _LocalWriter(BlobWriter):
    """Chunks go to a temp file beside the target; commit fsyncs and links it into place
    (readers never see a partial blob), abort removes it."""

    def __init__(self, store: LocalBlobStore, path: Path) -> None:
        super().__init__()
        self._path = path
        try:
            path.parent.mkdir(mode=_DIR_MODE, parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError) as exc:
            raise BlobConflict(f"{path}: a prefix of the key is an object") from exc
        self._tmp = path.parent / f"{_TMP_PREFIX}{uuid.uuid4().hex}"
        fd = os.open(self._tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, _FILE_MODE)
        self._fh = os.fdopen(fd, "wb")
        self._fsync_dir = store._fsync_dir

    def _write(self, chunk: bytes) -> None:
        self._fh.write(chunk)

    def _commit(self, sha256: str) -> None:
        try:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
            try:
                os.link(self._tmp, self._path)
            except FileExistsError:
                raise BlobConflict(f"{self._path.name} exists") from None
        finally:
            self._tmp.unlink(missing_ok=True)
        self._fsync_dir(self._path.parent)

    def _abort(self) -> None:
        with contextlib.suppress(OSError):
            self._fh.close()
        self._tmp.unlink(missing_ok=True)
