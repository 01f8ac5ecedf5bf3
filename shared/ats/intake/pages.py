"""The CV viewer's page images (ADR 0004 derivatives) on the trusted side.

worker-untrusted hands each rendered page to `intake_page_image_handoff` (one row per
page, through ats_parse_page_submit(); policy/page-images.sql). Here, in worker-default,
nothing in those rows is believed: dimensions are checked before any buffer exists, the
zlib stream is inflated into exactly width x height bytes or refused
(ats.sandbox.data.inflate_exact), and the PNGs - every page and the first-page thumbnail -
are encoded by our own writer (ats.sandbox.data.encode_png). No image decoder runs here.
A refused page refuses the whole set: no image of that document is served, and the
document page says why (docs/security/sandbox.md, "Page images").
"""

from __future__ import annotations

import base64
import hashlib
import logging
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction

from ats.audit import api as audit_api
from ats.intake import adapters
from ats.intake.models import (
    Attachment,
    PageImage,
    PageImageHandoff,
    PageImageSet,
    PageImageSetState,
    ParseAttemptState,
)
from ats.intake.states import TERMINAL, State
from ats.sandbox import data as sandbox_data

logger = logging.getLogger(__name__)

THUMBNAIL_WIDTH = 256
# Plain words for the document page; the code is the typed reason (PageRefused.CODES).
REFUSAL_REASONS = {
    "page_dimensions": "A page image declared a size over the limit; no page images are shown.",
    "page_size_mismatch": "A page image did not match its declared size; no page images are shown.",
    "page_not_zlib": "A page image was malformed; no page images are shown.",
    "page_too_many_bytes": "A page image was over its size limit; no page images are shown.",
    "page_number": "The page images were numbered wrongly; no page images are shown.",
    "page_shape": "A page image was malformed; no page images are shown.",
    "store_failed": "The page images could not be stored; re-parse to render them again.",
}


# The store's first read: the attempt, its document, and each handed-off page's small
# columns (a LEFT JOIN: one row with NULLs when nothing was handed off).
_SEEN_SQL = (
    "SELECT pa.state, att.parse_attempts_requested, att.state, h.id, h.page_no, h.untrusted_width,"
    " h.untrusted_height, h.untrusted_unit_width, h.untrusted_unit_height"
    " FROM intake_parse_attempt pa JOIN intake_attachment att ON att.id = pa.attachment_id"
    " LEFT JOIN intake_page_image_handoff h ON h.attachment_id = pa.attachment_id AND h.attempt_no = pa.attempt_no"
    " WHERE pa.attachment_id = %s AND pa.attempt_no = %s ORDER BY h.page_no"
)


@dataclass(frozen=True)
class PageInfo:
    page_no: int
    width: int
    height: int
    unit_width: float
    unit_height: float


@dataclass(frozen=True)
class PageImages:
    state: str  # "ready" | "refused" | "none"
    reason_code: str
    reason: str
    pages: tuple[PageInfo, ...]


def _key(attachment_id: int, attempt_no: int, name: str) -> str:
    return f"{attachment_id}/a{attempt_no}/{name}"


def _delete_blobs(keys: list[str]) -> None:
    store = adapters.blob_store()
    for key in keys:
        store.delete(adapters.DERIVATIVES, key)  # False when already gone


def _old_keys(page_set: PageImageSet | None) -> list[str]:
    if page_set is None:
        return []
    keys = [p.blob_key for p in page_set.pages.all()]
    return keys + ([page_set.thumbnail_key] if page_set.thumbnail_key else [])


def page_images_store(*, attachment_id: int, attempt_no: int) -> str:
    """Check, encode and store the pages worker-untrusted handed off for this attempt.

    Idempotent; returns what happened ("stored", "refused:<code>", "stale", "none").
    """
    # The attempt's state with its document's counter and state, and the hand-off's small
    # columns, in one statement (issue 26: was three ORM reads). No row: the document or
    # the attempt is gone; a row with no hand-off id: nothing was handed off.
    with connection.cursor() as cur:
        cur.execute(_SEEN_SQL, [attachment_id, attempt_no])
        found = cur.fetchall()
    seen = found[0][:3] if found else None
    if (
        seen is None
        or seen[0] != ParseAttemptState.SUCCEEDED
        or seen[1] != attempt_no
        or seen[2] == State.ERASED_SUBJECT
    ):
        # Superseded by a re-parse, failed, or erased meanwhile: these pages are not shown.
        _delete_handoffs(attachment_id, attempt_no)
        return "stale"
    rows = [r[3:] for r in found if r[3] is not None]
    if not rows:
        return "none"
    try:
        encoded, thumbnail = _encode(rows)
    except sandbox_data.PageRefused as exc:
        _record_refusal(attachment_id, attempt_no, exc.code, exc.detail)
        _delete_handoffs(attachment_id, attempt_no)
        return f"refused:{exc.code}"
    store = adapters.blob_store()
    new_keys: list[str] = []
    for info, png in encoded:
        key = _key(attachment_id, attempt_no, f"page-{info.page_no}.png")
        store.put(adapters.DERIVATIVES, key, png, overwrite=True)
        new_keys.append(key)
    thumb_key = ""
    if thumbnail is not None:
        thumb_key = _key(attachment_id, attempt_no, "thumbnail.png")
        store.put(adapters.DERIVATIVES, thumb_key, thumbnail, overwrite=True)
        new_keys.append(thumb_key)
    # The set's rows switch to the new blobs in one transaction; the old blobs are deleted
    # after it (a crash in between leaves unreferenced blobs under the document's prefix,
    # which erasure deletes by prefix).
    with transaction.atomic():
        # FOR KEY SHARE: erasure (FOR UPDATE) waits for this switch and this switch for
        # erasure, but the document's other writers (FOR NO KEY UPDATE) do not - above all
        # the candidate step collecting a waiting companion, which skips locked rows (it
        # skipped this one, and the companion stayed waiting). A re-parse that commits
        # meanwhile is ordered after this switch: its own store replaces these pages.
        with connection.cursor() as cur:
            cur.execute(
                "SELECT parse_attempts_requested, state FROM intake_attachment WHERE id = %s FOR KEY SHARE",
                [attachment_id],
            )
            locked = cur.fetchone()
        if locked is None or locked[0] != attempt_no or locked[1] == State.ERASED_SUBJECT:
            _delete_handoffs(attachment_id, attempt_no)
            old, outcome = new_keys, "stale"  # superseded while we encoded: drop ours
        else:
            old, outcome = _switch_to(attachment_id, attempt_no, encoded, new_keys, thumb_key), "stored"
            _delete_handoffs(attachment_id, attempt_no)
    _delete_blobs(old)
    return outcome


def _encode(rows: list[tuple[Any, ...]]) -> tuple[list[tuple[PageInfo, bytes]], bytes | None]:
    """The hand-off's pages checked, inflated and encoded by our own writer, with page 1's
    thumbnail; PageRefused at the first rule a page breaks."""
    encoded: list[tuple[PageInfo, bytes]] = []
    thumbnail: bytes | None = None
    limits = sandbox_data.PAGE_LIMITS
    numbers = [r[1] for r in rows]
    if numbers != list(range(1, len(numbers) + 1)) or len(numbers) > limits.max_pages:
        raise sandbox_data.PageRefused("page_number", f"pages {numbers[:5]}... not 1..n <= {limits.max_pages}")
    for row_id, page_no, untrusted_w, untrusted_h, untrusted_uw, untrusted_uh in rows:
        # Dimensions first, from the row's small columns: nothing allocated for a lie.
        width, height = sandbox_data.check_dimensions(untrusted_w, untrusted_h, limits)
        # One page's bytes at a time: memory holds one compressed page, however many.
        with connection.cursor() as cur:
            cur.execute("SELECT untrusted_data FROM intake_page_image_handoff WHERE id = %s", [row_id])
            got = cur.fetchone()
        if got is None:  # deleted meanwhile (an erasure): the job's retry finds the set stale
            raise PageImageHandoff.DoesNotExist(f"page hand-off {row_id} is gone")
        untrusted_data = bytes(got[0])
        pixels = sandbox_data.inflate_exact(untrusted_data, width, height, limits)
        del untrusted_data
        unit_w = float(untrusted_uw) if 0 < float(untrusted_uw) <= 1_000_000 else float(width)
        unit_h = float(untrusted_uh) if 0 < float(untrusted_uh) <= 1_000_000 else float(height)
        encoded.append(
            (PageInfo(page_no, width, height, unit_w, unit_h), sandbox_data.encode_png(width, height, 1, pixels))
        )
        if page_no == 1:
            tw, th, small = sandbox_data.downscale_grey(pixels, width, height, THUMBNAIL_WIDTH)
            thumbnail = sandbox_data.encode_png(tw, th, 1, small)
    return encoded, thumbnail


def _switch_to(
    attachment_id: int, attempt_no: int, encoded: list[tuple[PageInfo, bytes]], new_keys: list[str], thumb_key: str
) -> list[str]:
    """Point the document's set at the new pages (caller's transaction); the old keys.

    Written out (issue 26: was five ORM statements): the set's row locked or made, its old
    pages' keys read and deleted only when it had some, the new pages in one INSERT."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT id, thumbnail_key FROM intake_page_image_set WHERE attachment_id = %s FOR UPDATE", [attachment_id]
        )
        existing = cur.fetchone()
        old: list[str] = []
        if existing is None:
            cur.execute(
                "INSERT INTO intake_page_image_set"
                " (attachment_id, attempt_no, state, reason_code, reason, page_count, thumbnail_key, updated_at)"
                " VALUES (%s, %s, %s, '', '', %s, %s, now()) RETURNING id",
                [attachment_id, attempt_no, PageImageSetState.READY.value, len(encoded), thumb_key],
            )
            set_id = cur.fetchone()[0]
        else:
            set_id, old_thumb = existing
            cur.execute("DELETE FROM intake_page_image WHERE page_set_id = %s RETURNING blob_key", [set_id])
            old = [k for (k,) in cur.fetchall()] + ([old_thumb] if old_thumb else [])
            cur.execute(
                "UPDATE intake_page_image_set SET attempt_no = %s, state = %s, reason_code = '', reason = '',"
                " page_count = %s, thumbnail_key = %s, updated_at = now() WHERE id = %s",
                [attempt_no, PageImageSetState.READY.value, len(encoded), thumb_key, set_id],
            )
        cur.execute(
            "INSERT INTO intake_page_image"
            " (page_set_id, page_no, width, height, unit_width, unit_height, blob_key, sha256)"
            " SELECT %s, * FROM unnest(%s::integer[], %s::integer[], %s::integer[],"
            " %s::double precision[], %s::double precision[], %s::text[], %s::text[])",
            [
                set_id,
                [info.page_no for info, _ in encoded],
                [info.width for info, _ in encoded],
                [info.height for info, _ in encoded],
                [info.unit_width for info, _ in encoded],
                [info.unit_height for info, _ in encoded],
                new_keys[: len(encoded)],
                [hashlib.sha256(png).hexdigest() for _, png in encoded],
            ],
        )
    return [k for k in old if k not in new_keys]


def _delete_handoffs(attachment_id: int, attempt_no: int) -> None:
    with connection.cursor() as cur:
        cur.execute(
            "DELETE FROM intake_page_image_handoff WHERE attachment_id = %s AND attempt_no = %s",
            [attachment_id, attempt_no],
        )


def _record_refusal(attachment_id: int, attempt_no: int, code: str, detail: str) -> None:
    with transaction.atomic():
        page_set = PageImageSet.objects.select_for_update().filter(attachment_id=attachment_id).first()
        old = _old_keys(page_set)
        if page_set is None:
            page_set = PageImageSet(attachment_id=attachment_id)
        page_set.attempt_no = attempt_no
        page_set.state = PageImageSetState.REFUSED
        page_set.reason_code = code
        page_set.reason = REFUSAL_REASONS.get(code, REFUSAL_REASONS["page_shape"])
        page_set.page_count = 0
        page_set.thumbnail_key = ""
        page_set.save()
        page_set.pages.all().delete()
        audit_api.audit_event_record(
            actor="system:parse",
            action="intake.page_images_refused",
            object_type="attachment",
            object_id=attachment_id,
            payload={"attempt_no": attempt_no, "code": code, "detail": detail[:300]},
        )
    _delete_blobs(old)
    # A refused hand-off from our own sandbox is a bug or an escape: loud in the logs.
    logger.warning("page images of attachment %s refused: %s (%s)", attachment_id, code, detail[:300])


def page_images_exhausted(*, attachment_id: int, attempt_no: int = 0, reason_code: str, reason: str, **_: Any) -> None:
    """The store task ran out of attempts (storage down): say so, show no images."""
    att = Attachment.objects.filter(pk=attachment_id).first()
    if att is not None:
        _record_refusal(att.pk, attempt_no, "store_failed", f"{reason_code}: {reason}")


def _servable(attachment_id: int) -> PageImageSet | None:
    att = Attachment.objects.filter(pk=attachment_id).only("state").first()
    # Served once the document is terminal (not while a re-parse is under way), never
    # for an erased one (its rows are gone anyway).
    if att is None or att.state not in TERMINAL or att.state == State.ERASED_SUBJECT:
        return None
    page_set = PageImageSet.objects.filter(attachment_id=attachment_id).first()
    if page_set is None or page_set.state != PageImageSetState.READY:
        return None
    return page_set


def page_images(attachment_id: int) -> PageImages:
    """What the viewer shows for this document."""
    page_set = PageImageSet.objects.filter(attachment_id=attachment_id).first()
    if page_set is None:
        return PageImages("none", "", "", ())
    if page_set.state != PageImageSetState.READY or _servable(attachment_id) is None:
        return PageImages(
            page_set.state if page_set.state != PageImageSetState.READY else "none",
            page_set.reason_code,
            page_set.reason,
            (),
        )
    pages = tuple(
        PageInfo(p.page_no, p.width, p.height, p.unit_width, p.unit_height) for p in page_set.pages.order_by("page_no")
    )
    return PageImages("ready", "", "", pages)


def _blob_png(key: str) -> bytes | None:
    try:
        png = bytes(adapters.blob_store().get(adapters.DERIVATIVES, key, max_bytes=16 * 1024 * 1024))
    except adapters.BlobNotFound:
        return None
    # Exactly the chunks our encoder writes (chunk walk only, no decoding).
    return png if sandbox_data.is_plain_png(png) else None


def page_image_png(attachment_id: int, page_no: int) -> bytes | None:
    page_set = _servable(attachment_id)
    if page_set is None:
        return None
    page = page_set.pages.filter(page_no=page_no).first()
    return _blob_png(page.blob_key) if page else None


def thumbnail_png(attachment_id: int) -> bytes | None:
    """The first-page thumbnail: a trusted-side downscale of page 1 (never child bytes)."""
    page_set = _servable(attachment_id)
    if page_set is None or not page_set.thumbnail_key:
        return None
    return _blob_png(page_set.thumbnail_key)


def page_images_erase(*, attachment_ids: list[int]) -> tuple[dict[str, int], list[str]]:
    """Erasure: the derivative blobs, their rows and any hand-off rows. Caller's transaction."""
    keys: list[str] = []
    for page_set in PageImageSet.objects.filter(attachment_id__in=attachment_ids):
        keys += _old_keys(page_set)
    # Also whatever a store interrupted mid-way left under these documents' prefixes.
    store = adapters.blob_store()
    for att_id in attachment_ids:
        keys += [b.key for b in store.list_blobs(adapters.DERIVATIVES, prefix=f"{att_id}/")]
    keys = sorted(set(keys))
    deleted = 0
    for key in keys:
        if store.delete(adapters.DERIVATIVES, key):
            deleted += 1
    counts = {
        "intake_page_image": PageImage.objects.filter(page_set__attachment_id__in=attachment_ids).delete()[0],
        "intake_page_image_set": PageImageSet.objects.filter(attachment_id__in=attachment_ids).delete()[0],
        "intake_page_image_handoff": PageImageHandoff.objects.filter(attachment_id__in=attachment_ids).delete()[0],
    }
    counts["derivative_blobs"] = deleted
    return counts, [f"{adapters.DERIVATIVES}/{k}" for k in keys]


def page_images_personal_rows(*, attachment_ids: list[int]) -> dict[str, list[dict[str, Any]]]:
    """Subject access: the derivative rows (the images are renderings of the exported
    originals; the export holds the originals themselves)."""
    handoffs = [
        {**row, "untrusted_data": base64.b64encode(bytes(row["untrusted_data"])).decode()}
        for row in PageImageHandoff.objects.filter(attachment_id__in=attachment_ids).values()
    ]
    return {
        "intake_page_image_set": [
            dict(r) for r in PageImageSet.objects.filter(attachment_id__in=attachment_ids).values()
        ],
        "intake_page_image": [
            dict(r) for r in PageImage.objects.filter(page_set__attachment_id__in=attachment_ids).values()
        ],
        "intake_page_image_handoff": handoffs,
    }
