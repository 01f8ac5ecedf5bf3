"""The HMAC key that binds erasable personal details to the chain."""

from __future__ import annotations

import hashlib
import hmac

from django.conf import settings


def hmac_key() -> bytes:
    """settings.AUDIT_HMAC_KEY, else a key derived from SECRET_KEY (dev/test).

    Production sets ATS_AUDIT_HMAC_KEY and keeps it out of the database: whoever holds
    the database alone cannot confirm a guessed e-mail address against an erased row.
    Changing the key does not break the chain (it covers the stored HMAC, not the key);
    it only stops old details from being re-checked against their HMAC.
    """
    explicit = getattr(settings, "AUDIT_HMAC_KEY", "")
    if explicit:
        return str(explicit).encode()
    return hmac.new(str(settings.SECRET_KEY).encode(), b"ats.audit.personal", hashlib.sha256).digest()
