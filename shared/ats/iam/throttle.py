"""Sign-in throttling per user name and per client address, in the database.

Counting failures in a sliding window (not a lock-out flag) means an attacker cannot lock
a user out for longer than the window, and nothing has to be reset by hand.
"""

from __future__ import annotations

import datetime

from django.utils import timezone

from ats.iam.models import LoginAttempt

WINDOW = datetime.timedelta(minutes=15)
MAX_FAILURES_PER_USER = 5
MAX_FAILURES_PER_IP = 20


def login_blocked(*, username: str, ip: str | None) -> bool:
    since = timezone.now() - WINDOW
    failures = LoginAttempt.objects.filter(at__gte=since, succeeded=False)
    if failures.filter(username=username.lower()[:150]).count() >= MAX_FAILURES_PER_USER:
        return True
    return bool(ip) and failures.filter(ip=ip).count() >= MAX_FAILURES_PER_IP


def login_attempt_record(*, username: str, ip: str | None, succeeded: bool) -> None:
    LoginAttempt.objects.create(username=username.lower()[:150], ip=ip or None, succeeded=succeeded)
