"""The JSON API against its OpenAPI file (docs/api/openapi.yaml), with schemathesis:
generated requests for every operation, as a signed-in recruiter and as nobody; no 5xx,
every status documented, every body conformant."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.web.helpers import parsed_ok

SPEC = Path(__file__).resolve().parents[2] / "docs" / "api" / "openapi.yaml"
schema = schemathesis.openapi.from_path(SPEC)
CSRF = "a" * 32  # an unmasked CSRF secret: the cookie and the header must match
# The conformance checks. The auth-probing ones (ignored_auth, negative data accepted) do
# not apply: this test injects a valid session on purpose; the anonymous test covers 401.
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture(scope="module")
def app() -> Any:
    return get_wsgi_application()


@pytest.fixture
def session(client: Any, users: dict[str, Any]) -> dict[str, Any]:
    att = parsed_ok()  # something real to find: ids 1.. exist
    assert att.pk
    client.force_login(users["recruiter"])
    return {
        "cookies": {"sessionid": client.cookies["sessionid"].value, "csrftoken": CSRF},
        "headers": {"X-CSRFToken": CSRF},
    }


@pytest.mark.django_db(transaction=True)
@schema.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_as_a_recruiter(case: Any, app: Any, session: dict[str, Any]) -> None:
    response = case.call(app=app, **session)
    assert response.status_code < 500, response.text
    case.validate_response(response, checks=CHECKS)


@pytest.mark.django_db(transaction=True)
@schema.parametrize()
@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_anonymously(case: Any, app: Any) -> None:
    response = case.call(app=app)
    # Nothing is served without a session. Unsafe methods meet the CSRF check first (403
    # csrf_failed); an id that is no id (negative, not a number) is a 404 at routing.
    assert response.status_code in (401, 403, 404), response.text
    if response.status_code == 403:
        assert response.json()["code"] == "csrf_failed"
    case.validate_response(response, checks=CHECKS)


def test_every_api_route_is_documented() -> None:
    import re

    from django.urls import get_resolver

    from tests.web.test_authz_matrix import _flatten

    routed = {
        "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)
        for route, _ in _flatten(get_resolver().url_patterns)
        if route.startswith("api/")
    }
    assert routed == set(schema.raw_schema["paths"])
