"""A local, Graph-compatible HTTPS server for tests and demos of ``ats.mail``.

Speaks the documented JSON shapes of the few endpoints the mail channel uses:

* ``GET  /{tenant}/v2.0/.well-known/openid-configuration`` (msal's OIDC discovery)
* ``POST /{tenant}/oauth2/v2.0/token`` (client-credentials)
* ``GET  /v1.0/users/{m}/mailFolders/{f}/messages/delta`` with ``$skiptoken`` /
  ``$deltatoken`` paging, ``Prefer: odata.maxpagesize=N`` and ``IdType="ImmutableId"``
* ``GET  /v1.0/users/{m}/messages/{id}/attachments[/{aid}[/$value]]``

plus fault injection (status codes with Retry-After, delays, expired delta tokens), a
request log with the observed per-mailbox concurrency, and ``/_fake/*`` control
endpoints so a demo script in another process can add mail.

It serves TLS with a throw-away self-signed certificate because msal refuses any
authority that is not ``https``; point ``GraphConfig.verify`` at ``ca_file``.
Binds to 127.0.0.1 only: it has no real authentication and must never be reachable.

Run for demos::

    python -m ats.devtools.fake_graph --port 8765 --seed-demo --state-dir .ats/fake-graph
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import io
import ipaddress
import json
import secrets
import shutil
import signal
import ssl
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal, Self
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from ats.mail.data import GraphConfig

HOST = "127.0.0.1"
DEFAULT_TENANT = "fake-tenant"
DEFAULT_CLIENT_ID = "fake-client-id"
DEFAULT_CLIENT_SECRET = "fake-client-secret"  # noqa: S105 - public fake credential
DEMO_MAILBOX = "jobs@contoso.example"
GRAPH_PREFIX = "/v1.0"
DEFAULT_PAGE_SIZE = 10  # Graph's default for message delta
# Like Outlook's delta token cache: bounded, oldest evicted first (then 410 Gone).
MAX_DELTA_TOKENS = 10_000
_CHUNKED_MARKER = "X-Fake-Graph-Chunked"  # internal: handler strips it and streams chunked

AttachmentKind = Literal["file", "item", "reference"]
_ODATA_TYPE = {
    "file": "#microsoft.graph.fileAttachment",
    "item": "#microsoft.graph.itemAttachment",
    "reference": "#microsoft.graph.referenceAttachment",
}


# --------------------------------------------------------------------------- model


def _graph_id(prefix: str) -> str:
    # Real ids are base64url-ish and often end in "=", which exercises URL quoting.
    return prefix + secrets.token_urlsafe(24) + "="


@dataclass
class FakeAttachment:
    name: str
    content: bytes
    content_type: str = "application/octet-stream"
    kind: AttachmentKind = "file"
    is_inline: bool = False
    # Size to report in the attachments list, if it should differ from the bytes
    # served (lets tests drive the streaming size cap past the listed-size pre-check).
    listed_size: int | None = None
    attachment_id: str = field(default_factory=lambda: _graph_id("AAMkAGAtt"))

    @property
    def reported_size(self) -> int:
        return len(self.content) if self.listed_size is None else self.listed_size


@dataclass
class _Message:
    immutable_id: str
    regular_id: str
    folder: str
    internet_message_id: str
    subject: str
    sender_name: str
    sender_address: str
    received: dt.datetime
    attachments: list[FakeAttachment]
    removed: bool = False
    version: int = 1

    def id_for(self, immutable: bool) -> str:
        return self.immutable_id if immutable else self.regular_id


@dataclass
class _Folder:
    # (seq, immutable id): the change feed delta rounds are cut from.
    events: list[tuple[int, str]] = field(default_factory=list)


@dataclass
class _Mailbox:
    address: str
    folders: dict[str, _Folder] = field(default_factory=dict)
    messages: dict[str, _Message] = field(default_factory=dict)  # by immutable id
    by_regular: dict[str, str] = field(default_factory=dict)  # regular -> immutable


@dataclass(frozen=True)
class _DeltaState:
    mailbox: str
    folder: str
    since: int  # exclusive; 0 = initial sync
    upto: int  # inclusive snapshot of the round
    offset: int
    select: tuple[str, ...] | None


@dataclass
class Fault:
    """Applies to the next ``times`` requests whose path+query contains ``match``."""

    match: str = ""
    status: int | None = None
    retry_after: float | None = None
    delay: float = 0.0
    times: int = 1
    code: str | None = None
    message: str | None = None


@dataclass(frozen=True)
class RequestRecord:
    method: str
    path: str  # decoded path without query
    query: str
    headers: Mapping[str, str]  # lower-cased names; repeated headers joined with ", "
    prefer: tuple[str, ...]  # each Prefer preference, split and stripped
    mailbox: str | None
    status: int
    started: float  # time.monotonic()
    finished: float


class _Reply(Exception):
    """Short-circuit a handler with a status and JSON body."""

    def __init__(
        self, status: int, body: Mapping[str, Any] | None = None, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(status)
        self.status = status
        self.body = body
        self.headers = dict(headers or {})


def _graph_error(status: int, code: str, message: str, **headers: str) -> _Reply:
    return _Reply(status, {"error": {"code": code, "message": message}}, headers)


# --------------------------------------------------------------------------- server


class FakeGraph:
    """In-process fake of Entra ID + Graph mail. Thread-safe; use as a context manager."""

    def __init__(
        self,
        *,
        port: int = 0,
        tenant: str = DEFAULT_TENANT,
        client_id: str = DEFAULT_CLIENT_ID,
        client_secret: str = DEFAULT_CLIENT_SECRET,
        state_dir: str | Path | None = None,
        token_lifetime: int = 3599,
    ) -> None:
        self.tenant = tenant
        self.client_id = client_id
        self.client_secret = client_secret
        self.token_lifetime = token_lifetime
        self._requested_port = port
        self._own_state_dir = state_dir is None
        self._state_dir = Path(state_dir) if state_dir else Path(tempfile.mkdtemp(prefix="fake-graph-"))
        self._lock = threading.RLock()
        self._seq = 0
        self._mailboxes: dict[str, _Mailbox] = {}
        self._tokens: dict[str, _DeltaState] = {}
        self._access_tokens: set[str] = set()
        self._faults: list[Fault] = []
        self._log: list[RequestRecord] = []
        self._inflight: dict[str, int] = {}
        self._max_inflight: dict[str, int] = {}
        self.token_requests = 0
        # Serve $value with Transfer-Encoding: chunked (no Content-Length), so clients
        # must enforce size caps while streaming rather than from the header.
        self.chunked_downloads = False
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> Self:
        self._state_dir.mkdir(parents=True, exist_ok=True)
        cert, key = _write_self_signed(self._state_dir)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        self._ca_file = cert
        handler = type("_BoundHandler", (_Handler,), {"fake": self})
        httpd = _Server((HOST, self._requested_port), handler)
        # Handshake in the per-connection thread (see _Handler.setup), not in accept():
        # one stuck client must not block the accept loop.
        httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True, do_handshake_on_connect=False)
        self._httpd = httpd
        # Short poll interval: shutdown() waits up to one interval, and tests stop a lot.
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-graph", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._own_state_dir:
            shutil.rmtree(self._state_dir, ignore_errors=True)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("FakeGraph is not started")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"https://{HOST}:{self.port}"

    @property
    def graph_base_url(self) -> str:
        return self.base_url + GRAPH_PREFIX

    @property
    def ca_file(self) -> str:
        return str(self._ca_file)

    def graph_config(self, **overrides: Any) -> GraphConfig:
        """A GraphConfig pointing authority and Graph at this server."""
        values: dict[str, Any] = {
            "tenant_id": self.tenant,
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "authority_host": self.base_url,
            "graph_base_url": self.graph_base_url,
            "verify": self.ca_file,
            "instance_discovery": False,
        }
        values.update(overrides)
        return GraphConfig(**values)

    def ats_env(self) -> dict[str, str]:
        """The ATS_GRAPH_* environment that points the app (settings.ATS) at this server."""
        return {
            "ATS_GRAPH_BASE_URL": self.graph_base_url,
            "ATS_GRAPH_AUTHORITY": self.base_url,
            "ATS_GRAPH_TENANT_ID": self.tenant,
            "ATS_GRAPH_CLIENT_ID": self.client_id,
            "ATS_GRAPH_CLIENT_SECRET": self.client_secret,
            "ATS_GRAPH_CA_BUNDLE": self.ca_file,
        }

    # ------------------------------------------------------------------ data API

    def add_mailbox(self, address: str, folders: Iterable[str] = ("inbox",)) -> None:
        with self._lock:
            box = self._mailboxes.setdefault(address.lower(), _Mailbox(address))
            for f in folders:
                box.folders.setdefault(f.lower(), _Folder())

    def add_message(
        self,
        mailbox: str,
        *,
        subject: str = "Application",
        sender: str = "candidate@example.org",
        sender_name: str = "A. Candidate",
        attachments: Iterable[FakeAttachment] = (),
        folder: str = "inbox",
        received_at: dt.datetime | None = None,
        internet_message_id: str | None = None,
    ) -> str:
        """Deliver a message; returns its immutable id. Visible to the next delta round."""
        with self._lock:
            self.add_mailbox(mailbox, (folder,))
            box = self._mailboxes[mailbox.lower()]
            msg = _Message(
                immutable_id=_graph_id("AAkALgAA"),
                regular_id=_graph_id("AAMkAGI2"),
                folder=folder.lower(),
                internet_message_id=internet_message_id or f"<{secrets.token_hex(8)}@mail.example.org>",
                subject=subject,
                sender_name=sender_name,
                sender_address=sender,
                received=received_at or dt.datetime.now(dt.UTC).replace(microsecond=0),
                attachments=list(attachments),
            )
            box.messages[msg.immutable_id] = msg
            box.by_regular[msg.regular_id] = msg.immutable_id
            self._record_change(box, msg)
            return msg.immutable_id

    def touch_message(self, mailbox: str, message_id: str) -> None:
        """Simulate a property change (e.g. read flag): the message reappears in delta."""
        with self._lock:
            box = self._mailboxes[mailbox.lower()]
            msg = box.messages[box.by_regular.get(message_id, message_id)]
            msg.version += 1
            self._record_change(box, msg)

    def remove_message(self, mailbox: str, message_id: str) -> None:
        with self._lock:
            box = self._mailboxes[mailbox.lower()]
            msg = box.messages[box.by_regular.get(message_id, message_id)]
            msg.removed = True
            self._record_change(box, msg)

    def _record_change(self, box: _Mailbox, msg: _Message) -> None:
        self._seq += 1
        box.folders.setdefault(msg.folder, _Folder()).events.append((self._seq, msg.immutable_id))

    # ------------------------------------------------------------------ faults & log

    def inject(
        self,
        *,
        match: str = "",
        status: int | None = None,
        retry_after: float | None = None,
        delay: float = 0.0,
        times: int = 1,
        code: str | None = None,
        message: str | None = None,
    ) -> Fault:
        """Fault the next ``times`` requests matching ``match`` (substring of path+query).

        ``delay`` alone makes them slow; ``status`` replaces the real answer.
        """
        fault = Fault(match, status, retry_after, delay, times, code, message)
        with self._lock:
            self._faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def expire_delta_tokens(self) -> None:
        """Forget every outstanding skip/delta token: the next use answers 410 Gone."""
        with self._lock:
            self._tokens.clear()

    def expire_token(self, link: str) -> None:
        q = dict(parse_qsl(urlsplit(link).query))
        with self._lock:
            for key in ("$skiptoken", "$deltatoken"):
                if key in q:
                    self._tokens.pop(q[key], None)

    def revoke_access_tokens(self) -> None:
        with self._lock:
            self._access_tokens.clear()

    @property
    def requests(self) -> list[RequestRecord]:
        with self._lock:
            return list(self._log)

    def clear_log(self) -> None:
        with self._lock:
            self._log.clear()
            self._max_inflight.clear()

    def max_concurrency(self, mailbox: str) -> int:
        """Most Graph requests for ``mailbox`` the server handled at the same time."""
        with self._lock:
            return self._max_inflight.get(mailbox.lower(), 0)

    # ------------------------------------------------------------------ dispatch

    def _take_fault(self, target: str) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.times > 0 and fault.match in target:
                    fault.times -= 1
                    if fault.times == 0:
                        self._faults.remove(fault)
                    return fault
        return None

    def _enter(self, mailbox: str | None) -> None:
        if mailbox is None:
            return
        key = mailbox.lower()
        with self._lock:
            self._inflight[key] = self._inflight.get(key, 0) + 1
            self._max_inflight[key] = max(self._max_inflight.get(key, 0), self._inflight[key])

    def _leave(self, mailbox: str | None) -> None:
        if mailbox is None:
            return
        with self._lock:
            self._inflight[mailbox.lower()] -= 1

    def _record(self, rec: RequestRecord) -> None:
        with self._lock:
            self._log.append(rec)

    def handle(
        self,
        method: str,
        path: str,
        *,
        query: str,
        headers: Mapping[str, str],
        prefer: tuple[str, ...],
        body: bytes,
    ) -> tuple[int, bytes, dict[str, str]]:
        """Route one request; returns (status, body, headers). Raises _Reply for errors."""
        fault = self._take_fault(unquote(path) + ("?" + query if query else ""))
        if fault is not None:
            if fault.delay:
                time.sleep(fault.delay)
            if fault.status is not None:
                extra = {}
                if fault.retry_after is not None:
                    ra = fault.retry_after
                    extra["Retry-After"] = str(int(ra)) if float(ra).is_integer() else str(ra)
                code = fault.code or _default_code(fault.status)
                raise _graph_error(fault.status, code, fault.message or f"injected {fault.status}", **extra)

        parts = [unquote(p) for p in path.split("/")[1:]]
        q = dict(parse_qsl(query, keep_blank_values=True))
        if parts[:1] == ["_fake"]:
            return self._control(method, parts[1:], body)
        if len(parts) == 4 and parts[1:] == ["v2.0", ".well-known", "openid-configuration"]:
            return _json(200, self._openid_config(parts[0]))
        if method == "POST" and len(parts) == 4 and parts[1:] == ["oauth2", "v2.0", "token"]:
            return self._token(parts[0], body)
        if parts[:1] != [GRAPH_PREFIX.strip("/")]:
            raise _graph_error(404, "NotFound", f"no route for {path}")
        self._authorize(headers)
        return self._graph(method, parts[1:], q, prefer)

    # ------------------------------------------------------------------ identity

    def _openid_config(self, tenant: str) -> dict[str, Any]:
        if tenant != self.tenant:
            raise _Reply(
                400, {"error": "invalid_tenant", "error_description": f"AADSTS90002: Tenant '{tenant}' not found."}
            )
        base = f"{self.base_url}/{tenant}"
        return {
            "issuer": f"{base}/v2.0",
            "authorization_endpoint": f"{base}/oauth2/v2.0/authorize",
            "token_endpoint": f"{base}/oauth2/v2.0/token",
            "device_authorization_endpoint": f"{base}/oauth2/v2.0/devicecode",
            "jwks_uri": f"{self.base_url}/{tenant}/discovery/v2.0/keys",
            "response_types_supported": ["code", "id_token", "code id_token", "id_token token"],
            "subject_types_supported": ["pairwise"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "token_endpoint_auth_methods_supported": ["client_secret_post", "private_key_jwt", "client_secret_basic"],
            "scopes_supported": ["openid", "profile", "email", "offline_access"],
            "tenant_region_scope": "EU",
        }

    def _token(self, tenant: str, body: bytes) -> tuple[int, bytes, dict[str, str]]:
        with self._lock:
            self.token_requests += 1
        form = dict(parse_qsl(body.decode("utf-8", "replace")))
        if tenant != self.tenant:
            raise _Reply(400, {"error": "invalid_request", "error_description": "AADSTS90002: Tenant not found."})
        if form.get("grant_type") != "client_credentials":
            raise _Reply(400, {"error": "unsupported_grant_type", "error_description": "AADSTS70003"})
        if form.get("client_id") != self.client_id or form.get("client_secret") != self.client_secret:
            raise _Reply(
                401, {"error": "invalid_client", "error_description": "AADSTS7000215: Invalid client secret provided."}
            )
        scopes = form.get("scope", "").split()
        if not scopes or not all(s.endswith("/.default") for s in scopes):
            raise _Reply(
                400, {"error": "invalid_scope", "error_description": "AADSTS1002012: scope must be <resource>/.default"}
            )
        token = "fake-at-" + secrets.token_urlsafe(24)
        with self._lock:
            self._access_tokens.add(token)
        return _json(
            200,
            {
                "token_type": "Bearer",
                "expires_in": self.token_lifetime,
                "ext_expires_in": self.token_lifetime,
                "access_token": token,
            },
        )

    def _authorize(self, headers: Mapping[str, str]) -> None:
        auth = headers.get("authorization", "")
        token = auth[len("Bearer ") :] if auth.startswith("Bearer ") else ""
        with self._lock:
            ok = token in self._access_tokens
        if not ok:
            raise _graph_error(401, "InvalidAuthenticationToken", "Access token is empty or invalid.")

    # ------------------------------------------------------------------ graph

    def _graph(
        self, method: str, parts: list[str], q: Mapping[str, str], prefer: tuple[str, ...]
    ) -> tuple[int, bytes, dict[str, str]]:
        if method != "GET":
            raise _graph_error(405, "Request_BadRequest", "only GET is implemented")
        immutable = any(p.replace(" ", "") == 'IdType="ImmutableId"' for p in prefer)
        page_size = DEFAULT_PAGE_SIZE
        for p in prefer:
            name, _, value = p.partition("=")
            if name.strip().lower() == "odata.maxpagesize" and value.strip().isdigit():
                page_size = max(1, min(1000, int(value)))
        applied = [f"odata.maxpagesize={page_size}"] + (['IdType="ImmutableId"'] if immutable else [])
        hdrs = {"Preference-Applied": ", ".join(applied)}
        # users/{m}/mailFolders/{f}/messages/delta
        if len(parts) == 6 and parts[0] == "users" and parts[2] == "mailFolders" and parts[4:] == ["messages", "delta"]:
            status, body, _ = _json(200, self._delta(parts[1], parts[3], q, page_size, immutable))
            return status, body, hdrs
        if len(parts) >= 5 and parts[0] == "users" and parts[2] == "messages" and parts[4] == "attachments":
            box, msg = self._message(parts[1], parts[3])
            if len(parts) == 5:
                return _json(
                    200,
                    {
                        "@odata.context": f"{self.graph_base_url}/$metadata#users('{quote(box.address)}')"
                        f"/messages('{parts[3]}')/attachments",
                        "value": [_render_attachment(a, _select(q)) for a in msg.attachments],
                    },
                )
            att = next((a for a in msg.attachments if a.attachment_id == parts[5]), None)
            if att is None:
                raise _graph_error(404, "ErrorItemNotFound", "The specified object was not found in the store.")
            if len(parts) == 6:
                return _json(200, _render_attachment(att, _select(q)))
            if len(parts) == 7 and parts[6] == "$value":
                if att.kind != "file":
                    raise _graph_error(400, "ErrorInvalidRequest", "$value is only served for file attachments here.")
                hdrs = {"Content-Type": att.content_type}
                if self.chunked_downloads:
                    hdrs[_CHUNKED_MARKER] = "1"
                return 200, att.content, hdrs
        raise _graph_error(400, "BadRequest", f"Resource not found for the segment '{'/'.join(parts)}'.")

    def _box(self, mailbox: str) -> _Mailbox:
        box = self._mailboxes.get(mailbox.lower())
        if box is None:
            raise _graph_error(404, "ErrorInvalidUser", f"The requested user '{mailbox}' is invalid.")
        return box

    def _message(self, mailbox: str, message_id: str) -> tuple[_Mailbox, _Message]:
        with self._lock:
            box = self._box(mailbox)
            msg = box.messages.get(box.by_regular.get(message_id, message_id))
            if msg is None or msg.removed:
                raise _graph_error(404, "ErrorItemNotFound", "The specified object was not found in the store.")
            return box, msg

    def _delta(
        self, mailbox: str, folder: str, q: Mapping[str, str], page_size: int, immutable: bool
    ) -> dict[str, Any]:
        with self._lock:
            box = self._box(mailbox)
            fold = box.folders.get(folder.lower())
            if fold is None:
                raise _graph_error(404, "ErrorItemNotFound", "The specified folder could not be found in the store.")
            if "$skiptoken" in q or "$deltatoken" in q:
                token = q.get("$skiptoken") or q.get("$deltatoken") or ""
                prior = self._tokens.get(token)
                if prior is None or prior.mailbox != box.address.lower() or prior.folder != folder.lower():
                    raise _graph_error(
                        410,
                        "SyncStateNotFound",
                        "The sync state generation is not found. The delta token is expired "
                        "and data must be synchronized again.",
                    )
                if "$skiptoken" in q:
                    state = prior
                else:  # a new round starting where the last one ended
                    state = _DeltaState(prior.mailbox, prior.folder, prior.upto, self._seq, 0, prior.select)
            else:
                sel = q.get("$select")
                select = tuple(s.strip() for s in sel.split(",")) if sel else None
                state = _DeltaState(box.address.lower(), folder.lower(), 0, self._seq, 0, select)

            changes = self._changes(box, fold, state)
            chunk = changes[state.offset : state.offset + page_size]
            value: list[dict[str, Any]] = []
            for msg in chunk:
                if msg.removed:
                    value.append(
                        {
                            "@odata.type": "#microsoft.graph.message",
                            "id": msg.id_for(immutable),
                            "@removed": {"reason": "deleted"},
                        }
                    )
                else:
                    value.append(_render_message(msg, immutable, state.select))
            link_base = (
                f"{self.graph_base_url}/users/{quote(mailbox, safe='@')}/mailFolders/{quote(folder)}/messages/delta"
            )
            token = secrets.token_urlsafe(32)
            while len(self._tokens) >= MAX_DELTA_TOKENS:
                self._tokens.pop(next(iter(self._tokens)))
            out: dict[str, Any] = {
                "@odata.context": f"{self.graph_base_url}/$metadata#Collection(message)",
                "value": value,
            }
            if state.offset + len(chunk) < len(changes):
                self._tokens[token] = _DeltaState(
                    state.mailbox, state.folder, state.since, state.upto, state.offset + len(chunk), state.select
                )
                out["@odata.nextLink"] = f"{link_base}?$skiptoken={token}"
            else:
                self._tokens[token] = _DeltaState(state.mailbox, state.folder, state.upto, state.upto, 0, state.select)
                out["@odata.deltaLink"] = f"{link_base}?$deltatoken={token}"
            return out

    def _changes(self, box: _Mailbox, fold: _Folder, state: _DeltaState) -> list[_Message]:
        latest: dict[str, int] = {}
        for seq, mid in fold.events:
            if state.since < seq <= state.upto:
                latest[mid] = seq
        out = []
        for mid, _seq in sorted(latest.items(), key=lambda kv: kv[1]):
            msg = box.messages[mid]
            # An initial round lists what exists; it has nothing to report as removed.
            if msg.removed and state.since == 0:
                continue
            out.append(msg)
        return out

    # ------------------------------------------------------------------ control (demos)

    def _control(self, method: str, parts: list[str], body: bytes) -> tuple[int, bytes, dict[str, str]]:
        try:
            data = json.loads(body) if body else {}
        except ValueError as exc:
            raise _Reply(400, {"error": "invalid JSON"}) from exc
        if method == "POST" and len(parts) == 3 and parts[0] == "mailboxes" and parts[2] == "messages":
            atts = [
                FakeAttachment(
                    name=a["name"],
                    content=base64.b64decode(a.get("contentBase64", "")),
                    content_type=a.get("contentType", "application/octet-stream"),
                    kind=a.get("kind", "file"),
                )
                for a in data.get("attachments", [])
            ]
            mid = self.add_message(
                parts[1],
                subject=data.get("subject", "Application"),
                sender=data.get("from", "candidate@example.org"),
                sender_name=data.get("fromName", "A. Candidate"),
                folder=data.get("folder", "inbox"),
                attachments=atts,
            )
            return _json(201, {"id": mid})
        if method == "POST" and parts == ["faults"]:
            self.inject(
                match=data.get("match", ""),
                status=data.get("status"),
                retry_after=data.get("retryAfter"),
                delay=float(data.get("delay", 0)),
                times=int(data.get("times", 1)),
            )
            return _json(201, {"ok": True})
        if method == "POST" and parts == ["expire-delta-tokens"]:
            self.expire_delta_tokens()
            return _json(200, {"ok": True})
        if method == "GET" and parts == ["requests"]:
            return _json(
                200,
                {
                    "value": [
                        {
                            "method": r.method,
                            "path": r.path,
                            "query": r.query,
                            "status": r.status,
                            "prefer": list(r.prefer),
                            "mailbox": r.mailbox,
                            "durationMs": round((r.finished - r.started) * 1000, 1),
                        }
                        for r in self.requests
                    ]
                },
            )
        raise _Reply(404, {"error": "unknown control endpoint"})


# --------------------------------------------------------------------------- rendering


def _select(q: Mapping[str, str]) -> tuple[str, ...] | None:
    sel = q.get("$select")
    return tuple(s.strip() for s in sel.split(",")) if sel else None


def _iso(when: dt.datetime) -> str:
    return when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _render_message(msg: _Message, immutable: bool, select: tuple[str, ...] | None) -> dict[str, Any]:
    addr = {"emailAddress": {"name": msg.sender_name, "address": msg.sender_address}}
    full: dict[str, Any] = {
        "@odata.type": "#microsoft.graph.message",
        "@odata.etag": f'W/"CQAAABYAAAB{msg.version:04d}"',
        "id": msg.id_for(immutable),
        "createdDateTime": _iso(msg.received),
        "lastModifiedDateTime": _iso(msg.received),
        "receivedDateTime": _iso(msg.received),
        "sentDateTime": _iso(msg.received),
        # Like Graph: inline-only parts do not set hasAttachments.
        "hasAttachments": any(not a.is_inline for a in msg.attachments),
        "internetMessageId": msg.internet_message_id,
        "subject": msg.subject,
        "bodyPreview": f"Please find my application attached. ({msg.subject})",
        "isRead": msg.version > 1,
        "from": addr,
        "sender": addr,
    }
    if select is None:
        return full
    keep = {"@odata.type", "@odata.etag", "id", *select}
    return {k: v for k, v in full.items() if k in keep}


def _render_attachment(att: FakeAttachment, select: tuple[str, ...] | None) -> dict[str, Any]:
    full: dict[str, Any] = {
        "@odata.type": _ODATA_TYPE[att.kind],
        "id": att.attachment_id,
        "lastModifiedDateTime": "2024-01-01T00:00:00Z",
        "name": att.name,
        "contentType": att.content_type if att.kind == "file" else None,
        "size": att.reported_size,
        "isInline": att.is_inline,
    }
    if att.kind == "file":
        full["@odata.mediaContentType"] = att.content_type
        full["contentId"] = None
        full["contentLocation"] = None
        # Graph inlines the whole file as base64 unless $select leaves it out.
        full["contentBytes"] = base64.b64encode(att.content).decode("ascii")
    if att.kind == "reference":
        full["sourceUrl"] = "https://contoso.sharepoint.com/cv.pdf"
    if select is None:
        return full
    keep = {"@odata.type", "@odata.mediaContentType", "id", *select}
    return {k: v for k, v in full.items() if k in keep}


def _default_code(status: int) -> str:
    return {
        429: "TooManyRequests",
        503: "ServiceUnavailable",
        410: "SyncStateNotFound",
        500: "InternalServerError",
        504: "GatewayTimeout",
    }.get(status, HTTPStatus(status).phrase.replace(" ", "") if status in HTTPStatus._value2member_map_ else "Error")


def _json(status: int, body: Mapping[str, Any]) -> tuple[int, bytes, dict[str, str]]:
    return status, json.dumps(body).encode(), {"Content-Type": "application/json; odata.metadata=minimal"}


# --------------------------------------------------------------------------- http plumbing


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients that drop connections (aborted downloads, closed pools) are normal here.
        pass


class _Handler(BaseHTTPRequestHandler):
    fake: FakeGraph  # bound by FakeGraph.start
    protocol_version = "HTTP/1.1"  # keep-alive: one TLS handshake per pooled connection
    timeout = 30  # idle keep-alive connections are dropped after this
    server_version = "fake-graph/1"
    # Headers and body go out in separate writes; with Nagle + delayed ACK every
    # keep-alive request would stall ~40 ms.
    disable_nagle_algorithm = True

    def setup(self) -> None:
        super().setup()
        conn = self.connection
        if isinstance(conn, ssl.SSLSocket):
            conn.do_handshake()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the request log is structured; stderr noise helps nobody

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def _dispatch(self, method: str) -> None:
        started = time.monotonic()
        split = urlsplit(self.path)
        headers: dict[str, str] = {}
        for name in {k.lower() for k in self.headers}:
            headers[name] = ", ".join(self.headers.get_all(name) or [])
        prefer = tuple(
            p.strip() for line in (self.headers.get_all("Prefer") or []) for p in line.split(",") if p.strip()
        )
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        path = split.path
        mailbox = None
        segs = path.split("/")
        if len(segs) > 3 and segs[1] == GRAPH_PREFIX.strip("/") and segs[2] == "users":
            mailbox = unquote(segs[3])
        self.fake._enter(mailbox)
        left = False
        try:
            try:
                status, payload, extra = self.fake.handle(
                    method, path, query=split.query, headers=headers, prefer=prefer, body=body
                )
            except _Reply as reply:
                status = reply.status
                payload = json.dumps(reply.body or {}).encode()
                extra = {"Content-Type": "application/json", **reply.headers}
            except Exception as exc:  # a fake bug must surface as a 500, not a hung client
                status = 500
                payload = json.dumps({"error": {"code": "FakeGraphBug", "message": repr(exc)}}).encode()
                extra = {"Content-Type": "application/json"}
            # Leave and log *before* the client can see the response: a client that
            # reacts to it (next request, assertion on the log) must find it recorded, and
            # its next request must not overlap this one in the concurrency count.
            self.fake._leave(mailbox)
            left = True
            self.fake._record(
                RequestRecord(
                    method=method,
                    path=unquote(path),
                    query=split.query,
                    headers=headers,
                    prefer=prefer,
                    mailbox=mailbox,
                    status=status,
                    started=started,
                    finished=time.monotonic(),
                )
            )
            chunked = extra.pop(_CHUNKED_MARKER, None) is not None
            self.send_response(status)
            for k, v in extra.items():
                self.send_header(k, v)
            self.send_header("request-id", secrets.token_hex(8))
            if chunked:
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for i in range(0, len(payload), 16 * 1024):
                    piece = payload[i : i + 16 * 1024]
                    self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                self.wfile.write(b"0\r\n\r\n")
            else:
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                if payload:
                    self.wfile.write(payload)
        finally:
            if not left:
                self.fake._leave(mailbox)


def _write_self_signed(directory: Path) -> tuple[Path, Path]:
    """A fresh CA-flagged self-signed cert for 127.0.0.1/localhost; returns (cert, key)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fake-graph local CA")])
    now = dt.datetime.now(dt.UTC)
    ski = x509.SubjectKeyIdentifier.from_public_key(key.public_key())
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    x509.IPAddress(ipaddress.ip_address(HOST)),
                    x509.DNSName("localhost"),
                ]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(ski, critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ski), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_path = directory / "fake-graph-ca.pem"
    key_path = directory / "fake-graph-key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.touch(mode=0o600)
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


# --------------------------------------------------------------------------- demo data


def demo_cv_pdf(name: str = "Ada Example", role: str = "Backend engineer") -> bytes:
    import pymupdf  # lazy: only demos need it

    doc = pymupdf.open()
    page = doc.new_page()
    lines = [
        name,
        role,
        "",
        "Experience",
        "2019-2024  Python, PostgreSQL, Django",
        "",
        "Contact: ada@example.org  +44 20 7946 0000",
    ]
    page.insert_text((72, 72), "\n".join(lines), fontsize=12)
    data: bytes = doc.tobytes()
    doc.close()
    return data


def demo_cv_docx(name: str = "Grace Sample", role: str = "Data engineer") -> bytes:
    import docx  # lazy: only demos need it

    document = docx.Document()
    document.add_heading(name, level=1)
    document.add_paragraph(role)
    document.add_paragraph("Experience: 2016-2024 ETL pipelines, Airflow, dbt")
    document.add_paragraph("Contact: grace@example.org")
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()


DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def seed_demo(fake: FakeGraph, mailbox: str = DEMO_MAILBOX) -> list[str]:
    """A few realistic applications: PDF, DOCX, a forwarded mail + link, no attachment."""
    ids = [
        fake.add_message(
            mailbox,
            subject="Application: Backend engineer",
            sender="ada@example.org",
            sender_name="Ada Example",
            attachments=[FakeAttachment("Ada_Example_CV.pdf", demo_cv_pdf(), "application/pdf")],
        ),
        fake.add_message(
            mailbox,
            subject="CV - Grace Sample",
            sender="grace@example.org",
            sender_name="Grace Sample",
            attachments=[
                FakeAttachment("Grace_Sample_CV.docx", demo_cv_docx(), DOCX_TYPE),
                FakeAttachment("logo.png", b"\x89PNG\r\n\x1a\n" + b"\0" * 64, "image/png", is_inline=True),
            ],
        ),
        fake.add_message(
            mailbox,
            subject="Fwd: candidate referral",
            sender="recruiter@contoso.example",
            sender_name="Internal Recruiter",
            attachments=[
                FakeAttachment("Original message", b"", kind="item"),
                FakeAttachment("CV on SharePoint", b"", kind="reference"),
                FakeAttachment(
                    "Lin_Demo_CV.pdf", demo_cv_pdf("Lin Demo", "Site reliability engineer"), "application/pdf"
                ),
            ],
        ),
        fake.add_message(
            mailbox, subject="Question about the role", sender="curious@example.org", sender_name="Curious Person"
        ),
    ]
    return ids


# --------------------------------------------------------------------------- CLI


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ats.devtools.fake_graph", description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--seed-demo", action="store_true", help=f"deliver demo applications to {DEMO_MAILBOX}")
    parser.add_argument("--mailbox", default=DEMO_MAILBOX)
    parser.add_argument("--state-dir", default=None, help="where the TLS cert/key go (default: a temp dir)")
    args = parser.parse_args(argv)

    fake = FakeGraph(port=args.port, state_dir=args.state_dir)
    fake.add_mailbox(args.mailbox)
    try:
        fake.start()
    except OSError as exc:
        parser.error(f"cannot listen on {HOST}:{args.port}: {exc}")
    if args.seed_demo:
        seed_demo(fake, args.mailbox)
    print(f"fake Graph listening on {fake.base_url} (mailbox {args.mailbox})", flush=True)
    for key, value in fake.ats_env().items():
        print(f"  {key}={value}", flush=True)
    print(
        f"  add mail: POST {fake.base_url}/_fake/mailboxes/{args.mailbox}/messages "
        '{"subject":..,"from":..,"attachments":[{"name":..,"contentType":..,"contentBase64":..}]}',
        flush=True,
    )

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    stop.wait()
    fake.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
