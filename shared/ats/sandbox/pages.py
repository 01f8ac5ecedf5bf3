"""Page images across the trust boundary: raw grey pixels with declared dimensions.

Both sides import this (stdlib only). The sandbox child returns one page per answer as
zlib-compressed 8-bit grey samples (ats.parsing.render); worker-untrusted checks the
answer's shape (``check_page_answer``) and hands the compressed bytes to the database one
row per page (``ats_parse_page_submit()``, policy/page-images.sql); the trusted side
(worker-default) then takes nothing on trust:

1. the declared width and height must lie within ``PAGE_LIMITS`` *before* any buffer is
   allocated (a row declaring 20000 x 20000 is refused with ``page_dimensions``);
2. the compressed bytes must fit the per-row limit;
3. ``inflate_exact`` decompresses with ``max_length`` = width x height + 1, so at most that
   many bytes are ever produced, and refuses unless the output is exactly width x height
   and the stream ended with nothing after it (``page_size_mismatch``, ``page_not_zlib``);
4. only then ``ats.sandbox.thumbnail.encode_png`` writes a PNG of our own making.

No image decoder runs on the trusted side: zlib inflates a bounded buffer, nothing parses
an image format the child chose.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import operator
import zlib
from typing import Any, Final

from ats.errors import Refused
from ats.sandbox.errors import SandboxError

__all__ = [
    "PAGE_LIMITS",
    "PageLimits",
    "PageRefused",
    "check_page_answer",
    "downscale_grey",
    "inflate_exact",
    "parse_with_first_page_request",
    "with_first_page_request",
]


@dataclasses.dataclass(frozen=True)
class PageLimits:
    max_width: int = 1240  # ats.parsing.render.PAGE_WIDTH
    max_height: int = 2480  # twice the width: ribbon pages are scaled to fit
    max_pages: int = 20  # limits.toml [parse] max_pages: the viewer shows up to 20
    # One hand-off row: the compressed samples of one page. A text page is ~60-150 KB; a
    # photographed page of noise at the maximum size is ~3 MB raw and compresses little.
    max_compressed_bytes: int = 3 * 1024 * 1024 + 4096

    @property
    def max_pixels(self) -> int:
        return self.max_width * self.max_height


PAGE_LIMITS: Final = PageLimits()


class PageRefused(SandboxError, Refused):
    """A page hand-off that breaks a rule. ``code`` is one of CODES (typed, closed set)."""

    CODES: Final = frozenset(
        {"page_dimensions", "page_number", "page_too_many_bytes", "page_not_zlib", "page_size_mismatch", "page_shape"}
    )

    def __init__(self, code: str, detail: str) -> None:
        assert code in self.CODES, code
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


def check_dimensions(width: Any, height: Any, limits: PageLimits = PAGE_LIMITS) -> tuple[int, int]:
    """Declared dimensions within limits, or PageRefused - nothing allocated yet."""
    if type(width) is not int or type(height) is not int:
        raise PageRefused("page_shape", "width/height are not integers")
    if not (0 < width <= limits.max_width and 0 < height <= limits.max_height):
        raise PageRefused(
            "page_dimensions", f"declared {width}x{height} > {limits.max_width}x{limits.max_height} (or not positive)"
        )
    return width, height


def inflate_exact(compressed: bytes, width: Any, height: Any, limits: PageLimits = PAGE_LIMITS) -> bytes:
    """zlib bytes -> exactly width x height grey samples, or PageRefused."""
    w, h = check_dimensions(width, height, limits)
    if len(compressed) > limits.max_compressed_bytes:
        raise PageRefused("page_too_many_bytes", f"{len(compressed)} bytes > {limits.max_compressed_bytes}")
    expected = w * h
    inflater = zlib.decompressobj()
    try:
        # At most expected + 1 bytes come out, however the stream was made: one byte
        # more than declared is enough to know it lied.
        pixels = inflater.decompress(compressed, expected + 1)
    except zlib.error:
        raise PageRefused("page_not_zlib", "not a zlib stream") from None
    if len(pixels) != expected or inflater.unconsumed_tail:
        raise PageRefused(
            "page_size_mismatch",
            f"inflates to {'more' if len(pixels) > expected else len(pixels)} bytes, {w}x{h} declared",
        )
    if not inflater.eof or inflater.unused_data:
        raise PageRefused("page_not_zlib", "stream incomplete or followed by other bytes")
    return pixels


def downscale_grey(pixels: bytes, width: int, height: int, target_width: int) -> tuple[int, int, bytes]:
    """Nearest-neighbour downscale of trusted grey samples (our own inflated buffer):
    the first-page thumbnail, made on the trusted side from page 1."""
    if width <= target_width:
        return width, height, pixels
    step = width / target_width
    new_h = max(1, round(height / step))
    pick = operator.itemgetter(*(min(width - 1, int(x * step)) for x in range(target_width)))
    out = bytearray()
    for y in range(new_h):
        start = min(height - 1, int(y * step)) * width
        out += bytes(pick(pixels[start : start + width]))
    return target_width, new_h, bytes(out)


def check_page_answer(untrusted: Any, *, page: int, limits: PageLimits = PAGE_LIMITS) -> dict[str, Any]:
    """worker-untrusted's check of one render answer (ats.parsing.render.render_page):
    shape, ranges and base64 only - the trusted side inflates and checks again."""
    keys = {"page", "pages", "width", "height", "unit_width", "unit_height", "zlib_b64"}
    if not isinstance(untrusted, dict) or set(untrusted) != keys:
        raise PageRefused("page_shape", "render answer: unexpected keys")
    if untrusted["page"] != page or type(untrusted["page"]) is not int:
        raise PageRefused("page_number", "render answer for another page")
    pages = untrusted["pages"]
    if type(pages) is not int or not page <= pages <= limits.max_pages:
        raise PageRefused("page_number", "page count out of range")
    w, h = check_dimensions(untrusted["width"], untrusted["height"], limits)
    units = []
    for key in ("unit_width", "unit_height"):
        value = untrusted[key]
        if type(value) not in (int, float) or not 0 < value <= 1_000_000:
            raise PageRefused("page_shape", f"{key} out of range")
        units.append(float(value))
    encoded = untrusted["zlib_b64"]
    if not isinstance(encoded, str) or len(encoded) > (limits.max_compressed_bytes * 4) // 3 + 4:
        raise PageRefused("page_too_many_bytes", "compressed page over the row limit")
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise PageRefused("page_shape", "not base64") from None
    return {
        "page": page,
        "pages": pages,
        "width": w,
        "height": h,
        "unit_width": units[0],
        "unit_height": units[1],
        "data": data,
    }


RENDER_PREFIX: Final = "render:"


def render_request(kind: str, page: int) -> str:
    """The sandbox request kind for one page: ``render:<kind>:<page>`` (1-based)."""
    return f"{RENDER_PREFIX}{kind}:{int(page)}"


# Issue 26: a parse whose child also renders page 1 for the viewer, so a one-page CV
# costs one fork, not two. The child answers in two frames: the parse's answer, passed on
# by the zygote at once (the worker reports while the child renders), then page 1's
# render answer (checked as one, check_page_answer) - or nothing when the page did not
# render, did not fit the answer cap or the parse had used FIRST_PAGE_MAX_CPU_S already;
# then the worker renders it in a child of its own, as every later page.
FIRST_PAGE_PREFIX: Final = "parse+page1:"
FIRST_PAGE_MAX_CPU_S: Final = 5.0


def with_first_page_request(kind: str) -> str:
    """The sandbox request kind for a parse that also renders page 1."""
    return f"{FIRST_PAGE_PREFIX}{kind}"


def parse_with_first_page_request(request: str) -> str | None:
    """The document kind of a with_first_page_request, else None."""
    if not request.startswith(FIRST_PAGE_PREFIX):
        return None
    kind = request[len(FIRST_PAGE_PREFIX) :]
    return kind if kind.isalpha() else None


def parse_render_request(request: str) -> tuple[str, int] | None:
    if not request.startswith(RENDER_PREFIX):
        return None
    kind, _, page = request[len(RENDER_PREFIX) :].partition(":")
    if not page.isdigit() or not kind.isalpha():
        return None
    return kind, int(page)


def decode_render_answer(untrusted_answer: bytes, *, page: int, max_result_bytes: int) -> tuple[Any, str, Any]:  # noqa: PLR0911 - untrusted answer: one early refusal per malformed part, flat for audit
    """A child's framed render answer -> (failure, detail, checked page) like decode_answer."""
    import json

    from ats.sandbox import protocol
    from ats.sandbox.data import CHILD_REPORTABLE, Failure

    if len(untrusted_answer) > max_result_bytes + protocol.LEN_SIZE:
        return Failure.OUTPUT_TOO_LARGE, "answer over max_result_bytes", None
    if len(untrusted_answer) < protocol.LEN_SIZE:
        return Failure.PROTOCOL_ERROR, "no answer", None
    body = untrusted_answer[protocol.LEN_SIZE :]
    if int.from_bytes(untrusted_answer[: protocol.LEN_SIZE], "big") != len(body):
        return Failure.PROTOCOL_ERROR, "frame length mismatch", None
    try:
        untrusted = json.loads(body)
    except (ValueError, RecursionError):
        return Failure.PROTOCOL_ERROR, "answer is not JSON", None
    if not isinstance(untrusted, dict):
        return Failure.PROTOCOL_ERROR, "answer is not an object", None
    if untrusted.get("status") == "error":
        code = untrusted.get("code")
        if set(untrusted) != {"status", "code", "detail"} or not isinstance(code, str) or code not in CHILD_REPORTABLE:
            return Failure.PROTOCOL_ERROR, "error: shape", None
        detail = untrusted["detail"] if isinstance(untrusted["detail"], str) else ""
        return Failure(code), "".join(ch for ch in detail[:200] if ch.isprintable()), None
    if untrusted.get("status") != "ok" or set(untrusted) != {"status", "document"}:
        return Failure.PROTOCOL_ERROR, "answer: shape", None
    try:
        return None, "", check_page_answer(untrusted["document"], page=page)
    except PageRefused as exc:
        return Failure.PROTOCOL_ERROR, str(exc), None
