from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _no_document_lost(request: pytest.FixtureRequest) -> Iterator[None]:
    """After every intake test, every document is terminal or backed by a live job."""
    yield
    if "django_db_setup" not in request.fixturenames or request.node.get_closest_marker("breaks_detector"):
        return
    from ats.intake import api as intake_api

    lost = intake_api.lost_documents()
    assert lost == [], f"lost documents after the test: {lost}"
