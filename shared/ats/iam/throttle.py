"""Sign-in throttling in the database: per (user name, client address), per address, and a
per-user-name ceiling (issue 21 N10).

Counting failures in a sliding window (not a lock-out flag) means nothing has to be reset
by hand and a refusal ends by itself. The keys are chosen so that guessing is slow but a
stranger cannot lock anyone out:

- (user name, address): 5 failures in 15 min. A guesser at one address gets 5 tries per
  user per window; the real user, at their own address, is not affected by it.
- address: 20 failures in 15 min, over all user names (password spraying from one host).
- user name, over every address: 200 in 15 min. High on purpose - it is not a lock-out tool
  (an attacker needs at least 10 addresses, each already at its own limit, to reach it)
  but caps a distributed guess at 200 tries per account per window.

`login_wait` answers how long the caller must wait: until the failure that makes the
count reach its limit leaves the window.
"""

from __future__ import annotations

import datetime

from django.db.models import QuerySet
from django.utils import timezone

from ats.iam.models import LoginAttempt

WINDOW = datetime.timedelta(minutes=15)
MAX_FAILURES_PER_USER_ADDRESS = 5
MAX_FAILURES_PER_IP = 20
MAX_FAILURES_PER_USER = 200


def _key(username: str) -> str:
    return username.lower()[:150]


def _wait(failures: QuerySet[LoginAttempt], limit: int, now: datetime.datetime) -> datetime.timedelta | None:
    """Time until fewer than `limit` of these failures are inside the window, or None."""
    at = failures.order_by("-at").values_list("at", flat=True)[limit - 1 : limit].first()
    if at is None:
        return None
    return max(at + WINDOW - now, datetime.timedelta(seconds=1))


def login_wait(*, username: str, ip: str | None) -> datetime.timedelta | None:
    """How long sign-ins for this user name from this address are refused (None: not)."""
    now = timezone.now()
    failures = LoginAttempt.objects.filter(at__gte=now - WINDOW, succeeded=False)
    user = _key(username)
    waits = [_wait(failures.filter(username=user), MAX_FAILURES_PER_USER, now)]
    if ip:
        waits.append(_wait(failures.filter(username=user, ip=ip), MAX_FAILURES_PER_USER_ADDRESS, now))
        waits.append(_wait(failures.filter(ip=ip), MAX_FAILURES_PER_IP, now))
    else:
        # No address known (not behind our own server): the user name alone, at the pair limit.
        waits.append(_wait(failures.filter(username=user, ip=None), MAX_FAILURES_PER_USER_ADDRESS, now))
    found = [w for w in waits if w is not None]
    return max(found) if found else None


def login_blocked(*, username: str, ip: str | None) -> bool:
    return login_wait(username=username, ip=ip) is not None


def login_attempt_record(*, username: str, ip: str | None, succeeded: bool) -> None:
    LoginAttempt.objects.create(username=_key(username), ip=ip or None, succeeded=succeeded)
