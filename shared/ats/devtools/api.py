"""Facade of ``ats.devtools`` for the local clamd / Azurite harnesses."""

from __future__ import annotations

from ats.devtools._localproc import HarnessError, free_tcp_port
from ats.devtools.azurite_local import AzuriteLocal, dev_connection_string
from ats.devtools.clamd_local import ClamdLocal

__all__ = ["AzuriteLocal", "ClamdLocal", "HarnessError", "dev_connection_string", "free_tcp_port"]
