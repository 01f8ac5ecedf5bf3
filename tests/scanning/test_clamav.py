"""ats.scanning.clamav against a real clamd 1.4 with the shipped EICAR-only signature DB."""

from __future__ import annotations

import os
import pwd
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

import pytest

from ats.devtools.api import ClamdLocal, HarnessError, free_tcp_port
from ats.scanning.api import (
    ClamdEndpoint,
    Clean,
    Infected,
    ScanFailed,
    ScannerUnavailable,
    ScanStatus,
    parse_version,
    ping,
    scan_bytes,
    scanner_version,
)
from tests.scanning.conftest import STREAM_MAX
from tests.scanning.samples import EICAR, TEST_SIGNATURE, make_docx, make_pdf


def test_eicar_plain_is_infected_with_signature_name(endpoint: ClamdEndpoint) -> None:
    verdict = scan_bytes(EICAR, endpoint)
    assert isinstance(verdict, Infected)
    assert verdict.signature == TEST_SIGNATURE
    assert verdict.status is ScanStatus.INFECTED


def test_eicar_in_the_middle_of_a_file_is_found(endpoint: ClamdEndpoint) -> None:
    # .ndb body signatures with offset "*" match anywhere, not only whole files (.hdb).
    verdict = scan_bytes(b"%PDF-1.7\n" + b"A" * 200_000 + EICAR + b"B" * 1000, endpoint)
    assert isinstance(verdict, Infected)


@pytest.mark.parametrize("compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED], ids=["stored", "deflated"])
def test_eicar_inside_docx_is_infected(endpoint: ClamdEndpoint, compression: int) -> None:
    # Deflate hides the bytes from a plain byte search; clamd still finds it because
    # ScanArchive (default yes) unpacks the OOXML ZIP and scans each member.
    docx = make_docx(EICAR, compression=compression)
    if compression == zipfile.ZIP_DEFLATED:
        assert EICAR not in docx
    verdict = scan_bytes(docx, endpoint)
    assert isinstance(verdict, Infected)
    assert verdict.signature == TEST_SIGNATURE


def test_eicar_in_a_zip_nested_in_a_docx_is_infected(endpoint: ClamdEndpoint) -> None:
    inner = make_docx(EICAR)
    verdict = scan_bytes(make_docx(b"cv", extra={"word/embeddings/oleObject1.bin": inner}), endpoint)
    assert isinstance(verdict, Infected)


def test_clean_pdf_and_docx_are_clean(endpoint: ClamdEndpoint) -> None:
    for data in (make_pdf(), make_docx(b"Jane Doe, Software Engineer")):
        verdict = scan_bytes(data, endpoint)
        assert isinstance(verdict, Clean), verdict
        assert verdict.status is ScanStatus.CLEAN


def test_version_is_recorded_with_each_verdict(endpoint: ClamdEndpoint) -> None:
    version = scanner_version(endpoint)
    # Only custom (unversioned) signature files are loaded: no DB number/date.
    assert version.raw.startswith("ClamAV 1.")
    assert version.engine.count(".") == 2
    assert version.db_version is None
    for data in (EICAR, b"hello"):
        assert scan_bytes(data, endpoint).scanner == version


def test_parse_version_with_the_official_db() -> None:
    v = parse_version("ClamAV 1.4.6/27470/Sun Nov 29 09:30:25 2026")
    assert (v.engine, v.db_version, v.db_date) == ("1.4.6", 27470, "Sun Nov 29 09:30:25 2026")
    assert parse_version("something else").engine == "unknown"


def test_stream_over_clamd_limit_is_a_typed_error(clamd_daemon: ClamdLocal) -> None:
    # Client allows more than clamd's StreamMaxLength: clamd answers "INSTREAM size limit
    # exceeded. ERROR" and closes mid-stream; that must be a ScanFailed, not a crash.
    ep = ClamdEndpoint(host="127.0.0.1", port=clamd_daemon.port, timeout=10, max_stream_bytes=8 * STREAM_MAX)
    verdict = scan_bytes(b"\0" * (STREAM_MAX + 1024 * 1024), ep)
    assert isinstance(verdict, ScanFailed)
    assert "size limit" in verdict.reason
    assert verdict.status is ScanStatus.ERROR


def test_stream_over_client_limit_is_not_sent(endpoint: ClamdEndpoint) -> None:
    verdict = scan_bytes(b"\0" * (endpoint.max_stream_bytes + 1), endpoint)
    assert isinstance(verdict, ScanFailed)
    assert "max_stream_bytes" in verdict.reason


def test_stopped_clamd_raises_scanner_unavailable(tmp_path: Path) -> None:
    daemon = ClamdLocal(state_dir=tmp_path / "c", unix_socket=True)
    daemon.start()
    # Measured, not bounded (a ceiling measured the machine's load): the scans below show it up.
    assert daemon.startup_seconds is not None and daemon.startup_seconds > 0
    tcp, unix = daemon.endpoint(via="tcp", timeout=2), daemon.endpoint(via="unix", timeout=2)
    assert isinstance(scan_bytes(EICAR, tcp), Infected)
    daemon.stop()
    assert not daemon.socket_path.exists()  # clamd cleans up its socket on SIGTERM
    for ep in (tcp, unix):
        started = time.monotonic()
        with pytest.raises(ScannerUnavailable):
            scan_bytes(EICAR, ep)
        with pytest.raises(ScannerUnavailable):
            ping(ep)
        assert time.monotonic() - started < 1  # refused / missing socket fail fast


def test_silent_peer_times_out_as_scanner_unavailable() -> None:
    # A listener that accepts but never answers (hung clamd): bounded by the timeout.
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen()
        ep = ClamdEndpoint(host="127.0.0.1", port=srv.getsockname()[1], connect_timeout=0.5, timeout=0.3)
        started = time.monotonic()
        with pytest.raises(ScannerUnavailable, match="no reply"):
            scan_bytes(EICAR, ep)
        assert time.monotonic() - started < 2


def test_peer_closing_without_reply_is_scanner_unavailable() -> None:
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen()

        def accept_and_close() -> None:
            conn, _ = srv.accept()
            conn.recv(64)
            conn.close()

        t = threading.Thread(target=accept_and_close)
        t.start()
        with pytest.raises(ScannerUnavailable, match="without a reply"):
            ping(ClamdEndpoint(host="127.0.0.1", port=srv.getsockname()[1], timeout=2))
        t.join()


def test_endpoint_validation() -> None:
    with pytest.raises(ValueError):
        ClamdEndpoint()
    with pytest.raises(ValueError):
        ClamdEndpoint(host="127.0.0.1", port=3310, unix_socket="/x")
    with pytest.raises(ValueError):
        ClamdEndpoint(host="127.0.0.1")
    with pytest.raises(ValueError):
        ClamdEndpoint(unix_socket="/x", timeout=0)


@pytest.mark.skipif(os.geteuid() != 0, reason="privilege drop needs root")
def test_run_as_clamav_user_when_root() -> None:
    try:
        clamav = pwd.getpwnam("clamav")
    except KeyError:
        pytest.skip("no clamav user (clamav-daemon not installed)")
    # clamd drops privileges before reading its DB, so the state dir must be reachable
    # by 'clamav': pytest's 0700 /tmp/pytest-of-root is not, a fresh /tmp dir is.
    with tempfile.TemporaryDirectory(prefix="ats-clamd-") as d:
        with ClamdLocal(state_dir=Path(d), port=None, unix_socket=True, user="clamav") as daemon:
            status = Path(f"/proc/{daemon.pid}/status").read_text()
            uid_line = next(line for line in status.splitlines() if line.startswith("Uid:"))
            assert uid_line.split()[1] == str(clamav.pw_uid)
            assert isinstance(scan_bytes(EICAR, daemon.endpoint(via="unix")), Infected)
        os.chown(d, 0, 0)  # hand it back so TemporaryDirectory can clean up as usual


@pytest.mark.skipif(os.geteuid() != 0, reason="privilege drop needs root")
def test_run_as_user_refuses_untraversable_state_dir() -> None:
    # mkdtemp makes the outer dir 0700 root-owned: clamav cannot reach the state dir.
    with (
        tempfile.TemporaryDirectory(prefix="ats-clamd-") as outer,
        pytest.raises(HarnessError, match="not traversable"),
    ):
        ClamdLocal(state_dir=Path(outer) / "c", port=None, unix_socket=True, user="clamav").prepare()


def test_cli_runs_clamd_in_the_foreground(tmp_path: Path) -> None:
    port = free_tcp_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ats.devtools.clamd_local", "--state-dir", str(tmp_path), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        ep = ClamdEndpoint(host="127.0.0.1", port=port, connect_timeout=0.5, timeout=2)
        deadline = time.monotonic() + 15
        while True:
            try:
                ping(ep)
                break
            except ScannerUnavailable:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                assert time.monotonic() < deadline
                time.sleep(0.05)
        # exec'd: the pid we started *is* clamd, so supervisors' signals reach it.
        assert Path(f"/proc/{proc.pid}/exe").resolve() == Path("/usr/sbin/clamd")
        assert isinstance(scan_bytes(EICAR, ep), Infected)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stderr:
            proc.stderr.close()
