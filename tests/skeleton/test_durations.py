"""tests/durations.py: the fast loop's cost rule and the dearest-first order."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import durations

pytestmark = pytest.mark.unit


def test_modules_run_dearest_first_each_in_its_own_order() -> None:
    ids = [
        "tests/a/test_cheap.py::test_1",
        "tests/a/test_cheap.py::test_2",
        "tests/b/test_dear.py::test_1",
        "tests/b/test_dear.py::test_2",
        "tests/c/test_new.py::test_1",
    ]
    costs = {ids[0]: 0.1, ids[1]: 0.1, ids[2]: 0.2, ids[3]: 30.0}
    order = [ids[i] for i in durations.dearest_first(ids, costs)]
    assert order == [ids[2], ids[3], ids[0], ids[1], ids[4]]


def test_a_package_with_a_shared_stack_stays_one_group() -> None:
    ids = [
        "tests/web/journeys/test_a.py::test_1",
        "tests/web/test_pages.py::test_1",
        "tests/web/journeys/test_b.py::test_1",
    ]
    costs = {ids[0]: 1.0, ids[1]: 5.0, ids[2]: 10.0}
    order = [ids[i] for i in durations.dearest_first(ids, costs)]
    assert order == [ids[0], ids[2], ids[1]]


def test_dear_is_at_or_above_the_fast_loops_bound() -> None:
    costs = {"x": durations.FAST_LOOP_MAX_S, "y": durations.FAST_LOOP_MAX_S - 0.01}
    assert durations.is_dear("x", costs) and not durations.is_dear("y", costs)
    assert not durations.is_dear("unknown", costs)


def test_junit_classnames_become_node_ids(tmp_path: Path) -> None:
    xml = tmp_path / "run.xml"
    xml.write_text(
        '<testsuites><testsuite><testcase classname="tests.skeleton.test_durations" name="test_x[a-b]" time="1.5"/>'
        '<testcase classname="tests.jobs.test_machinery.TestOnASharedWorker" name="test_y" time="2"/>'
        "</testsuite></testsuites>"
    )
    assert durations.from_junit([xml]) == {
        "tests/skeleton/test_durations.py::test_x[a-b]": 1.5,
        "tests/jobs/test_machinery.py::TestOnASharedWorker::test_y": 2.0,
    }


def test_the_recorded_file_names_this_suites_tests() -> None:
    costs = durations.load()
    assert len(costs) > 1000
    missing = [n for n in costs if not (durations.REPO / n.split("::", 1)[0]).is_file()]
    # A module renamed since the recording: its tests fall back to the static rules.
    assert len(missing) < len(costs) // 10, missing[:10]
