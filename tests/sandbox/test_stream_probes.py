"""A hostile child on the streamed path (issue 26): the parse's answer goes to the worker
before the child's page 1, so what the child sends after its parse - or a first frame that
cheats - must cost at most page 1, never the worker's step with the zygote, the zygote, or
a byte past the cap. Real hardened children running escape probes (tests/sandbox/probes.py,
`probe:stream_*` kinds, which the zygote answers like a parse+page1 request)."""

from __future__ import annotations

import json
import secrets
from typing import Any

import pytest

from ats.sandbox.api import ForkServerSandbox
from ats.sandbox.data import Failure

pytestmark = [pytest.mark.slow]


def _run(probes: ForkServerSandbox, name: str) -> tuple[Any, list[Any]]:
    seen: list[Any] = []
    result = probes.run(f"probe:{name}", secrets.token_bytes(64), on_document=seen.append)
    return result, seen


def _still_in_step(probes: ForkServerSandbox, restarts: int) -> None:
    after, seen = _run(probes, "stream_quiet")
    assert after.ok and after.first_page is None and len(seen) == 1
    assert json.loads(after.document["text"])["preflight"]
    assert probes.status().get("restarts", 0) == restarts


@pytest.mark.parametrize(
    ("probe", "why"),
    [
        ("stream_then_garbage", "a malformed second frame"),
        ("stream_then_hang", "a child that hangs after its parse (the wall deadline ends it)"),
        ("stream_then_flood", "a child that floods after its parse (the cap ends it)"),
    ],
)
def test_what_comes_after_the_parse_costs_page_1_only(probes: ForkServerSandbox, probe: str, why: str) -> None:
    restarts = probes.status().get("restarts", 0)
    result, seen = _run(probes, probe)
    # The parse was whole and checked on its own: handed over, and it stands.
    assert result.ok, (why, result.failure, result.detail)
    assert [p.document["kind"] for p in seen] == [f"probe:{probe}"] and seen[0].first_page is None
    assert result.first_page is None, why
    _still_in_step(probes, restarts)


def test_a_first_frame_over_the_cap_is_never_handed_over(probes: ForkServerSandbox) -> None:
    """Whole inside the zygote's two-frame buffer, but more than one answer may be: the
    zygote stops the child and answers once, as for any answer over the cap."""
    restarts = probes.status().get("restarts", 0)
    result, seen = _run(probes, "stream_first_over_cap")
    assert not result.ok and result.failure == Failure.OUTPUT_TOO_LARGE, (result.failure, result.detail)
    assert seen == [] and result.document is None
    _still_in_step(probes, restarts)
