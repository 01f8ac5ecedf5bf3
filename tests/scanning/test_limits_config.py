"""Issue 28 item 4, scanner side: clamd's limit verdicts (Heuristics.Limits.Exceeded.*)
are "could not be scanned completely", never malware; and the scanner's limits with
AlertExceedsMax are ONE configuration (services/clamd/limits.conf) that `just up`
(ats.devtools.clamd_local), compose (the dev clamd image) and k8s all use, sized against
the upload limit. Real clamd, real file: pikepdf's PDF/A test file (tests/scanning/data,
CC-PDDC; see NOTICE) has an embedded stream that decompresses past MaxFileSize."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from ats.devtools import clamd_limits
from ats.devtools.api import ClamdLocal
from ats.scanning.api import Clean, Infected, ScanIncomplete, ScanStatus, is_scanner_limit, scan_bytes
from tests.scanning.samples import EICAR, TEST_SIGNATURE

REPO = Path(__file__).resolve().parents[2]
PDFA = Path(__file__).parent / "data" / "pikepdf-pdfa-multipage.pdf"


def _directives(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def _default_upload_limit() -> int:
    # settings.py: "MAX_UPLOAD_BYTES": env.integer("ATS_MAX_UPLOAD_BYTES", default=20 * 1024 * 1024)
    src = (REPO / "shared" / "ats" / "config" / "settings.py").read_text()
    m = re.search(r'"ATS_MAX_UPLOAD_BYTES", default=([\d\s*]+)\)', src)
    assert m, "the upload limit's default moved; update this test"
    n = 1
    for factor in m.group(1).split("*"):
        n *= int(factor)
    return n


def _configured_upload_limits() -> list[int]:
    """Every ATS_MAX_UPLOAD_BYTES compose or k8s sets (none today: the default applies)."""
    out = []
    for path in [REPO / "compose.yaml", *sorted((REPO / "k8s").rglob("*.yaml"))]:
        out += [int(v) for v in re.findall(r"ATS_MAX_UPLOAD_BYTES\D{1,6}(\d+)", path.read_text())]
    return out


def test_one_limits_config_for_just_up_compose_and_k8s(tmp_path: Path) -> None:
    lines = clamd_limits.limit_lines("standard")
    limits = clamd_limits.limits("standard")
    assert limits["AlertExceedsMax"] == "yes"
    # just up / the test harness: the generated clamd.conf carries the lines verbatim.
    local_conf = ClamdLocal(state_dir=tmp_path / "c").prepare().read_text()
    assert [d for d in _directives(local_conf) if d.split()[0] in limits] == lines
    # compose: the dev clamd image appends the very file to its clamd.conf.
    dockerfile = (REPO / "services" / "dev-images" / "clamd.Dockerfile").read_text()
    assert "COPY services/clamd/limits.conf" in dockerfile and ">> /etc/clamav/clamd.conf" in dockerfile
    inline = re.findall(r"'((?:StreamMaxLength|MaxFileSize|MaxScanSize|AlertExceedsMax)[^']*)'", dockerfile)
    assert inline == [], f"limits set inline in the image, beside the shared file: {inline}"
    # k8s: the ConfigMap's clamd.conf holds the same lines between the markers, and no
    # other limit line anywhere else in it.
    k8s = (REPO / "k8s" / "base" / "clamav" / "clamd.conf").read_text()
    block = k8s.split("# BEGIN services/clamd/limits.conf", 1)[1].split("# END services/clamd/limits.conf", 1)[0]
    assert _directives(block) == lines
    assert [d for d in _directives(k8s) if d.split()[0] in limits] == lines
    # Sized against the upload limit: a whole upload fits one stream and one file.
    upload = max([_default_upload_limit(), *_configured_upload_limits()])
    stream = clamd_limits.size_bytes(limits["StreamMaxLength"])
    assert stream >= upload
    assert clamd_limits.size_bytes(limits["MaxFileSize"]) >= upload
    assert clamd_limits.size_bytes(limits["MaxScanSize"]) >= stream
    # The raised profile: the same keys, every limit at least as large, alerting kept.
    raised = clamd_limits.limits("raised")
    assert set(raised) == set(limits) and raised["AlertExceedsMax"] == "yes"
    for key in ("MaxFileSize", "MaxScanSize"):
        assert clamd_limits.size_bytes(raised[key]) > clamd_limits.size_bytes(limits[key])


def test_scanner_limit_names() -> None:
    for name in (
        "Heuristics.Limits.Exceeded.MaxFileSize",
        "Heuristics.Limits.Exceeded.MaxScanSize",
        "Heuristics.Limits.Exceeded.MaxRecursion",
        "Heuristics.Limits.Exceeded.MaxFiles",
        "Heuristics.Limits.Exceeded.MaxScanTime",
    ):
        assert is_scanner_limit(name)
    for name in (TEST_SIGNATURE, "Win.Test.EICAR_HDB-1", "Heuristics.Encrypted.PDF", "Heuristics.Phishing.Email"):
        assert not is_scanner_limit(name)


@pytest.fixture(scope="module")
def standard_clamd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClamdLocal]:
    with ClamdLocal(state_dir=tmp_path_factory.mktemp("clamd-std")) as daemon:
        yield daemon


def test_pikepdf_pdfa_is_incomplete_not_malware(standard_clamd: ClamdLocal) -> None:
    verdict = scan_bytes(PDFA.read_bytes(), standard_clamd.endpoint(timeout=60))
    assert isinstance(verdict, ScanIncomplete), verdict
    assert verdict.limit == "Heuristics.Limits.Exceeded.MaxFileSize"
    assert verdict.status is ScanStatus.INCOMPLETE
    # Real signatures keep their verdict.
    eicar = scan_bytes(EICAR, standard_clamd.endpoint())
    assert isinstance(eicar, Infected) and eicar.signature == TEST_SIGNATURE


def test_raised_limits_clamd_scans_it_completely(tmp_path: Path) -> None:
    with ClamdLocal(state_dir=tmp_path / "raised", limits="raised") as daemon:
        assert isinstance(scan_bytes(PDFA.read_bytes(), daemon.endpoint(timeout=60)), Clean)
        assert isinstance(scan_bytes(EICAR, daemon.endpoint()), Infected)
