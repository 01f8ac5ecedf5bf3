"""The evidence module's read-only seam to blob storage."""

from __future__ import annotations

import functools
from typing import Any

from ats.config.env import ats_settings
from ats.storage import api as storage_api


@functools.cache
def blob_store() -> Any:
    return storage_api.store_for(ats_settings())
