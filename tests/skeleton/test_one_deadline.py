"""One wall-budget type: the job runtime's attempt deadline and the mail channel's are the
same class (ats.deadline), each raising its own DeadlineExceeded where it checks."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

SHARED = Path(__file__).resolve().parents[2] / "shared" / "ats"


def test_there_is_one_deadline_class() -> None:
    defining = sorted(
        path.relative_to(SHARED).as_posix()
        for path in SHARED.rglob("*.py")
        if re.search(r"^class Deadline\b", path.read_text(), flags=re.MULTILINE)
    )
    assert defining == ["deadline.py"]

    from ats import deadline
    from ats.jobs import api as jobs_api
    from ats.mail import api as mail_api

    assert jobs_api.Deadline is mail_api.Deadline is deadline.Deadline


def test_each_caller_gets_its_own_exception() -> None:
    from ats import deadline
    from ats.jobs import api as jobs_api
    from ats.mail import api as mail_api

    spent = deadline.Deadline(time.monotonic() - 1)
    assert spent.expired
    with pytest.raises(jobs_api.DeadlineExceeded, match="wall timeout"):
        spent.check("wall timeout of this attempt reached", error=jobs_api.DeadlineExceeded)
    with pytest.raises(mail_api.GraphError, match="before GET"):
        spent.timeout(5, what="GET", error=mail_api.DeadlineExceeded)
    for error in (jobs_api.DeadlineExceeded, mail_api.DeadlineExceeded):
        assert issubclass(error, deadline.DeadlineExceeded)


def test_timeout_is_capped_by_what_is_left() -> None:
    from ats.deadline import Deadline

    budget = Deadline.after(30)
    assert not budget.expired
    assert budget.timeout(2) == 2
    assert 0 < Deadline.after(0.5).timeout(2) <= 0.5
    budget.check()  # not spent: no error
