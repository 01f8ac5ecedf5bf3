"""Path converter for database ids: at most 18 digits, so every matched id fits a bigint
(a longer number is a 404 at routing, never a database error)."""

from __future__ import annotations


class DbId:
    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)
