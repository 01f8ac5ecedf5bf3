"""Search index tasks (queue maintenance): per-object refresh and the hourly sweep."""

from __future__ import annotations

from ats.jobs import api as jobs_api
from ats.search import services


@jobs_api.task("search.index")
def index(*, kind: str, object_id: int, payload_version: int) -> None:
    # Re-reads the source when it runs (convention 5): a stale or deleted row is handled.
    services.search_entry_refresh(kind=kind, object_id=object_id)


@jobs_api.task("search.refresh_sweep", periodic=jobs_api.periodic_cron("search.refresh_sweep"))
def refresh_sweep(*, timestamp: int, payload_version: int) -> None:
    services.search_sweep()
