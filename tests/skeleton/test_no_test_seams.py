"""Production code reads no test switch: a deployed process's environment cannot pause a
transaction or turn a lock off. The interleaving tests reach inside through named points
(ats.config.checkpoints) whose receivers live in the test-only app tests.testapp."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

SHARED = Path(__file__).resolve().parents[2] / "shared" / "ats"
# Known and named: Django's own test-database name (a setting, read by the test runner only).
ALLOWED = {"config/settings_db.py"}


def _readers() -> set[str]:
    return {
        path.relative_to(SHARED).as_posix()
        for path in SHARED.rglob("*.py")
        if path.relative_to(SHARED).parts[0] != "devtools" and "ATS_TEST_" in path.read_text()
    }


def test_no_production_module_reads_a_test_switch() -> None:
    assert _readers() - ALLOWED == set()


def test_the_services_name_their_interleaving_points() -> None:
    """The points the interleaving tests hold are announced, not read from the environment."""
    for module, steps in {
        "candidates/services.py": ["MERGE", "DEDUPE"],
        "scoring/services.py": ["SCORE", "RESCORE"],
        "audit/services.py": ["verify-row", "export-after-put"],
        "retention/services.py": ["ERASE"],
    }.items():
        text = (SHARED / module).read_text()
        for step in steps:
            assert f'checkpoints.reach("{step}"' in text, (module, step)


def test_without_a_receiver_every_row_lock_is_taken_and_a_point_does_nothing() -> None:
    from ats.config import checkpoints

    saved_reached, saved_lock = checkpoints.reached.receivers, checkpoints.row_lock_wanted.receivers
    try:
        checkpoints.reached.receivers, checkpoints.row_lock_wanted.receivers = [], []
        checkpoints.reached.sender_receivers_cache.clear()
        checkpoints.row_lock_wanted.sender_receivers_cache.clear()
        assert checkpoints.row_lock("SCORE") is True
        checkpoints.reach("SCORE")
    finally:
        checkpoints.reached.receivers, checkpoints.row_lock_wanted.receivers = saved_reached, saved_lock
        checkpoints.reached.sender_receivers_cache.clear()
        checkpoints.row_lock_wanted.sender_receivers_cache.clear()
