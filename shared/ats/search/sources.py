"""What gets indexed: sources registered by the modules that own them.

Search sits below the modules whose rows it indexes, so it imports none of them: each
owner registers its kinds when its app starts (`register_source`, today candidates for
`candidate` and `document`), and search reads through the functions it was handed.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
from collections.abc import Callable, Iterable

MAX_TEXT = 200_000  # characters per source; a tsvector must stay under 1 MB
# The kind whose ids fill search_entry.candidate_id: an entry under a candidate that is
# gone goes too, and a search returns only candidates this kind still calls live.
CANDIDATE = "candidate"


@dataclasses.dataclass(frozen=True)
class Source:
    kind: str
    object_id: int
    candidate_id: int | None
    names: str
    skills: str
    text: str

    def digest(self) -> str:
        return hashlib.sha256(
            json.dumps([self.candidate_id, self.names, self.skills, self.text], ensure_ascii=False).encode()
        ).hexdigest()


@dataclasses.dataclass(frozen=True)
class SourceKind:
    # The entry's content now; None: the object is gone or not indexable (entry dropped).
    read: Callable[[int], Source | None]
    # Ids changed since a time; since=None: every id that should have an entry.
    changed_since: Callable[[datetime.datetime | None], Iterable[int]]
    # Of the given ids, those still live, in order (None: every id counts as live).
    live: Callable[[list[int]], list[int]] | None = None


_KINDS: dict[str, SourceKind] = {}


def register_source(
    kind: str,
    *,
    read: Callable[[int], Source | None],
    changed_since: Callable[[datetime.datetime | None], Iterable[int]],
    live: Callable[[list[int]], list[int]] | None = None,
) -> None:
    """Called by the owning module's AppConfig.ready(); registering a kind twice replaces it
    (Django may run ready() again in tests)."""
    _KINDS[kind] = SourceKind(read=read, changed_since=changed_since, live=live)


def kinds() -> dict[str, SourceKind]:
    return dict(_KINDS)


def source_kind(kind: str) -> SourceKind:
    try:
        return _KINDS[kind]
    except KeyError:
        raise ValueError(f"unknown search kind {kind!r} (registered: {', '.join(sorted(_KINDS)) or 'none'})") from None


def source_for(kind: str, object_id: int) -> Source | None:
    return source_kind(kind).read(object_id)


def live_candidate_ids(ids: list[int]) -> list[int]:
    """`ids` that still name a live candidate, in the given order."""
    live = source_kind(CANDIDATE).live
    return live(ids) if live is not None else list(ids)
