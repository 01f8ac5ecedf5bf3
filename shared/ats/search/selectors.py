"""Searching: Postgres full-text search over the side table."""

from __future__ import annotations

from django.db import connection

from ats.search import sources

# Both configurations: `english` finds "engineering" for "engineer"; `simple` keeps names
# and skills unstemmed ("Go", "Rust").
_QUERY = """
SELECT e.candidate_id, max(ts_rank(e.tsv, q.query)) AS rank
  FROM search_entry e,
       (SELECT websearch_to_tsquery('english', %(q)s) || websearch_to_tsquery('simple', %(q)s) AS query) q
 WHERE e.tsv @@ q.query AND e.candidate_id IS NOT NULL
 GROUP BY e.candidate_id
 ORDER BY rank DESC, e.candidate_id
 LIMIT %(limit)s
"""


def search_candidates(query: str, *, limit: int = 200) -> list[int]:
    """Candidate ids matching `query` (web-search syntax: words, "phrases", -not, or),
    best match first. Matches names and e-mail, skills and the text of every document."""
    if not query or not query.strip():
        return []
    with connection.cursor() as cur:
        cur.execute(_QUERY, {"q": query, "limit": limit})
        ids = [int(r[0]) for r in cur.fetchall()]
    # An erased or merged candidate is never returned, even before the sweep drops it.
    return sources.live_candidate_ids(ids)
