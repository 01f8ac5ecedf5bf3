"""AI behind the circuit breaker, against a local server speaking the chat-completions
wire format: disabled by default ("AI unavailable", no call); failures (slow, 500, 429,
malformed) never become text and open the breaker; the 15-minute probe closes it; the
human actor's permission is checked inside the task."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection

from ats.ai import api as ai_api
from ats.ai.models import AiRun, CircuitBreaker
from ats.ai.provider import ProviderError
from ats.iam import api as iam_api
from ats.scoring import api as scoring_api
from tests.ai.fake_provider import FakeProvider
from tests.jobs.helpers import wait_for
from tests.scoring.helpers import ACTOR, apply, candidate, requisition

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider() as server:
        yield server


@pytest.fixture
def enabled(settings: Any, fake: FakeProvider) -> FakeProvider:
    settings.AI_BASE_URL = fake.url
    settings.AI_MODEL = "test-model"
    settings.AI_API_KEY = "sk-test"
    settings.AI_TIMEOUT_S = 0.5
    settings.AI_BREAKER_THRESHOLD = 3
    return fake


def _scored_application() -> int:
    v = requisition()
    app = apply(candidate(skills=("Python",), years=5, name="Zoë Müller"), v.requisition_id)
    scoring_api.application_score(application_id=app)
    return app


def _jobs(run_id: int) -> int:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM procrastinate_jobs"
            " WHERE task_name = 'ai.invoke' AND (args->>'ai_run_id')::bigint = %s",
            [run_id],
        )
        return int(cur.fetchone()[0])


def test_disabled_by_default_says_ai_unavailable_and_calls_nothing(fake: FakeProvider) -> None:
    user = iam_api.user_create(username="r1", password="x" * 12, role="recruiter")
    run = ai_api.ai_request(kind="explain_score", subject_id=_scored_application(), actor=user)
    d = ai_api.ai_run_detail(run.id, actor=user)
    assert d is not None and d["state"] == "unavailable" and d["text"] is None and d["message"] == "AI unavailable"
    assert _jobs(run.id) == 0 and fake.requests == []


def test_answer_is_stored_on_the_run_written_before_the_call(enabled: FakeProvider) -> None:
    user = iam_api.user_create(username="r2", password="x" * 12, role="recruiter")
    run = ai_api.ai_request(kind="explain_score", subject_id=_scored_application(), actor=user)
    assert AiRun.objects.get(pk=run.id).state == "pending" and _jobs(run.id) == 1  # row + job, one transaction
    assert ai_api.ai_run_detail(run.id, actor=user)["text"] is None  # type: ignore[index]
    assert ai_api.ai_run_execute(ai_run_id=run.id) == "succeeded"
    d = ai_api.ai_run_detail(run.id, actor=user)
    assert d is not None and d["text"] == "The score reflects Python found." and d["model"] == "test-model"
    [req] = enabled.requests
    assert req["path"] == "/v1/chat/completions" and req["auth"] == "Bearer sk-test"
    assert req["body"]["model"] == "test-model" and req["body"]["temperature"] == 0
    prompt = json.dumps(req["body"]["messages"])
    assert "must-have: Python" in prompt and "Zo" not in prompt and "ller" not in prompt  # no name sent
    # Only the person who asked sees the run.
    other = iam_api.user_create(username="r3", password="x" * 12, role="recruiter")
    assert ai_api.ai_run_detail(run.id, actor=other) is None


@pytest.mark.parametrize(("mode", "code"), [("slow", "timeout"), ("500", "server_error"), ("429", "rate_limited"),
                                            ("malformed", "malformed"), ("empty", "malformed")])  # fmt: skip
def test_failures_never_become_text_and_open_the_breaker(enabled: FakeProvider, mode: str, code: str) -> None:
    enabled.mode = mode
    user = iam_api.user_create(username="r4", password="x" * 12, role="recruiter")
    app = _scored_application()
    runs = [ai_api.ai_request(kind="explain_score", subject_id=app, actor=user) for _ in range(4)]
    for run in runs[:2]:
        with pytest.raises(ProviderError) as err:
            ai_api.ai_run_execute(ai_run_id=run.id)
        assert err.value.code == code
        assert ai_api.ai_run_detail(run.id, actor=user)["text"] is None  # type: ignore[index]
    assert CircuitBreaker.objects.get().state == "closed"
    # The third consecutive failure opens the breaker: that run ends unavailable.
    assert ai_api.ai_run_execute(ai_run_id=runs[2].id) == "unavailable"
    assert ai_api.breaker_status()["state"] == "open"
    calls = len(enabled.requests)
    assert ai_api.ai_run_execute(ai_run_id=runs[3].id) == "unavailable"
    assert len(enabled.requests) == calls  # open: no call at all
    d = ai_api.ai_run_detail(runs[3].id, actor=user)
    assert d is not None and d["text"] is None and d["message"] == "AI unavailable"
    # Attempts exhausted on the first run: failed, "AI unavailable", still no text.
    ai_api.ai_run_exhausted(ai_run_id=runs[0].id, reason_code=code, reason="the provider failed")
    d = ai_api.ai_run_detail(runs[0].id, actor=user)
    assert d is not None and d["state"] == "failed" and d["text"] is None and d["message"] == "AI unavailable"


def test_probe_recovers_the_breaker(enabled: FakeProvider) -> None:
    enabled.mode = "500"
    user = iam_api.user_create(username="r5", password="x" * 12, role="recruiter")
    app = _scored_application()
    for _ in range(3):
        run = ai_api.ai_request(kind="explain_score", subject_id=app, actor=user)
        with contextlib.suppress(ProviderError):
            ai_api.ai_run_execute(ai_run_id=run.id)
    assert ai_api.breaker_status()["state"] == "open"
    assert ai_api.breaker_probe() == "open"  # still failing: stays open
    enabled.mode = "ok"
    assert ai_api.breaker_probe() == "closed"
    assert ai_api.breaker_status()["consecutive_failures"] == 0
    run = ai_api.ai_request(kind="explain_score", subject_id=app, actor=user)
    assert ai_api.ai_run_execute(ai_run_id=run.id) == "succeeded"
    calls = len(enabled.requests)
    assert ai_api.breaker_probe() == "closed" and len(enabled.requests) == calls  # closed: the probe calls nothing


def test_the_human_actors_permission_is_checked_inside_the_task(enabled: FakeProvider) -> None:
    hm = iam_api.user_create(username="hm1", password="x" * 12, role="hiring_manager")
    app = _scored_application()  # its requisition is not assigned to hm
    run = ai_api.ai_request(kind="explain_score", subject_id=app, actor=hm)
    assert ai_api.ai_run_execute(ai_run_id=run.id) == "refused"
    assert AiRun.objects.get(pk=run.id).reason_code == "not_visible"
    req_id = scoring_api.application_detail(app, actor=ACTOR)["requisition_id"]  # type: ignore[index]
    scoring_api.requisition_assign(requisition_id=req_id, user_id=hm.pk, actor=ACTOR)
    run = ai_api.ai_request(kind="explain_score", subject_id=app, actor=hm)
    # Deactivated between the request and the run: the task refuses.
    hm.is_active = False
    hm.save()
    assert ai_api.ai_run_execute(ai_run_id=run.id) == "refused"
    assert AiRun.objects.get(pk=run.id).reason_code == "not_allowed"
    assert enabled.requests == []  # nothing was sent for a refused run
    with pytest.raises(ai_api.NotAllowed):
        ai_api.ai_request(kind="explain_score", subject_id=app, actor=iam_api.SystemActor("cli:system"))


@pytest.mark.slow
def test_through_a_worker_success_and_exhaustion(enabled: FakeProvider, start_worker: Any) -> None:
    start_worker("default", env={"ATS_AI_BASE_URL": enabled.url, "ATS_AI_MODEL": "test-model", "ATS_AI_TIMEOUT_S": "1"})
    user = iam_api.user_create(username="r6", password="x" * 12, role="recruiter")
    app = _scored_application()
    run = ai_api.ai_request(kind="explain_score", subject_id=app, actor=user)
    d = wait_for(lambda: (x := ai_api.ai_run_detail(run.id, actor=user)) and x["terminal"] and x, 30, "ai run done")
    assert d["state"] == "succeeded" and d["text"]
    enabled.mode = "500"
    run = ai_api.ai_request(kind="explain_score", subject_id=app, actor=user)
    d = wait_for(lambda: (x := ai_api.ai_run_detail(run.id, actor=user)) and x["terminal"] and x, 30, "ai run failed")
    # Two attempts (the ADR's row), then the exhaustion handler: failed, no text.
    assert d["state"] == "failed" and d["text"] is None and d["message"] == "AI unavailable" and d["attempts"] == 2
    assert ai_api.breaker_status()["consecutive_failures"] == 2
    # Exhausted (2 < the threshold of 3 failures): the breaker opens anyway (ADR §2).
    assert ai_api.breaker_status()["state"] == "open"


def test_an_exhausted_invocation_opens_the_breaker_and_says_why(enabled: FakeProvider) -> None:
    user = iam_api.user_create(username="r7", password="x" * 12, role="recruiter")
    app = _scored_application()
    run = ai_api.ai_request(kind="explain_score", subject_id=app, actor=user)
    assert ai_api.breaker_status()["state"] == "closed" and ai_api.unavailable_reason() is None
    ai_api.ai_run_exhausted(
        ai_run_id=run.id, reason_code="server_error", reason="server_error: the provider failed (500)"
    )
    assert ai_api.breaker_status()["state"] == "open"  # one exhausted run, below the failure threshold
    d = ai_api.ai_run_detail(run.id, actor=user)
    assert d is not None and d["reason"] == "AI unavailable: provider error: server_error: the provider failed (500)"
    why = ai_api.unavailable_reason()
    assert why is not None and "switched off since " in why and "the provider failed (500)" in why
    # The next request fails fast, with that reason, and calls nothing.
    later = ai_api.ai_request(kind="explain_score", subject_id=app, actor=user)
    assert ai_api.ai_run_execute(ai_run_id=later.id) == "unavailable" and enabled.requests == []
    assert "switched off since" in (ai_api.ai_run_detail(later.id, actor=user) or {})["reason"]


def test_not_configured_says_how_to_configure_an_openai_compatible_provider(fake: FakeProvider) -> None:
    why = ai_api.unavailable_reason()
    assert why is not None and why.startswith("AI unavailable: no AI provider is configured.")
    assert "OpenAI-compatible" in why and "ATS_AI_BASE_URL" in why and "ATS_AI_MODEL" in why
    user = iam_api.user_create(username="r8", password="x" * 12, role="recruiter")
    run = ai_api.ai_request(kind="explain_score", subject_id=_scored_application(), actor=user)
    assert "ATS_AI_BASE_URL" in (ai_api.ai_run_detail(run.id, actor=user) or {})["reason"]
