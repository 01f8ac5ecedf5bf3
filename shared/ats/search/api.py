"""Facade of the search module.

`search_candidates(query) -> list[candidate_id]` is what `ats candidate list --search`
and the web app call; writers call `search_reindex(kind=, object_id=)` in their
transaction when something searchable changes. The modules that own what is indexed
register it at app start (`register_source`): search imports none of them.
"""

from ats.search.selectors import search_candidates
from ats.search.services import (
    search_entry_refresh,
    search_erase,
    search_personal_rows,
    search_reindex,
    search_sweep,
)
from ats.search.sources import MAX_TEXT, Source, register_source

__all__ = [
    "MAX_TEXT",
    "Source",
    "register_source",
    "search_candidates",
    "search_entry_refresh",
    "search_erase",
    "search_personal_rows",
    "search_reindex",
    "search_sweep",
]
