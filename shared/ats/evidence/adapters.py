"""The evidence module's read-only seam to blob storage."""

from __future__ import annotations

import functools
from typing import Any

from ats.config.env import ats_settings
from ats.storage import api as storage_api


@functools.cache
def blob_store() -> Any:
    cfg = ats_settings()
    if cfg["STORAGE_KIND"] == "azure":
        return storage_api.store_from_config("azure", connection_string=cfg["AZURE_BLOB_CONNECTION_STRING"])
    return storage_api.store_from_config("local", root=cfg["STORAGE_LOCAL_ROOT"])
