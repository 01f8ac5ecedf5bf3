"""`python -m ats.devtools.fake_graph --seed-demo` works for `just up` demos."""

from __future__ import annotations

import base64
import os
import signal
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

import httpx

from ats.devtools.fake_graph import DEMO_MAILBOX
from ats.mail.api import Deadline, GraphClient, GraphConfig, IntakeBatch, poll_mailbox


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_cli_serves_seeded_demo_mailbox(tmp_path: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ats.devtools.fake_graph",
            "--port",
            str(port),
            "--seed-demo",
            "--state-dir",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        env: dict[str, str] = {}
        deadline = time.monotonic() + 20
        assert proc.stdout is not None
        while "ATS_GRAPH_CA_BUNDLE" not in env and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            key, sep, value = line.strip().partition("=")
            if sep and key.startswith("ATS_GRAPH_"):
                env[key] = value
        assert "ATS_GRAPH_CA_BUNDLE" in env, proc.stderr.read() if proc.stderr else ""
        config = GraphConfig(
            tenant_id=env["ATS_GRAPH_TENANT_ID"],
            client_id=env["ATS_GRAPH_CLIENT_ID"],
            client_secret=env["ATS_GRAPH_CLIENT_SECRET"],
            authority_host=env["ATS_GRAPH_AUTHORITY"],
            graph_base_url=env["ATS_GRAPH_BASE_URL"],
            verify=env["ATS_GRAPH_CA_BUNDLE"],
        )
        batches: list[IntakeBatch] = []
        with GraphClient(config) as client:
            first = poll_mailbox(
                client=client,
                mailbox=DEMO_MAILBOX,
                delta_link=None,
                deadline=Deadline.after(10),
                on_batch=batches.append,
            )
            names = sorted(a.name or "" for b in batches for i in b.items for a in i.attachments)
            assert first.messages_handed_over == 4
            assert [n for n in names if n.endswith((".pdf", ".docx"))] == [
                "Ada_Example_CV.pdf",
                "Grace_Sample_CV.docx",
                "Lin_Demo_CV.pdf",
            ]
            pdf = next(a for b in batches for i in b.items for a in i.attachments if a.name == "Ada_Example_CV.pdf")
            assert pdf.content.startswith(b"%PDF")

            # Another process (a demo script) delivers mail through the control endpoint.
            resp = httpx.post(
                f"{env['ATS_GRAPH_AUTHORITY']}/_fake/mailboxes/{DEMO_MAILBOX}/messages",
                json={
                    "subject": "Late application",
                    "from": "late@example.org",
                    "attachments": [
                        {
                            "name": "late.pdf",
                            "contentType": "application/pdf",
                            "contentBase64": base64.b64encode(b"%PDF-1.4 late").decode(),
                        }
                    ],
                },
                verify=ssl.create_default_context(cafile=env["ATS_GRAPH_CA_BUNDLE"]),
                timeout=5,
            )
            assert resp.status_code == 201
            batches.clear()
            second = poll_mailbox(
                client=client,
                mailbox=DEMO_MAILBOX,
                delta_link=first.new_delta_link,
                deadline=Deadline.after(10),
                on_batch=batches.append,
            )
            assert second.messages_handed_over == 1
            assert batches[0].items[0].attachments[0].content == b"%PDF-1.4 late"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
    assert proc.returncode == 0
