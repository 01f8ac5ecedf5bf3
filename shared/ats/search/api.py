"""Facade of the search module.

`search_candidates(query) -> list[candidate_id]` is what `ats candidate list --search`
and the web app call; writers call `search_reindex(kind=, object_id=)` in their
transaction when something searchable changes.
"""

from ats.search.selectors import search_candidates
from ats.search.services import (
    search_entry_refresh,
    search_erase,
    search_personal_rows,
    search_reindex,
    search_sweep,
)

__all__ = [
    "search_candidates",
    "search_entry_refresh",
    "search_erase",
    "search_personal_rows",
    "search_reindex",
    "search_sweep",
]
