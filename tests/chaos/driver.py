"""`just chaos [--seed N] [--documents N]`: documents through mail and upload while the
stack is broken on purpose, then proof that nothing was lost or doubled.

The driver starts a whole stack of its own (a throw-away Postgres, clamd, the fake Graph
server, web, worker-default, worker-untrusted - the same harnesses as `just up` and the
test suite), feeds it a seeded mix of documents (text, scanned, hostile, byte-identical
duplicates, same-person re-sends) through the fake Graph mailbox and the web upload API,
and meanwhile:

- SIGKILLs each worker at random intervals and restarts it (as a pod restart would);
- SIGTERMs worker-untrusted while a parse is running (a deploy);
- restarts Postgres twice: `pg_ctl stop -m fast`, later `-m immediate` (crash recovery);
- stops clamd for a while (60 s in the full run);
- makes the Graph server answer bursts of 429 (with Retry-After) and 503.

Any worker that exits by itself (its watchdog after losing the fence in a Postgres
restart, procrastinate's stop after its listener died) is restarted too, like k8s would.
When the last fault has ended it waits until everything settled, then checks: every
document terminal (failures with a reason), `ats intake-verify` = 0, no duplicate
candidates (per source document, or per person's byte-identical documents), no duplicate
applications or `ats_result` rows per fingerprint, and the settle time. The report (JSON
and Markdown) lists each fault and what recovered it.

Postgres runs durable (fsync and synchronous_commit on, unlike the development cluster):
an immediate shutdown is a crash, and a crash must not take back an acknowledged commit.

Test-only timing (say so in any report): heartbeats 1 s, stalled after 5 s, rescue every
3 s, mail polls every 3 s, and `ATS_RETRY_TIME_SCALE` (full run 0.5, reduced run 0.2)
multiplying every ADR backoff so the retries fit the run.

    python -m tests.chaos.driver [--seed N] [--documents N] [--report-dir DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import http.cookiejar
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import psycopg

from ats.config.env import with_user
from ats.devtools import pg_local
from ats.devtools._localproc import free_tcp_port
from ats.devtools.clamd_local import ClamdLocal
from ats.devtools.fake_graph import FakeAttachment, FakeGraph
from tests import corpus
from tests.conftest import ATS, REPO, Worker

MAILBOX = "chaos@contoso.example"
EICAR = rb"X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*"
PDF, DOCX = "application/pdf", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
TERMINAL_OK = {"candidate_created", "duplicate", "discarded"}
TERMINAL_FAILED = {
    "rejected_empty",
    "rejected_too_large",
    "rejected_unsupported_type",
    "blocked_malware",
    "scan_failed",
    "parse_failed",
    "candidate_failed",
    # Needs attention, terminal: a document without a person's details, and one the scanner
    # could not scan completely (issue 28).
    "no_candidate_details",
    "scan_incomplete",
}
WORK_QUEUES = ("ingest", "parse", "score")


def log(msg: str) -> None:
    print(f"[chaos {time.strftime('%H:%M:%S')}] {msg}", flush=True)


# --------------------------------------------------------------------------- profile


@dataclasses.dataclass(frozen=True)
class Profile:
    documents: int
    feed_s: float  # documents arrive spread over this long
    kill_every_s: tuple[float, float]  # per worker, uniform
    down_s: tuple[float, float]  # a killed worker is restarted after this long
    clamd_down_s: float
    pg_restarts: tuple[str, ...]
    graph_bursts: int
    retry_scale: float
    settle_timeout_s: float

    @classmethod
    def for_documents(cls, n: int) -> Profile:
        if n < 100:  # the reduced form `just test` runs: fewer faults, shorter outages
            return cls(n, 40.0, (10.0, 20.0), (0.5, 2.0), 15.0, ("immediate",), 2, 0.2, 150.0)
        return cls(n, max(240.0, n * 0.8), (25.0, 60.0), (1.0, 4.0), 60.0, ("fast", "immediate"), 4, 0.5, 900.0)


# --------------------------------------------------------------------------- documents


@dataclasses.dataclass
class Doc:
    n: int
    kind: str  # text | scanned | hostile:<what> | duplicate | resend
    person: int | None
    filename: str
    data: bytes
    content_type: str
    channel: str = ""
    sha256: str = ""
    duplicate_of: int | None = None

    def __post_init__(self) -> None:
        self.sha256 = hashlib.sha256(self.data).hexdigest()


# A person's name is letters only: "Chaos Person 0042" was no name to the extractor, so every
# CV ended `no_candidate_details` and the run never made a candidate under its faults (1 of
# 305 people in a 500-document run, stop 44). Unique below 400 people (a 500-document run
# sends ~300); past that two people may share a name - their e-mails and phones still differ.
_FIRST = (
    "Amara", "Bruno", "Chiara", "Dmitri", "Elena", "Farid", "Grace", "Hiroshi", "Ines", "Jonas",
    "Keira", "Luca", "Maren", "Nikolai", "Olivia", "Pavel", "Quinn", "Rosa", "Sven", "Tariq",
)  # fmt: skip
_LAST = (
    "Okafor", "Lindqvist", "Moreau", "Petrov", "Haddad", "Tanaka", "Novak", "Fischer", "Silva", "Kowalski",
    "Brennan", "Rossi", "Jensen", "Duarte", "Nakamura", "Weber", "Achebe", "Larsen", "Costa", "Varga",
)  # fmt: skip


def person_name(person: int) -> str:
    return f"{_FIRST[person % len(_FIRST)]} {_LAST[(person // len(_FIRST)) % len(_LAST)]}"


def _cv_lines(person: int, seed: int, version: int) -> list[str]:
    first, last = person_name(person).lower().split()
    lines = [
        person_name(person),
        # Not an example.* domain: those are template placeholders, never used to match people.
        f"{first}.{last}.{person}.s{seed}@chaos-mail.net",
        f"+44 20 7946 {person % 10000:04d}",
        "",
        "Experience",
        f"Software Engineer, Example {person % 17} Ltd, 2016-2024",
        "Built services in Python, Django and PostgreSQL on Kubernetes.",
        "",
        "Skills",
        "Python, Django, PostgreSQL, Kubernetes, SQL",
    ]
    if version:
        lines.append(f"Updated CV, version {version + 1}")
    return lines


def _text_pdf(lines: list[str]) -> bytes:
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = 90.0
    for line in lines:
        if line:
            page.insert_text((72, y), line, fontsize=14, fontname="helv")
        y += 22
    data: bytes = doc.tobytes(deflate=True)
    doc.close()
    return data


def _scanned_pdf(lines: list[str]) -> bytes:
    import pymupdf

    src = pymupdf.open(stream=_text_pdf(lines), filetype="pdf")
    pix = src[0].get_pixmap(dpi=150)
    out = pymupdf.open()
    page = out.new_page(width=595, height=842)
    page.insert_image(page.rect, stream=pix.tobytes("png"))
    data: bytes = out.tobytes(deflate=True)
    out.close()
    src.close()
    return data


def _docx(lines: list[str]) -> bytes:
    import io

    import docx

    d = docx.Document()
    for line in lines:
        d.add_paragraph(line)
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


HOSTILE = (
    ("encrypted", lambda i: (corpus.encrypted_pdf(), "cv.pdf", PDF)),
    ("truncated", lambda i: (corpus.truncated_pdf_at(0.3 + (i % 5) / 10), "cv.pdf", PDF)),
    ("garbage", lambda i: (corpus.garbage(3000 + i, seed=i), "cv.pdf", PDF)),
    ("eicar", lambda i: (EICAR + f" {i}".encode(), "cv.pdf", PDF)),
    ("empty", lambda i: (b"", "empty.pdf", PDF)),
    ("billion_laughs", lambda i: (corpus.billion_laughs_docx(), "cv.docx", DOCX)),
    ("zip_bomb", lambda i: (corpus.zip_bomb_docx(mib=30), "cv.docx", DOCX)),
    ("pixel_bomb", lambda i: (corpus.pixel_bomb_png(), "scan.png", "image/png")),
    ("unsupported", lambda i: (f"plain text CV {i}\n".encode() * 20, "cv.txt", "text/plain")),
)


def make_documents(rng: random.Random, n: int, seed: int) -> list[Doc]:
    docs: list[Doc] = []
    people: dict[int, int] = {}  # person -> versions sent
    next_person = 1
    weights = {"text": 55, "scanned": 5, "hostile": 12, "duplicate": 14, "resend": 14}
    for i in range(n):
        kind = rng.choices(list(weights), list(weights.values()))[0]
        if kind in {"duplicate", "resend"} and not people:
            kind = "text"
        if kind == "duplicate" and docs:
            orig = rng.choice(docs)
            docs.append(
                Doc(i, "duplicate", orig.person, orig.filename, orig.data, orig.content_type, duplicate_of=orig.n)
            )
            continue
        if kind == "resend":
            person = rng.choice(sorted(people))
            people[person] += 1
            lines = _cv_lines(person, seed, people[person])
            if rng.random() < 0.5:
                docs.append(Doc(i, "resend", person, f"cv-{person}-v{people[person]}.docx", _docx(lines), DOCX))
            else:
                docs.append(Doc(i, "resend", person, f"cv-{person}-v{people[person]}.pdf", _text_pdf(lines), PDF))
            continue
        if kind == "hostile":
            what, make = rng.choice(HOSTILE)
            data, filename, ctype = make(i)
            docs.append(Doc(i, f"hostile:{what}", None, filename, data, ctype))
            continue
        person, next_person = next_person, next_person + 1
        people[person] = 0
        lines = _cv_lines(person, seed, 0)
        if kind == "scanned":
            docs.append(Doc(i, "scanned", person, f"scan-{person}.pdf", _scanned_pdf(lines), PDF))
        elif rng.random() < 0.7:
            docs.append(Doc(i, "text", person, f"cv-{person}.pdf", _text_pdf(lines), PDF))
        else:
            docs.append(Doc(i, "text", person, f"cv-{person}.docx", _docx(lines), DOCX))
    for d in docs:
        d.channel = "mail" if rng.random() < 0.5 else "upload"
    return docs


# --------------------------------------------------------------------------- stack


class Web:
    """The web deployable and a logged-in client of its upload API."""

    def __init__(self, env: dict[str, str], state: Path) -> None:
        self.port = free_tcp_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = (state / "web.log").open("ab")
        self.proc = subprocess.Popen(
            [*ATS, "web", "--workers", "1"],
            env={**env, "ATS_WEB_BIND": f"127.0.0.1:{self.port}", "ATS_PROCESS_NAME": "chaos-web"},
            stdout=self.log,
            stderr=subprocess.STDOUT,
            cwd=REPO,
            start_new_session=True,
        )
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def wait_up(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), self.opener.open(self.base + "/healthz", timeout=2) as resp:
                if resp.status == 200:
                    return
            time.sleep(0.3)
        raise RuntimeError("web did not come up")

    def login(self, user: str, password: str) -> None:
        with self.opener.open(self.base + "/login/", timeout=30) as resp:
            page = resp.read().decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert token, "login page has no CSRF token"
        form = urllib.parse.urlencode(
            {"username": user, "password": password, "csrfmiddlewaretoken": token.group(1), "next": "/healthz"}
        ).encode()
        req = urllib.request.Request(self.base + "/login/", data=form, method="POST", headers={"Referer": self.base})
        with self.opener.open(req, timeout=30) as resp:
            resp.read()
        assert any(c.name == "sessionid" for c in self.jar), "login did not create a session"

    def upload(self, doc: Doc, requisition: int | None) -> dict[str, Any]:
        boundary = uuid.uuid4().hex
        body = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="{doc.filename}"\r\n'
            f"Content-Type: {doc.content_type}\r\n\r\n".encode()
            + doc.data
            + b"\r\n"
        )
        if requisition is not None:
            body += (
                f'--{boundary}\r\nContent-Disposition: form-data; name="requisition"\r\n\r\n{requisition}\r\n'
            ).encode()
        body += f"--{boundary}--\r\n".encode()
        csrf = next(c.value for c in self.jar if c.name == "csrftoken")
        headers = {
            "Content-Type": f"multipart/form-data; boundary={boundary}",
            "X-CSRFToken": csrf,
            "Referer": self.base,
        }
        req = urllib.request.Request(self.base + "/api/intake/upload", data=body, method="POST", headers=headers)
        with self.opener.open(req, timeout=60) as resp:
            result: dict[str, Any] = json.loads(resp.read())
            return result

    def stop(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(40)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.log.close()


class Supervised:
    """One worker deployable, restarted whenever it is down and not held down (k8s-like)."""

    def __init__(self, deployable: str, env: dict[str, str]) -> None:
        self.deployable = deployable
        self.env = env
        self.generation = 0
        self.worker: Worker | None = None
        self.hold_until = 0.0
        self.exits: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def start(self) -> None:
        self.generation += 1
        self.worker = Worker(self.deployable, self.env, f"chaos-{self.deployable}-{self.generation}", [])

    def pid(self) -> int | None:
        return self.worker.proc.pid if self.worker else None

    def worker_id(self) -> int | None:
        """The running process's `procrastinate_workers` id, from its status file (written
        at registration: by then its signal handlers are installed)."""
        from ats.jobs.health import read_status, status_path

        if self.worker is None:
            return None
        status = read_status(status_path(self.worker.name)) or {}
        return status.get("worker_id") if status.get("pid") == self.worker.proc.pid else None

    def signal(self, sig: int, hold_s: float = 0.0) -> None:
        with self.lock:
            self.hold_until = time.monotonic() + hold_s
            if self.worker is not None:
                self.worker.signal(sig)

    def tick(self) -> None:
        """Restart when the process ended and no hold is in force; record why it ended."""
        with self.lock:
            w = self.worker
            if w is None or w.proc.poll() is None or time.monotonic() < self.hold_until:
                return
            self.exits.append({"worker": w.name, "rc": w.proc.returncode, "at": time.monotonic()})
            w.stop()
            self.start()

    def stop(self) -> None:
        with self.lock:
            if self.worker is not None:
                self.worker.stop(timeout=100)


class Db:
    """Fresh connection per question: the driver must survive the Postgres restarts."""

    def __init__(self, url: str) -> None:
        self.url = url

    def rows(self, sql: str, params: list[Any] | None = None, *, tries: int = 60) -> list[tuple[Any, ...]]:
        for attempt in range(tries):
            try:
                with psycopg.connect(self.url, connect_timeout=3, autocommit=True) as conn:
                    return list(conn.execute(sql, params or []).fetchall())  # type: ignore[arg-type]
            except psycopg.OperationalError:
                if attempt == tries - 1:
                    raise
                time.sleep(1)
        raise AssertionError("unreachable")

    def one(self, sql: str, params: list[Any] | None = None) -> Any:
        return self.rows(sql, params)[0][0]


# --------------------------------------------------------------------------- the run


@dataclasses.dataclass
class Fault:
    kind: str
    target: str
    started: float  # seconds since the run started
    ended: float | None = None
    detail: dict[str, Any] = dataclasses.field(default_factory=dict)
    recovered_by: str = ""


class Chaos:
    def __init__(self, seed: int, profile: Profile, root: Path) -> None:
        self.seed = seed
        self.profile = profile
        # One generator per concern: the feeder thread and the fault loop run side by side,
        # so sharing one would make the choices depend on thread timing.
        self.doc_rng = random.Random(seed)
        self.rng = random.Random(seed * 7919 + 1)  # the feeder
        self.fault_rng = random.Random(seed * 7919 + 2)
        self.root = root
        self.t0 = time.monotonic()
        self.faults: list[Fault] = []
        self.sent: list[Doc] = []
        self.upload_retries = 0
        self.expected = 0  # attachment rows the documents sent must produce
        self.feed_done = threading.Event()
        self.stop_feed = threading.Event()

    def now(self) -> float:
        return round(time.monotonic() - self.t0, 1)

    # ----------------------------------------------------------------- stack

    def start_stack(self) -> None:
        pg_local.ensure_pg_user()
        self.root.chmod(0o755)
        (self.root / "owner.pid").write_text(str(os.getpid()))  # pg_local reaps it if we die
        self.pg_dir = self.root / "data"
        self.pg_port = pg_local.free_port()
        self.url = pg_local.start(self.pg_dir, self.pg_port, durable=True)
        self.db = Db(self.url)
        state = self.root / "state"
        state.mkdir(mode=0o755)
        self.clamd = ClamdLocal(state_dir=self.root / "clamd", port=free_tcp_port())
        self.clamd.start()
        self.graph = FakeGraph(state_dir=self.root / "graph").start()
        self.graph.add_mailbox(MAILBOX)
        self.env = {
            **os.environ,
            "DATABASE_URL": self.url,
            "ATS_PARSE_DATABASE_URL": with_user(self.url, "ats_parse"),
            "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'shared'}",
            "ATS_STATE_DIR": str(state),
            "ATS_STORAGE_LOCAL_ROOT": str(state / "blobs"),
            "ATS_CLAMD_HOST": "127.0.0.1",
            "ATS_CLAMD_PORT": str(self.clamd.port),
            "ATS_CLAMD_TIMEOUT_S": "5",
            **self.graph.ats_env(),
            # Test-only timing (module docstring): the ADR's backoffs scaled to fit the run.
            "ATS_RETRY_TIME_SCALE": str(self.profile.retry_scale),
            "ATS_HEARTBEAT_INTERVAL_S": "1",
            "ATS_STALLED_WORKER_TIMEOUT_S": "5",
            "ATS_POLL_INTERVAL_S": "0.5",
            "ATS_RESCUE_CRON": "* * * * * */3",
            "ATS_MAIL_POLL_CRON": "* * * * * */3",
            "ATS_PROCRASTINATE_LOG_LEVEL": "WARNING",
            "ATS_LOG_LEVEL": "WARNING",
            # Web on loopback http, as `just up` runs it: secure cookies would never come
            # back over http, and the login's CSRF check refused it (403) - under pytest the
            # plugin set this, so only `just chaos` from a shell met it.
            "ATS_DEV_PLAIN_HTTP": "1",
        }
        self.env.pop("ATS_EXTRA_APPS", None)
        self.ats("migrate", "--no-input", "-v", "0")
        password_file = state / "admin-password"
        self.ats("ensure_admin", "--password-file", str(password_file))
        self.ats("channel-add", "--mailbox", MAILBOX)
        req = json.loads(
            self.ats("requisition", "create", "--title", "Chaos engineer", "--must-have", "python,postgresql", "--json")
        )
        self.requisition = int(req["id"])
        self.ats("channel", "set-requisition", MAILBOX, str(self.requisition))
        self.web = Web(self.env, state)
        self.web.wait_up()
        self.web.login("admin", password_file.read_text().strip())
        self.workers = {d: Supervised(d, self.env) for d in ("default", "untrusted")}
        for w in self.workers.values():
            w.start()
        log(
            f"stack up: postgres :{self.pg_port}, clamd :{self.clamd.port}, graph {self.graph.base_url}, "
            f"web {self.web.base}"
        )

    def ats(self, *args: str) -> str:
        res = subprocess.run([*ATS, *args], env=self.env, cwd=REPO, text=True, capture_output=True, timeout=300)
        if res.returncode != 0:
            raise RuntimeError(f"ats {' '.join(args)} failed ({res.returncode}): {res.stderr[-2000:]}")
        return res.stdout

    def stop_stack(self) -> None:
        for w in getattr(self, "workers", {}).values():
            with contextlib.suppress(Exception):
                w.stop()
        if hasattr(self, "web"):
            self.web.stop()
        if hasattr(self, "graph"):
            self.graph.stop()
        if hasattr(self, "clamd"):
            self.clamd.stop()
        if hasattr(self, "pg_dir"):
            pg_local.stop(self.pg_dir, mode="immediate")

    # ----------------------------------------------------------------- feeding

    def feed(self, docs: list[Doc]) -> None:
        gap = self.profile.feed_s / max(len(docs), 1)
        i = 0
        while i < len(docs) and not self.stop_feed.is_set():
            doc = docs[i]
            # Now and then a mail carries two documents.
            batch = [doc]
            if (
                doc.channel == "mail"
                and i + 1 < len(docs)
                and docs[i + 1].channel == "mail"
                and self.rng.random() < 0.15
            ):
                batch.append(docs[i + 1])
            if doc.channel == "mail":
                person = doc.person or 0
                self.graph.add_message(
                    MAILBOX,
                    subject=f"Application {doc.n}",
                    sender=f"person{person}@chaos-mail.net",
                    sender_name=person_name(person),
                    attachments=[FakeAttachment(d.filename, d.data, d.content_type) for d in batch],
                )
            else:
                self._upload(doc)
            self.sent.extend(batch)
            # The mail channel keeps the same bytes attached twice to one message as one
            # document (by design): expect one attachment row per distinct content.
            self.expected += len({d.sha256 for d in batch}) if doc.channel == "mail" else 1
            i += len(batch)
            time.sleep(gap * len(batch) * self.rng.uniform(0.5, 1.5))
        self.feed_done.set()

    def _upload(self, doc: Doc) -> None:
        requisition = self.requisition if self.rng.random() < 0.5 else None
        for _ in range(120):
            try:
                self.web.upload(doc, requisition)
                return
            except (urllib.error.URLError, OSError, ValueError) as exc:
                # A user retrying an upload that failed (Postgres down): the bytes may have
                # been stored already - then this is a byte-identical duplicate, as in life.
                self.upload_retries += 1
                if self.upload_retries % 10 == 1:
                    log(f"upload of document {doc.n} failed ({exc}); retrying")
                time.sleep(1)
        raise RuntimeError(f"upload of document {doc.n} failed for 2 minutes")

    # ----------------------------------------------------------------- faults

    def schedule(self) -> list[tuple[float, str, str]]:
        p, rng = self.profile, self.fault_rng
        events: list[tuple[float, str, str]] = []
        for deployable in ("default", "untrusted"):
            t = rng.uniform(*p.kill_every_s) / 2
            while t < p.feed_s:
                events.append((t, "sigkill", deployable))
                t += rng.uniform(*p.kill_every_s)
        events.append((p.feed_s * rng.uniform(0.25, 0.35), "sigterm_mid_parse", "untrusted"))
        for k, mode in enumerate(p.pg_restarts):
            events.append((p.feed_s * (0.4 + 0.3 * k) + rng.uniform(-3, 3), "pg_restart", mode))
        events.append((p.feed_s * rng.uniform(0.12, 0.2), "clamd_stop", "clamd"))
        for k in range(p.graph_bursts):
            status = "429" if k % 2 == 0 else "503"
            events.append((p.feed_s * (k + 0.5) / p.graph_bursts + rng.uniform(-2, 2), "graph_burst", status))
        return sorted(events)

    def supervise(self) -> None:
        for w in self.workers.values():
            w.tick()
        if self.clamd_back_at and time.monotonic() >= self.clamd_back_at:
            self.clamd.start()
            self.clamd_back_at = 0.0
            fault = next(f for f in self.faults if f.kind == "clamd_stop" and f.ended is None)
            fault.ended = self.now()
            log("clamd started again")

    def in_flight(self, queue: str | None = None) -> list[int]:
        sql = "SELECT id FROM procrastinate_jobs WHERE status = 'doing'"
        if queue:
            return [r[0] for r in self.db.rows(sql + " AND queue_name = %s", [queue])]
        return [r[0] for r in self.db.rows(sql)]

    def apply(self, kind: str, target: str) -> None:
        if kind == "sigkill":
            w = self.workers[target]
            queues = ("parse",) if target == "untrusted" else ("ingest", "score", "mail", "maintenance")
            jobs = [j for q in queues for j in self.in_flight(q)]
            down = self.fault_rng.uniform(*self.profile.down_s)
            f = Fault(kind, f"worker-{target} pid {w.pid()}", self.now(), detail={"jobs_in_flight": jobs})
            w.signal(signal.SIGKILL, hold_s=down)
            f.ended = round(self.now() + down, 1)
            self.faults.append(f)
            log(f"SIGKILL worker-{target} ({len(jobs)} jobs in flight), restart in {down:.1f}s")
        elif kind == "sigterm_mid_parse":
            w = self.workers[target]
            # Parses take tens of milliseconds (OCR about a second): watch closely.
            jobs: list[int] = []
            deadline = time.monotonic() + 90
            with psycopg.connect(self.url, autocommit=True) as conn:
                while not jobs and time.monotonic() < deadline:
                    # A parse of *this* process (a killed one's job stays `doing` until rescued).
                    wid = w.worker_id()
                    jobs = [
                        r[0]
                        for r in conn.execute(
                            "SELECT id FROM procrastinate_jobs WHERE status = 'doing' AND queue_name = 'parse'"
                            " AND worker_id = %s",
                            [wid],
                        ).fetchall()
                    ]
                    if not jobs:
                        time.sleep(0.005)
                        self.supervise()
            f = Fault(
                "sigterm_mid_parse", f"worker-untrusted pid {w.pid()}", self.now(), detail={"jobs_in_flight": jobs}
            )
            w.signal(signal.SIGTERM)
            assert w.worker is not None
            with contextlib.suppress(subprocess.TimeoutExpired):
                w.worker.proc.wait(100)
            f.detail["exit_code"] = w.worker.proc.returncode
            f.detail["worker"] = w.worker.name
            f.ended = self.now()
            self.faults.append(f)
            log(f"SIGTERM worker-untrusted mid-parse (jobs {jobs}): exited {w.worker.proc.returncode}")
        elif kind == "pg_restart":
            f = Fault("pg_restart", f"postgres -m {target}", self.now())
            pg_local.stop(self.pg_dir, mode=target)
            time.sleep(self.fault_rng.uniform(1, 4))
            pg_local.start(self.pg_dir, self.pg_port, durable=True)
            f.ended = self.now()
            self.faults.append(f)
            log(f"Postgres stopped (-m {target}) and started again in {f.ended - f.started:.1f}s")
        elif kind == "clamd_stop":
            self.clamd.stop()
            self.clamd_back_at = time.monotonic() + self.profile.clamd_down_s
            self.faults.append(Fault("clamd_stop", "clamd", self.now(), detail={"down_s": self.profile.clamd_down_s}))
            log(f"clamd stopped for {self.profile.clamd_down_s:.0f}s")
        elif kind == "graph_burst":
            status = int(target)
            n = self.fault_rng.randint(2, 3) if self.profile.documents < 100 else self.fault_rng.randint(3, 6)
            self.graph.inject(match="/messages", status=status, retry_after=1 if status == 429 else None, times=n)
            self.faults.append(Fault("graph_burst", f"Graph {status} x{n}", self.now(), ended=self.now()))
            log(f"Graph answers the next {n} mail requests with {status}")

    # ----------------------------------------------------------------- run

    def run(self) -> dict[str, Any]:
        p = self.profile
        log(f"seed {self.seed}: {p.documents} documents over {p.feed_s:.0f}s; retry scale {p.retry_scale}")
        docs = make_documents(self.doc_rng, p.documents, self.seed)
        self.start_stack()
        self.clamd_back_at = 0.0
        self.t0 = time.monotonic()
        feeder = threading.Thread(target=self.feed, args=(docs,), name="feeder", daemon=True)
        feeder.start()
        events = self.schedule()
        while events or self.clamd_back_at or not self.feed_done.is_set():
            self.supervise()
            if events and self.now() >= events[0][0]:
                _, kind, target = events.pop(0)
                self.apply(kind, target)
            time.sleep(0.2)
        # Everything restarted: let held-down workers come back before measuring the settle.
        while any(w.worker is None or w.worker.proc.poll() is not None for w in self.workers.values()):
            self.supervise()
            time.sleep(0.2)
        last_fault = max((f.ended or f.started) for f in self.faults) if self.faults else self.now()
        log(f"last fault ended at {last_fault:.1f}s; waiting for the stack to settle")
        settled_at = self.wait_settled(self.expected)
        report = self.check(settled_at, last_fault)
        return report

    def pending(self) -> dict[str, int]:
        counts = dict(
            self.db.rows(
                "SELECT queue_name, count(*) FROM procrastinate_jobs WHERE status IN ('todo', 'doing')"
                " AND queue_name = ANY(%s) GROUP BY 1",
                [list(WORK_QUEUES)],
            )
        )
        counts["attachments_waiting"] = self.db.one(
            "SELECT count(*) FROM intake_attachment WHERE state <> ALL(%s)", [sorted(TERMINAL_OK | TERMINAL_FAILED)]
        )
        counts["attachments"] = self.db.one("SELECT count(*) FROM intake_attachment")
        return counts

    def wait_settled(self, expected: int) -> float | None:
        deadline = time.monotonic() + self.profile.settle_timeout_s
        last = None
        while time.monotonic() < deadline:
            self.supervise()
            c = self.pending()
            if c != last:
                log(f"settling: {c}")
                last = c
            busy = sum(v for k, v in c.items() if k in WORK_QUEUES)
            if c["attachments"] >= expected and not c["attachments_waiting"] and not busy:
                return self.now()
            time.sleep(1)
        return None

    # ----------------------------------------------------------------- checks

    def check(self, settled_at: float | None, last_fault: float) -> dict[str, Any]:
        db = self.db
        verify = subprocess.run(
            [*ATS, "intake-verify", "--json"], env=self.env, cwd=REPO, text=True, capture_output=True, timeout=120
        )
        try:
            verified = json.loads(verify.stdout)
        except ValueError:
            verified = {"lost": None, "error": verify.stderr[-1000:]}
        states = dict(db.rows("SELECT state, count(*) FROM intake_attachment GROUP BY 1 ORDER BY 1"))
        no_reason = db.one(
            "SELECT count(*) FROM intake_attachment WHERE state = ANY(%s) AND (reason_code = '' OR reason = '')",
            [sorted(TERMINAL_FAILED)],
        )
        raw_not_terminal = db.one(
            """SELECT count(*) FROM intake_raw_intake r WHERE EXISTS (
                   SELECT 1 FROM intake_attachment a WHERE a.raw_intake_id = r.id AND a.state <> ALL(%s))""",
            [sorted(TERMINAL_OK | TERMINAL_FAILED)],
        )
        dup_per_document = db.one(
            "SELECT count(*) FROM (SELECT attachment_id FROM candidates_document GROUP BY 1 HAVING count(*) > 1) x"
        )
        candidates_without_document = db.one(
            # A merged-away candidate hands its documents to the survivor: not a duplicate.
            """SELECT count(*) FROM candidates_candidate c
                WHERE c.merged_into_id IS NULL
                  AND NOT EXISTS (SELECT 1 FROM candidates_document d WHERE d.candidate_id = c.id)"""
        )
        # One person's byte-identical documents: every attachment with those bytes that
        # reached a candidate (itself or through the original it duplicates) names one.
        dup_identical = db.rows(
            """SELECT a.sha256, count(DISTINCT COALESCE(a.candidate_id, o.candidate_id))
                 FROM intake_attachment a LEFT JOIN intake_attachment o ON o.id = a.duplicate_of_id
                WHERE a.sha256 <> '' AND COALESCE(a.candidate_id, o.candidate_id) IS NOT NULL
                GROUP BY 1 HAVING count(DISTINCT COALESCE(a.candidate_id, o.candidate_id)) > 1"""
        )
        dup_applications = db.one(
            """SELECT count(*) FROM (SELECT candidate_id, requisition_id FROM scoring_application
                GROUP BY 1, 2 HAVING count(*) > 1) x"""
        )
        dup_results = db.one(
            """SELECT count(*) FROM (SELECT application_id, input_fingerprint FROM ats_result
                GROUP BY 1, 2 HAVING count(*) > 1) x"""
        )
        counts = {
            "documents_sent": len(self.sent),
            "attachments_expected": self.expected,
            "by_kind": dict(Counter(d.kind.split(":")[0] for d in self.sent)),
            "by_channel": dict(Counter(d.channel for d in self.sent)),
            "upload_retries": self.upload_retries,
            "raw_intakes": db.one("SELECT count(*) FROM intake_raw_intake"),
            "attachments": db.one("SELECT count(*) FROM intake_attachment"),
            "states": states,
            "candidates": db.one("SELECT count(*) FROM candidates_candidate"),
            "candidates_by_status": dict(db.rows("SELECT status, count(*) FROM candidates_candidate GROUP BY 1")),
            "distinct_people_sent": len({d.person for d in self.sent if d.person}),
            "duplicate_pairs_flagged": db.one("SELECT count(*) FROM candidate_duplicate_pair"),
            "applications": db.one("SELECT count(*) FROM scoring_application"),
            "ats_results": db.one("SELECT count(*) FROM ats_result"),
            "jobs_by_status": dict(db.rows("SELECT status::text, count(*) FROM procrastinate_jobs GROUP BY 1")),
            "job_retries": dict(
                db.rows(
                    """SELECT j.task_name, count(*)
                         FROM procrastinate_events e JOIN procrastinate_jobs j ON j.id = e.job_id
                        WHERE e.type = 'deferred_for_retry' GROUP BY 1 ORDER BY 1"""
                )
            ),
            "worker_exits": {d: w.exits for d, w in self.workers.items()},
        }
        for f in self.faults:
            self._recovery(f)
        checks = {
            "every_document_terminal": counts["attachments"] >= self.expected
            and sum(v for s, v in states.items() if s not in TERMINAL_OK | TERMINAL_FAILED) == 0,
            "every_failure_has_a_reason": no_reason == 0,
            "every_raw_intake_terminal": raw_not_terminal == 0,
            "intake_verify_zero": verify.returncode == 0
            and verified.get("lost") == 0
            and verified.get("lost_applications", 0) == 0,
            "no_duplicate_candidate_per_document": dup_per_document == 0 and candidates_without_document == 0,
            "no_duplicate_candidate_per_identical_bytes": not dup_identical,
            "no_duplicate_applications": dup_applications == 0,
            "no_duplicate_ats_results": dup_results == 0,
            "settled": settled_at is not None,
        }
        return {
            "seed": self.seed,
            "profile": dataclasses.asdict(self.profile),
            "passed": all(checks.values()),
            "checks": checks,
            "last_fault_ended_s": last_fault,
            "settled_at_s": settled_at,
            "settle_s": round(settled_at - last_fault, 1) if settled_at is not None else None,
            "run_s": self.now(),
            "counts": counts,
            "faults": [dataclasses.asdict(f) for f in self.faults],
            "intake_verify": verified,
            "identical_bytes_with_two_candidates": [list(r) for r in dup_identical],
            "candidates_without_document": [
                list(r)
                for r in db.rows(
                    """SELECT c.id, c.status, c.merged_into_id, c.display_name FROM candidates_candidate c
                        WHERE NOT EXISTS (SELECT 1 FROM candidates_document d WHERE d.candidate_id = c.id)"""
                )
            ],
        }

    def _recovery(self, f: Fault) -> None:
        jobs = f.detail.get("jobs_in_flight") or []
        rerun, done = 0, Counter[str]()
        if jobs:
            rows = self.db.rows(
                """SELECT j.id, j.status::text, j.attempts,
                          count(*) FILTER (WHERE e.type = 'started') AS runs
                     FROM procrastinate_jobs j LEFT JOIN procrastinate_events e ON e.job_id = j.id
                    WHERE j.id = ANY(%s) GROUP BY 1, 2, 3""",
                [jobs],
            )
            f.detail["jobs_after"] = {r[0]: {"status": r[1], "runs": r[3]} for r in rows}
            rerun = sum(1 for r in rows if r[3] > 1)
            done = Counter(r[1] for r in rows)
        if f.kind == "sigkill":
            f.recovered_by = (
                f"supervisor restart; rescue re-ran {rerun} of {len(jobs)} in-flight jobs (fence free once the "
                f"process died); final {dict(done)}"
                if jobs
                else "supervisor restart (no job in flight)"
            )
        elif f.kind == "sigterm_mid_parse":
            f.recovered_by = (
                f"graceful stop: exit {f.detail.get('exit_code')}; in-flight parse jobs {dict(done) if jobs else {}}"
                f" ({rerun} re-run); supervisor restart"
            )
        elif f.kind == "pg_restart":
            sigtermed = {g.detail.get("worker") for g in self.faults if g.kind == "sigterm_mid_parse"}
            exits = [
                e
                for w in self.workers.values()
                for e in w.exits
                if f.started <= round(e["at"] - self.t0, 1) <= (f.ended or f.started) + 30
                and e["rc"] != -signal.SIGKILL  # the driver's own kills
                and e["worker"] not in sigtermed
            ]
            f.detail["worker_exits_after"] = [{"worker": e["worker"], "rc": e["rc"]} for e in exits]
            codes = dict(Counter(str(e["rc"]) for e in exits))
            f.recovered_by = (
                f"workers that exited by themselves within 30 s, by exit code {codes} (71: watchdog, fence lost "
                "with jobs in flight) and were restarted; failed DB work retried on the policy backoff; "
                "stalled jobs rescued"
            )
        elif f.kind == "clamd_stop":
            f.recovered_by = "scan jobs retried on the malware-scan backoff (5 attempts) until clamd answered"
        elif f.kind == "graph_burst":
            f.recovered_by = (
                "mail poll honours Retry-After / retries on its backoff; the next scheduled poll resumes the delta"
            )


# --------------------------------------------------------------------------- report


def markdown(report: dict[str, Any]) -> str:
    c = report["counts"]
    lines = [
        f"### Chaos run, seed {report['seed']}, {c['documents_sent']} documents: "
        + ("PASSED" if report["passed"] else "FAILED"),
        "",
        f"Run {report['run_s']:.0f} s; last fault ended at {report['last_fault_ended_s']:.0f} s; "
        f"settled {report['settle_s']} s after the last fault.",
        f"Test-only timing: retry scale {report['profile']['retry_scale']} (every ADR backoff multiplied by it), "
        "heartbeat 1 s, stalled after 5 s, rescue every 3 s, mail poll every 3 s.",
        "",
        "| check | result |",
        "|---|---|",
        *(f"| {k} | {'ok' if v else 'FAILED'} |" for k, v in report["checks"].items()),
        "",
        f"Documents by kind: {c['by_kind']}; by channel: {c['by_channel']}; upload retries: {c['upload_retries']}.",
        f"Raw intakes {c['raw_intakes']}, attachments {c['attachments']}, candidates {c['candidates']} "
        f"{c['candidates_by_status']} "
        f"({c['distinct_people_sent']} distinct people sent; {c['duplicate_pairs_flagged']} duplicate pairs flagged "
        f"for review), applications {c['applications']}, ats_result rows {c['ats_results']}.",
        f"Final states: {c['states']}.",
        f"Retries by task: {c['job_retries']}.",
        "",
        "| t (s) | fault | target | recovered by |",
        "|---|---|---|---|",
        *(
            f"| {f['started']:.0f}-{(f['ended'] or f['started']):.0f} | {f['kind']} | {f['target']} "
            f"| {f['recovered_by']} |"
            for f in report["faults"]
        ),
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="chaos", description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--documents", type=int, default=500)
    parser.add_argument("--report-dir", type=Path, default=REPO / ".ats" / "chaos")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 10**6)
    print(f"[chaos] seed {seed} (repeat with --seed {seed})", flush=True)
    profile = Profile.for_documents(args.documents)
    root = Path(tempfile.mkdtemp(prefix="ats-pg-chaos-"))
    chaos = Chaos(seed, profile, root)
    try:
        report = chaos.run()
    finally:
        chaos.stop_feed.set()
        chaos.stop_stack()
        keep = os.environ.get("ATS_CHAOS_KEEP") == "1"
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
    args.report_dir.mkdir(parents=True, exist_ok=True)
    (args.report_dir / f"report-{seed}.json").write_text(json.dumps(report, indent=2, default=str))
    md = markdown(report)
    (args.report_dir / f"report-{seed}.md").write_text(md)
    print(md, flush=True)
    print(f"[chaos] report: {args.report_dir / f'report-{seed}.md'}", flush=True)
    return 0 if report["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
