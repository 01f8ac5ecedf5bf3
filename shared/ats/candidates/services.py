from __future__ import annotations

import re

from ats.candidates.models import Candidate

_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")


def candidate_create_from_document(*, attachment_id: int, text: str, filename: str) -> Candidate:
    """Idempotent on the source attachment (a redelivered job finds the same row)."""
    email_match = _EMAIL.search(text)
    first_line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    candidate, _ = Candidate.objects.get_or_create(
        source_attachment_id=attachment_id,
        defaults={
            "display_name": (first_line or filename)[:255],
            "email": email_match.group(0)[:320] if email_match else "",
            "document_text": text,
        },
    )
    return candidate
