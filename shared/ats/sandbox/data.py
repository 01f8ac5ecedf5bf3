"""Plain data types of the document sandbox: failure codes, limits, results.

Stdlib only and cheap to import: the trusted side (the worker's job code, the web's
triage UI) imports this to read a result without pulling in seccomp or prctl.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

# Stdlib-only like this module: the web serves stored thumbnails with it, without
# importing the sandbox's seccomp/prctl machinery (ats.sandbox.api).
from ats.sandbox.pages import (
    PAGE_LIMITS,
    PageLimits,
    PageRefused,
    check_dimensions,
    downscale_grey,
    inflate_exact,
    render_request,
    with_first_page_request,
)
from ats.sandbox.thumbnail import encode_png, is_plain_png

__all__ = [
    "CHILD_REPORTABLE",
    "FILE_BOUNDARY",
    "PAGE_LIMITS",
    "PARSE_FAILURES",
    "REPORT_CHECKS",
    "REQUIRED_AS_ROOT",
    "REQUIRED_LAYERS",
    "SANDBOX_FAILURES",
    "ChildLimits",
    "Failure",
    "Layer",
    "OnDocument",
    "PageLimits",
    "PageRefused",
    "SandboxPolicy",
    "SandboxResult",
    "check_dimensions",
    "downscale_grey",
    "encode_png",
    "inflate_exact",
    "is_plain_png",
    "render_request",
    "required_layers",
    "with_first_page_request",
]


class Failure(enum.StrEnum):
    """Closed set of ways a sandboxed parse can fail.

    The first group is decided by the trusted side (zygote or worker) from how the
    child ended; the second is passed through from ``ats.parsing.data.ErrorCode`` when
    the child reports a typed parse error. A child cannot make up a code: anything
    outside this set is ``protocol_error``.
    """

    # Decided by the trusted side.
    TIMEOUT_CPU = "timeout_cpu"  # SIGXCPU at the soft CPU limit, SIGKILL at the hard one
    TIMEOUT_WALL = "timeout_wall"  # the zygote killed it at the wall deadline
    MEMORY = "memory"  # MemoryError under RLIMIT_AS
    SECCOMP_VIOLATION = "seccomp_violation"  # SIGSYS: a syscall outside the allowlist
    OUTPUT_TOO_LARGE = "output_too_large"  # answer bigger than max_result_bytes
    PROTOCOL_ERROR = "protocol_error"  # answer not a well-formed, in-range result
    CRASHED = "crashed"  # any other signal or exit, or an exception that is not a ParseError
    SANDBOX_UNAVAILABLE = "sandbox_unavailable"  # zygote could not start, or a layer failed
    # Passed through from the extractor (ats.parsing.data.ErrorCode).
    CORRUPT = "corrupt"
    ENCRYPTED = "encrypted"
    UNSUPPORTED = "unsupported"
    TOO_MANY_PAGES = "too_many_pages"
    TOO_LARGE = "too_large"
    PIXEL_LIMIT = "pixel_limit"
    DECOMPRESSION_BOMB = "decompression_bomb"
    XML_BOMB = "xml_bomb"
    EMPTY_DOCUMENT = "empty_document"
    OCR_FAILED = "ocr_failed"
    INTERNAL = "internal"


SANDBOX_FAILURES: Final = frozenset(
    {
        Failure.TIMEOUT_CPU,
        Failure.TIMEOUT_WALL,
        Failure.MEMORY,
        Failure.SECCOMP_VIOLATION,
        Failure.OUTPUT_TOO_LARGE,
        Failure.PROTOCOL_ERROR,
        Failure.CRASHED,
        Failure.SANDBOX_UNAVAILABLE,
    }
)
PARSE_FAILURES: Final = frozenset(Failure) - SANDBOX_FAILURES
# What a child may claim about itself. It may also say "memory" (it caught MemoryError)
# and "output_too_large" (its own answer did not fit): lying only mislabels its own failure.
CHILD_REPORTABLE: Final = PARSE_FAILURES | {Failure.MEMORY, Failure.OUTPUT_TOO_LARGE, Failure.CRASHED}


# Every check worker-default's re-validation of a parse report can fail
# (ats.sandbox.validate.check_report), with the words a recruiter reads in triage.
# Closed: the name is a Prometheus label (ats_sandbox_reports_rejected_total{check}).
REPORT_CHECKS: Final[Mapping[str, str]] = {
    "shape": "report shape",
    "unknown_keys": "unexpected fields",
    "page_count": "page count",
    "text": "text",
    "document": "document structure",
    "failure_code": "failure code",
    "policy_hash": "sandbox policy",
    "layers": "sandbox layers",
    "sandbox": "sandbox record",
}


class Layer(enum.StrEnum):
    """Isolation layers a fork-server child applies, in the order it applies them."""

    SETSID = "setsid"  # own session and process group: the zygote kills the whole group
    NETNS = "netns"  # empty network namespace (root only)
    CLOSE_FDS = "close_fds"  # only the result pipe survives; 0/1/2 are /dev/null
    RLIMITS = "rlimits"  # CPU, AS, FSIZE, NOFILE, NPROC, CORE, MEMLOCK, MSGQUEUE
    CAPBSET = "capbset"  # empty capability bounding set and ambient set
    SECUREBITS = "securebits"  # NOROOT etc., locked
    SETUID = "setuid"  # setgroups([]) + setresgid/setresuid to the sandbox uid (root only)
    PDEATHSIG = "pdeathsig"  # SIGKILL when the zygote dies (set after the uid change)
    NONDUMPABLE = "nondumpable"  # no ptrace / /proc access by same-uid processes
    NO_NEW_PRIVS = "no_new_privs"
    LANDLOCK = "landlock"  # filesystem: read-only tessdata and own /proc; no TCP; scoped signals
    SECCOMP = "seccomp"  # seccomp-child.json


# Without these a host is not fit to parse untrusted documents (ats.sandbox.check).
REQUIRED_LAYERS: Final = frozenset(
    {
        Layer.SETSID,
        Layer.CLOSE_FDS,
        Layer.RLIMITS,
        Layer.PDEATHSIG,
        Layer.NONDUMPABLE,
        Layer.NO_NEW_PRIVS,
        Layer.SECCOMP,
    }
)
# In root mode the uid change and the network namespace are required too.
REQUIRED_AS_ROOT: Final = REQUIRED_LAYERS | {Layer.NETNS, Layer.SETUID, Layer.CAPBSET, Layer.SECUREBITS}
# Without a uid change the child shares the worker's uid: only Landlock then keeps it out
# of same-uid processes' /proc files (environ, fds) and the files the uid can read. One of
# the two file boundaries is mandatory; the zygote refuses to start without both.
FILE_BOUNDARY: Final = frozenset({Layer.SETUID, Layer.LANDLOCK})


def required_layers(active: frozenset[Layer] | set[Layer], *, root: bool) -> frozenset[Layer]:
    """What a host must give: root mode needs the uid change; otherwise Landlock."""
    if root:
        return REQUIRED_AS_ROOT
    return REQUIRED_LAYERS | ({Layer.LANDLOCK} if Layer.SETUID not in active else set())


@dataclass(frozen=True, slots=True)
class ChildLimits:
    """The ``[child]`` table of limits.toml (see the README beside it)."""

    cpu_soft_s: int = 90
    cpu_hard_s: int = 91
    wall_s: float = 90.0
    address_space_budget_mb: int = 1024
    nofile: int = 16
    fsize: int = 0
    nproc: int = 0
    core: int = 0
    memlock: int = 0
    msgqueue: int = 0
    max_result_bytes: int = 4 * 1024 * 1024
    uid: int = 65534
    gid: int = 65534
    read_only_paths: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 0 < self.cpu_soft_s <= self.cpu_hard_s:
            raise ValueError("need 0 < cpu_soft_s <= cpu_hard_s")
        if self.wall_s <= 0 or self.address_space_budget_mb <= 0 or self.max_result_bytes <= 0:
            raise ValueError("wall_s, address_space_budget_mb and max_result_bytes must be > 0")
        if self.nofile < 4:
            raise ValueError("nofile must leave room for the result pipe and 0/1/2")


@dataclass(frozen=True, slots=True)
class SandboxPolicy:
    """Everything the sandbox enforces, loaded from the policy directory."""

    child: ChildLimits
    parse: Mapping[str, Any]  # keyword arguments for ats.parsing.data.ParseLimits
    reply_grace_s: float
    policy_dir: str
    policy_hash: str  # sha256 over the policy files' bytes, sorted by file name
    # Re-exec a zygote after this many documents (and after any child killed by a
    # memory-corruption signal or SIGSYS): fresh layout, canary and heap shape.
    recycle_after_documents: int = 500


@dataclass(frozen=True, slots=True)
class SandboxResult:
    """The validated outcome of one document.

    ``document`` is the extractor's result after schema and range checks; it is None
    unless ``ok``. ``failure`` is None if and only if ``ok``.
    """

    ok: bool
    failure: Failure | None
    detail: str  # short, printable; never the document's content
    document: Mapping[str, Any] | None
    sandbox: str  # "forkserver" or "inprocess"
    layers: tuple[Layer, ...]  # layers active for this child, in order
    skipped_layers: tuple[Layer, ...]  # layers this host could not apply
    policy_hash: str
    wall_ms: float
    cpu_ms: float
    max_rss_kb: int = 0
    # Zygote restarts in this worker since its previous result: how the trusted side
    # counts restarts without worker-untrusted serving metrics (docs/observability.md).
    zygote_restarts: int = 0
    # A with_first_page_request's page 1, checked like a render answer (pages.
    # check_page_answer); None when the child did not render it. Not part of to_dict.
    # It comes after the parse (Sandbox.run's `on_document` sees the result without it).
    first_page: Mapping[str, Any] | None = None

    @property
    def error_code(self) -> str | None:
        return self.failure.value if self.failure else None

    @property
    def error_detail(self) -> str:
        return self.detail

    def to_dict(self) -> dict[str, Any]:
        """JSON form for storage next to the parse attempt."""
        return {
            "ok": self.ok,
            "failure": self.failure.value if self.failure else None,
            "detail": self.detail,
            "sandbox": self.sandbox,
            "layers": [layer.value for layer in self.layers],
            "skipped_layers": [layer.value for layer in self.skipped_layers],
            "policy_hash": self.policy_hash,
            "wall_ms": round(self.wall_ms, 3),
            "cpu_ms": round(self.cpu_ms, 3),
            "max_rss_kb": self.max_rss_kb,
            "zygote_restarts": self.zygote_restarts,
        }


# Sandbox.run's hook: called with a with_first_page_request's checked parse result while
# the child still renders page 1 (issue 26: the report goes in meanwhile).
OnDocument = Callable[[SandboxResult], None]
