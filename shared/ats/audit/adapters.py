"""The audit module's seam to blob storage: the immutable archive container."""

from __future__ import annotations

import functools
from typing import Any

from django.conf import settings

from ats.config.env import ats_settings
from ats.storage import api as storage_api


def archive_container() -> str:
    return str(getattr(settings, "AUDIT_ARCHIVE_CONTAINER", "") or "audit-archive")


@functools.cache
def archive_store() -> Any:
    """The blob store holding audit exports (the same account as the documents).

    Immutability: the code only ever writes with overwrite=False (a different object
    under an existing key is refused); in Azure the container additionally carries a
    time-based retention (WORM) policy set by infrastructure (docs/compliance.md).
    Azurite does not implement immutability policies, so tests check the first part.
    """
    store = storage_api.store_for(ats_settings())
    store.ensure_container(archive_container())
    return store
