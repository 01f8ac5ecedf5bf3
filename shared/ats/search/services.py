"""Keeping the search index fresh: per-object jobs through ats.jobs, plus the hourly sweep.

Writers that change something searchable call `search_reindex(kind=, object_id=)` inside
their own transaction (a `search.index` job commits with their change; never a SQL
trigger that inserts jobs - docs/contracts.md). The hourly sweep indexes whatever no
job covered (rows changed since the last sweep, rows never indexed) and removes entries
whose source is gone (an erased or merged candidate must stop being findable).
"""

from __future__ import annotations

import datetime
import logging
from typing import Any

from django.db import connection
from django.utils import timezone

from ats.jobs import api as jobs_api
from ats.search import sources
from ats.search.models import SearchEntry, SearchSweep

logger = logging.getLogger(__name__)

INDEX_TASK = "search.index"
# Re-read a little before the last sweep's start: a transaction that committed just
# after that start may carry an older timestamp.
SWEEP_OVERLAP = datetime.timedelta(minutes=10)


def search_reindex(*, kind: str, object_id: int) -> int | None:
    """Queue the re-indexing of one candidate or document in the caller's transaction."""
    sources.source_kind(kind)  # an unknown kind raises here, in the writer's call
    return jobs_api.defer(INDEX_TASK, payload={"kind": kind, "object_id": int(object_id)})


# One statement, in autocommit when no transaction is open (issue 26: it was BEGIN, a
# locking read to compare the hash, the upsert and COMMIT - 4 round trips per entry, two
# entries per new candidate). An entry whose source hash is unchanged is not rewritten:
# the WHERE leaves it alone and nothing is returned. `inserted` tells a new row (xmax 0).
_UPSERT = """
INSERT INTO search_entry (kind, object_id, candidate_id, source_hash, indexed_at, tsv)
VALUES (%(kind)s, %(object_id)s, %(candidate_id)s, %(hash)s, now(),
        setweight(to_tsvector('simple', %(names)s), 'A')
     || setweight(to_tsvector('simple', %(skills)s), 'B')
     || setweight(to_tsvector('english', %(text)s), 'C')
     || setweight(to_tsvector('simple', %(text)s), 'D'))
ON CONFLICT (kind, object_id) DO UPDATE
   SET candidate_id = EXCLUDED.candidate_id, source_hash = EXCLUDED.source_hash,
       indexed_at = EXCLUDED.indexed_at, tsv = EXCLUDED.tsv
 WHERE search_entry.source_hash IS DISTINCT FROM EXCLUDED.source_hash
RETURNING 1
"""
_REMOVE = "DELETE FROM search_entry WHERE kind = %s AND object_id = %s RETURNING 1"


def search_entry_refresh(*, kind: str, object_id: int) -> str:
    """Bring one entry in line with its source: indexed | unchanged | removed | absent."""
    source = sources.source_for(kind, object_id)
    with connection.cursor() as cur:
        if source is None:
            cur.execute(_REMOVE, [kind, object_id])
            return "removed" if cur.fetchone() else "absent"
        cur.execute(
            _UPSERT,
            {
                "kind": kind,
                "object_id": object_id,
                "candidate_id": source.candidate_id,
                "hash": source.digest(),
                "names": source.names,
                "skills": source.skills,
                "text": source.text,
            },
        )
        return "indexed" if cur.fetchone() else "unchanged"


def search_sweep(*, now: datetime.datetime | None = None) -> dict[str, Any]:
    """Index rows no job covered; drop entries whose source is gone. Idempotent."""
    started = now or timezone.now()
    last = SearchSweep.objects.order_by("-started_at").first()
    since = last.started_at - SWEEP_OVERLAP if last else None
    indexed = removed = 0

    known = set(SearchEntry.objects.values_list("kind", "object_id"))
    work: list[tuple[str, int]] = []
    stale: list[tuple[str, int]] = []
    every: dict[str, set[int]] = {}
    for kind, source in sources.kinds().items():
        every[kind] = set(source.changed_since(None))
        changed = set(source.changed_since(since))
        changed |= {i for i in every[kind] if (kind, i) not in known}  # never indexed
        work += [(kind, i) for i in sorted(changed)]
        stale += [(k, o) for k, o in known if k == kind and o not in every[kind]]
    # Entries under a candidate that is gone or merged away.
    if sources.CANDIDATE in every:
        stale += list(
            SearchEntry.objects.exclude(kind=sources.CANDIDATE)
            .filter(candidate_id__isnull=False)
            .exclude(candidate_id__in=every[sources.CANDIDATE])
            .values_list("kind", "object_id")
        )
    for kind, object_id in [*work, *stale]:
        outcome = search_entry_refresh(kind=kind, object_id=object_id)
        indexed += outcome == "indexed"
        removed += outcome == "removed"
    SearchSweep.objects.create(started_at=started, indexed=indexed, removed=removed)
    logger.info("search sweep: %d indexed, %d removed (since %s)", indexed, removed, since)
    return {"indexed": indexed, "removed": removed, "since": since.isoformat() if since else None}


# --- erasure and subject access (called by ats.retention) ------------------------------


def _subject_entries(candidate_ids: list[int], attachment_ids: list[int]) -> Any:
    from django.db.models import Q

    return SearchEntry.objects.filter(
        Q(candidate_id__in=candidate_ids)
        | Q(kind="candidate", object_id__in=candidate_ids)
        | Q(kind="document", object_id__in=attachment_ids)
    )


def search_personal_rows(*, candidate_ids: list[int], attachment_ids: list[int]) -> dict[str, list[dict[str, Any]]]:
    rows = []
    for row in _subject_entries(candidate_ids, attachment_ids).values():
        row["tsv"] = str(row["tsv"])
        rows.append(row)
    return {"search_entry": rows}


def search_erase(*, candidate_ids: list[int], attachment_ids: list[int]) -> dict[str, int]:
    """Drop the subject's search vectors now (the hourly sweep would, but an erasure must
    not leave the lexemes of a name or e-mail findable until then). Idempotent."""
    return {"search_entry": _subject_entries(candidate_ids, attachment_ids).delete()[0]}
