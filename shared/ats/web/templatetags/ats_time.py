"""One time format on every page: `{{ value|when }}`.

The server writes `<time datetime="ISO 8601 UTC" data-local>2026-12-01 21:05 UTC</time>`:
readable without JavaScript and labelled with its zone. static/ats/time.js rewrites the
text into the browser's zone in the same format ("2026-12-01 22:05 CET") and keeps the
UTC reading as the element's title.
"""

from __future__ import annotations

import datetime

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()

FORMAT = "%Y-%m-%d %H:%M"
FORMAT_SECONDS = "%Y-%m-%d %H:%M:%S"  # `|when:"s"`: timelines, where seconds order events


def _as_datetime(value: object) -> datetime.datetime | None:
    if isinstance(value, datetime.datetime):
        return value
    if isinstance(value, str) and value:
        try:
            return datetime.datetime.fromisoformat(value)
        except ValueError:
            return None
    return None


@register.filter(name="when")
def when(value: object, precision: str = "") -> SafeString | str:
    """A timestamp as a <time> element in the one format, UTC-labelled (see module doc)."""
    moment = _as_datetime(value)
    if moment is None:
        return "" if value in (None, "") else str(value)
    if moment.tzinfo is None:  # naive values are UTC throughout (USE_TZ, TIME_ZONE=UTC)
        moment = moment.replace(tzinfo=datetime.UTC)
    utc = moment.astimezone(datetime.UTC)
    seconds = precision == "s"
    return format_html(
        '<time datetime="{}" data-local{}>{} UTC</time>',
        utc.isoformat(timespec="milliseconds"),
        " data-seconds" if seconds else "",
        utc.strftime(FORMAT_SECONDS if seconds else FORMAT),
    )
