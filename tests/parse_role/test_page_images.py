"""Page images end to end, and the image half of the forged-report probe (issue 21 N1).

Honest path: a two-page PDF through real workers - worker-untrusted renders each page in
the sandbox and hands it off one row per page; worker-default inflates, encodes and stores
the PNGs; the web serves /documents/<id>/pages/<n>.png and the thumbnail, both encoded by
the trusted side.

Forged path: holding the ats_parse role (what an escaped child or a taken-over
worker-untrusted pod holds), fetch the parse job, submit a plausible report whose
`thumbnail_png_b64` is a 20000 x 20000 PNG, then hand off a page declaring 20000 x 20000
(or one whose inflated size differs from its declaration). The trusted side refuses the
page before allocating, with a typed reason; no image is served at any image URL.
"""

from __future__ import annotations

import base64
import json
import struct
import zlib
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.db import connection
from django.test import Client

from ats.config.env import with_user
from ats.intake import api as intake_api
from ats.intake.models import PageImage, PageImageHandoff, PageImageSet
from tests.jobs.helpers import wait_for
from tests.parse_role.helpers import parse_job_for_new_document

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SUBMIT = "SELECT ats_parse_submit(%s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s)"
PAGE = "SELECT ats_parse_page_submit(%s, %s, %s, %s, %s, %s, %s, %s, %s)"
DONE = "SELECT ats_parse_pages_done(%s, %s, %s)"


def _pdf(pages: int = 2) -> bytes:
    import pymupdf

    doc = pymupdf.open()
    for n in range(1, pages + 1):
        page = doc.new_page()
        page.insert_text((72, 72), "Jane Forged" if n == 1 else "Experience", fontsize=16)
        page.insert_text((72, 100), f"jane.p{n}@example.org", fontsize=12)
    return bytes(doc.tobytes())


@pytest.fixture
def parse_role() -> Iterator[psycopg.Connection[Any]]:
    s = connection.settings_dict
    url = with_user(f"postgresql://{s['USER']}@{s['HOST']}:{s['PORT']}/{s['NAME']}", "ats_parse")
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT current_user").fetchone() == ("ats_parse",)
        yield conn


@pytest.fixture
def recruiter(django_user_model: Any) -> Client:
    from ats.iam import api as iam_api

    client = Client()
    client.force_login(iam_api.user_create(username="recruiter", password="pw-for-tests-1234", role="recruiter"))
    return client


def _png_ihdr(png: bytes) -> tuple[int, int]:
    assert png[12:16] == b"IHDR"
    return struct.unpack(">II", png[16:24])


def _huge_png() -> bytes:
    """A real 20000 x 20000 grey PNG (~400 MB decoded, ~0.4 MB compressed), streamed."""
    comp = zlib.compressobj(9)
    row = b"\0" * 20001
    body = b"".join(comp.compress(row) for _ in range(20000)) + comp.flush()

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", 20000, 20000, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def _honest_report(data: bytes) -> tuple[dict[str, Any], str]:
    """What a real hardened child answers for this document: a plausible report."""
    from tests.sandbox_parse import production_sandbox

    result = production_sandbox().run("pdf", data)
    assert result.ok, result.detail
    return {**dict(result.document or {}), "sandbox": result.to_dict()}, result.policy_hash


def test_pages_render_through_the_real_workers_and_are_served(stack: Any, recruiter: Client) -> None:
    from tests.web import helpers

    att = helpers.received("two-pages.pdf", _pdf(2))
    att_id = att.pk
    wait_for(
        lambda: PageImageSet.objects.filter(attachment_id=att_id, state="ready").exists(),
        120,
        "page images stored",
    )
    wait_for(lambda: helpers.reload(att).state == "candidate_created", 60, "candidate created")
    page_set = PageImageSet.objects.get(attachment_id=att_id)
    assert page_set.page_count == 2 and page_set.attempt_no == 1
    for n in (1, 2):
        r = recruiter.get(f"/documents/{att_id}/pages/{n}.png")
        assert r.status_code == 200 and r["Content-Type"] == "image/png"
        assert r["X-Content-Type-Options"] == "nosniff"
        png = b"".join(r.streaming_content) if r.streaming else r.content
        assert _png_ihdr(png)[0] == 1240  # reading size
        assert png[25] == 0  # colour type 0: our grey encoder, not anything the child chose
    assert recruiter.get(f"/documents/{att_id}/pages/3.png").status_code == 404
    thumb = recruiter.get(f"/documents/{att_id}/thumbnail.png")
    assert thumb.status_code == 200 and _png_ihdr(thumb.content)[0] == 256
    assert not PageImageHandoff.objects.filter(attachment_id=att_id).exists()  # read once, deleted
    page = recruiter.get(f"/documents/{att_id}")
    assert page.status_code == 200
    html = page.content.decode()
    assert f"/documents/{att_id}/pages/1.png" in html and f"/documents/{att_id}/pages/2.png" in html

    # Re-parse renders again (attempt 2) and the old derivatives are replaced.
    old_keys = set(PageImage.objects.filter(page_set__attachment_id=att_id).values_list("blob_key", flat=True))
    intake_api.attachment_reparse(attachment_id=att_id)
    wait_for(
        lambda: PageImageSet.objects.filter(attachment_id=att_id, attempt_no=2, state="ready").exists(),
        120,
        "page images of attempt 2",
    )
    new_keys = set(PageImage.objects.filter(page_set__attachment_id=att_id).values_list("blob_key", flat=True))
    assert new_keys and not (new_keys & old_keys)
    from ats.intake import adapters

    store = adapters.blob_store()
    wait_for(lambda: not any(store.exists(adapters.DERIVATIVES, k) for k in old_keys), 10, "old pages deleted")

    # Erasure deletes the derivatives with the document.
    result = intake_api.attachments_erase_personal(attachment_ids=[att_id], reason="test erasure")
    assert result["counts"]["intake_page_image"] == 2
    assert not any(store.exists(adapters.DERIVATIVES, k) for k in new_keys)
    assert not list(store.list_blobs(adapters.DERIVATIVES, prefix=f"{att_id}/"))
    assert recruiter.get(f"/documents/{att_id}/pages/1.png").status_code == 404
    assert recruiter.get(f"/documents/{att_id}/thumbnail.png").status_code == 404


FORGED = {
    # declared 20000 x 20000 with a small, valid zlib stream: refused before allocating
    "declared_20000_square": (20000, 20000, lambda: zlib.compress(b"\0" * 4096), "page_dimensions"),
    # declared 1240 x 1754 but inflates to one row fewer
    "inflates_short": (1240, 1754, lambda: zlib.compress(b"\xff" * (1240 * 1753)), "page_size_mismatch"),
    # declared 1240 x 1754 but inflates to far more (a bomb for its declaration)
    "inflates_long": (1240, 1754, lambda: zlib.compress(b"\0" * (40 * 1024 * 1024)), "page_size_mismatch"),
}


def _forge(parse_role: Any, data: bytes, report: dict[str, Any], policy_hash: str, page: tuple[Any, ...]) -> int:
    """As the parse role: fetch the new document's parse job, submit `report`, hand off one
    page (width, height, zlib bytes), say the pages are done, finish the job."""
    att, parse_job = parse_job_for_new_document(data)
    wid = parse_role.execute("SELECT procrastinate_register_worker_v1()").fetchone()[0]
    fetched = parse_role.execute("SELECT id FROM procrastinate_fetch_job_v2(ARRAY['parse'], %s)", [wid]).fetchone()
    assert fetched == (parse_job,)
    args = [parse_job, att, 1, True, None, "", report["text"], report["pages"], json.dumps(report), policy_hash]
    assert parse_role.execute(SUBMIT, args).fetchone() == (True,)
    width, height, body = page
    page_args = [parse_job, att, 1, 1, width, height, 595.0, 842.0, body]
    assert parse_role.execute(PAGE, page_args).fetchone() == (True,)
    assert parse_role.execute(DONE, [parse_job, att, 1]).fetchone() == (True,)
    parse_role.execute("SELECT procrastinate_finish_job_v1(%s, 'succeeded', false)", [parse_job])
    return att


def _no_image_served(recruiter: Client, att: int) -> None:
    from ats.intake import adapters

    assert not list(adapters.blob_store().list_blobs(adapters.DERIVATIVES, prefix=f"{att}/"))
    # No image at any image URL: neither the page nor the thumbnail (the report's PNG is
    # never served: the thumbnail is a trusted downscale of page 1, and there is none).
    for url in (f"/documents/{att}/pages/1.png", f"/documents/{att}/thumbnail.png"):
        assert recruiter.get(url).status_code == 404, url


def test_report_carrying_a_20000_square_thumbnail_is_rejected_and_no_image_is_served(
    parse_role: Any, start_worker: Any, recruiter: Client
) -> None:
    """The report half of the probe: the child-encoded 20000 x 20000 PNG as the report's
    thumbnail. worker-default's re-check (issue 21 N1) rejects the whole report, so the
    attempt fails and its (honest-looking) page hand-off is dropped as stale: nothing shown."""
    from ats.intake.models import Attachment

    data = _pdf(1)
    report, policy_hash = _honest_report(data)
    huge = _huge_png()
    assert len(huge) > 300_000 and _png_ihdr(huge) == (20000, 20000)
    report["thumbnail_png_b64"] = base64.b64encode(huge).decode()
    att = _forge(parse_role, data, report, policy_hash, (1240, 1754, zlib.compress(b"\xff" * (1240 * 1754))))
    start_worker("default")
    wait_for(lambda: Attachment.objects.get(pk=att).state == "parse_failed", 60, "report rejected")
    assert Attachment.objects.get(pk=att).reason_code == "report_rejected"
    wait_for(lambda: not PageImageHandoff.objects.filter(attachment_id=att).exists(), 60, "hand-off rows dropped")
    assert not PageImageSet.objects.filter(attachment_id=att, state="ready").exists()
    _no_image_served(recruiter, att)


@pytest.mark.parametrize("case", sorted(FORGED))
def test_forged_page_hand_off_is_refused_and_no_image_is_served(
    case: str, parse_role: Any, start_worker: Any, recruiter: Client
) -> None:
    """The image half of the probe: a report that passes every trusted check, and a page
    hand-off that lies about its size. The page is refused before anything is allocated."""
    width, height, make, code = FORGED[case]
    data = _pdf(1)
    report, policy_hash = _honest_report(data)
    att = _forge(parse_role, data, report, policy_hash, (width, height, make()))

    start_worker("default")  # the trusted side: applies the report, then the pages
    wait_for(lambda: PageImageSet.objects.filter(attachment_id=att).exists(), 60, "page hand-off judged")
    wait_for(lambda: not PageImageHandoff.objects.filter(attachment_id=att).exists(), 30, "hand-off rows consumed")
    page_set = PageImageSet.objects.get(attachment_id=att)
    assert (page_set.state, page_set.reason_code) == ("refused", code)
    assert "no page images are shown" in page_set.reason
    assert not PageImage.objects.filter(page_set=page_set).exists()
    _no_image_served(recruiter, att)
    page = recruiter.get(f"/documents/{att}")
    assert page.status_code == 200 and page_set.reason in page.content.decode()
