"""What modules above channels add to a received message, registered at app start.

Channels sits below scoring in the layers (docs/architecture.md): it does not know which
requisition a mailbox feeds. Scoring registers a provider that does, and its answer is
stored in the raw intake's metadata at receipt (a later change of the mapping does not
move documents already received).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_receipt_metadata: list[Callable[[int], dict[str, Any]]] = []


def register_receipt_metadata(provider: Callable[[int], dict[str, Any]]) -> None:
    """provider(channel_id) -> keys merged into each received message's metadata."""
    if provider not in _receipt_metadata:  # ready() may run more than once in tests
        _receipt_metadata.append(provider)


def receipt_metadata(channel_id: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for provider in _receipt_metadata:
        out.update(provider(channel_id))
    return out
