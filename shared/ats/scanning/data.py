"""Plain data types and errors of ``ats.scanning``; no I/O, safe to import anywhere."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar, TypeAlias

from ats.errors import AtsError

# --------------------------------------------------------------------------- file types


class FileKind(StrEnum):
    """What the leading bytes say a file is. The value is the label stored/logged."""

    # Supported: the only kinds the sandboxed parsers accept.
    PDF = "pdf"
    DOCX = "docx"
    PNG = "png"
    JPEG = "jpeg"
    TIFF = "tiff"
    # Unsupported, but named so the rejection (and the audit trail) says what it was.
    EMPTY = "empty"
    EXE = "exe"  # MZ: PE/DOS executables, incl. self-extracting archives
    ELF = "elf"
    DOCM = "docm"  # a DOCX container with word/vbaProject.bin (macros)
    ZIP = "zip"  # any other ZIP (xlsx, odt, jar, plain archives) or a malformed one
    OLE2 = "ole2"  # legacy .doc/.xls/.msg compound files
    RTF = "rtf"
    HTML = "html"
    TEXT = "text"
    UNKNOWN = "unknown"


SUPPORTED_KINDS: frozenset[FileKind] = frozenset(
    {FileKind.PDF, FileKind.DOCX, FileKind.PNG, FileKind.JPEG, FileKind.TIFF}
)

# The content type we vouch for; the serving side uses it instead of anything the
# uploader claimed.
MIME_TYPES: dict[FileKind, str] = {
    FileKind.PDF: "application/pdf",
    FileKind.DOCX: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    FileKind.PNG: "image/png",
    FileKind.JPEG: "image/jpeg",
    FileKind.TIFF: "image/tiff",
}


@dataclass(frozen=True, slots=True)
class DetectedType:
    """Result of magic-byte detection. ``detail`` is a short human-readable why."""

    kind: FileKind
    detail: str = ""

    @property
    def supported(self) -> bool:
        return self.kind in SUPPORTED_KINDS

    @property
    def mime_type(self) -> str | None:
        return MIME_TYPES.get(self.kind)


class Rejection(StrEnum):
    EMPTY = "empty"
    TOO_LARGE = "too_large"
    UNSUPPORTED_TYPE = "unsupported_type"


@dataclass(frozen=True, slots=True)
class UploadInspection:
    """Size + type decision for one upload. ``detected`` is None only when the size
    check already rejected it (oversized bytes are not looked at)."""

    size: int
    max_bytes: int
    detected: DetectedType | None
    rejection: Rejection | None

    @property
    def accepted(self) -> bool:
        return self.rejection is None


# --------------------------------------------------------------------------- ClamAV


class ScanningError(AtsError):
    """Base of the errors the scanning module raises on purpose."""


class ScannerUnavailable(ScanningError):
    """clamd could not be reached or dropped the connection without an answer
    (refused, socket file missing, timeout, reset). Transient: retry per policy."""


@dataclass(frozen=True, slots=True)
class ClamdEndpoint:
    """Where and how to talk to clamd. Exactly one of ``unix_socket`` or ``host``+``port``.

    ``max_stream_bytes`` must not exceed clamd's ``StreamMaxLength``; larger inputs are
    answered with a ``ScanFailed`` verdict without being streamed.
    """

    host: str | None = None
    port: int | None = None
    unix_socket: str | None = None
    connect_timeout: float = 2.0
    # Per socket operation while streaming and waiting for the verdict; a large DOCX
    # with many members can take clamd a few seconds.
    timeout: float = 60.0
    max_stream_bytes: int = 25 * 1024 * 1024

    def __post_init__(self) -> None:
        tcp = self.host is not None or self.port is not None
        if tcp == (self.unix_socket is not None):
            raise ValueError("ClamdEndpoint needs exactly one of host+port or unix_socket")
        if tcp and (self.host is None or self.port is None):
            raise ValueError("ClamdEndpoint over TCP needs both host and port")
        if self.connect_timeout <= 0 or self.timeout <= 0:
            raise ValueError("ClamdEndpoint timeouts must be positive (never block forever)")

    def describe(self) -> str:
        return f"unix:{self.unix_socket}" if self.unix_socket else f"tcp:{self.host}:{self.port}"


@dataclass(frozen=True, slots=True)
class ScannerVersion:
    """What clamd's VERSION said, recorded with every verdict.

    ``raw`` is e.g. ``ClamAV 1.4.6/27470/Sun Nov 29 09:30:25 2026`` with the official
    daily DB loaded, or just ``ClamAV 1.4.6`` when only custom (unversioned) signature
    files are loaded, as with the test DB.
    """

    raw: str
    engine: str
    db_version: int | None = None
    db_date: str | None = None


class ScanStatus(StrEnum):
    CLEAN = "clean"
    INFECTED = "infected"
    ERROR = "error"
    INCOMPLETE = "incomplete"


@dataclass(frozen=True, slots=True)
class Clean:
    scanner: ScannerVersion
    duration_s: float
    status: ClassVar[ScanStatus] = ScanStatus.CLEAN


@dataclass(frozen=True, slots=True)
class Infected:
    """``signature`` as clamd names it, e.g. ``ATS.Test.EICAR.UNOFFICIAL``: a real
    detection. Limit hits (``Heuristics.Limits.Exceeded.*``) are ScanIncomplete instead."""

    signature: str
    scanner: ScannerVersion
    duration_s: float
    status: ClassVar[ScanStatus] = ScanStatus.INFECTED


@dataclass(frozen=True, slots=True)
class ScanFailed:
    """clamd answered but did not scan (``... ERROR`` reply, e.g. stream size limit), or
    the input exceeded ``ClamdEndpoint.max_stream_bytes``. Not a transport problem."""

    reason: str
    scanner: ScannerVersion
    duration_s: float
    status: ClassVar[ScanStatus] = ScanStatus.ERROR


# clamd's names for "stopped at a configured limit" (ClamAV >= 0.103 with
# AlertExceedsMax yes: .MaxFileSize, .MaxScanSize, .MaxFiles, .MaxRecursion,
# .MaxScanTime, .MaxEmbeddedPE, .MaxHTMLNormalize, .MaxScriptNormalize, .MaxZipTypeRcg,
# .MaxPartitions, .MaxIconsPE, .MaxRecHWP3, .PCREMaxFileSize ...): a verdict about the
# scanner, not the file. The whole family, by prefix, so a new limit is never "malware".
SCANNER_LIMIT_PREFIXES = ("Heuristics.Limits.Exceeded",)


def is_scanner_limit(signature: str) -> bool:
    return signature.startswith(SCANNER_LIMIT_PREFIXES)


@dataclass(frozen=True, slots=True)
class ScanIncomplete:
    """clamd stopped part-way because a part of the file exceeds its limits (reported as
    FOUND ``Heuristics.Limits.Exceeded.<Limit>`` with ``AlertExceedsMax yes``). Neither
    clean nor malware: the file must stay unopened until someone decides."""

    limit: str  # the full name clamd reported, e.g. Heuristics.Limits.Exceeded.MaxFileSize
    scanner: ScannerVersion
    duration_s: float
    status: ClassVar[ScanStatus] = ScanStatus.INCOMPLETE


ScanVerdict: TypeAlias = Clean | Infected | ScanFailed | ScanIncomplete
