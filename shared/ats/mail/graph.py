"""Microsoft Graph mail channel: delta polling of one mailbox folder + attachment download.

Pure code (httpx + msal, no Django/DB). The caller owns persistence through a callback;
this module owns HTTP, auth, retries, deadlines and the page/checkpoint bookkeeping.

Exactly-once intake contract
============================

Graph delta is a cursor: every response carries either ``@odata.nextLink`` (more pages
in this round) or ``@odata.deltaLink`` (round complete; use it next time). Each
``IntakeBatch`` corresponds to exactly one delta page, and ``batch.checkpoint`` is the
link that *follows* that page's messages, i.e. storing it means "everything up to and
including this page is handled". So:

1. Keep one cursor row per (mailbox, folder) holding the last committed link (NULL before
   the first sync). Pass it as ``delta_link``.
2. In ``on_batch(batch)`` do ONE transaction:
   a. lock the cursor row and check it still equals ``batch.previous_checkpoint``
      (compare-and-swap; a mismatch means a concurrent poller, so raise and roll back);
   b. upload ``blob.content`` to storage content-addressed by ``blob.sha256`` (an orphan
      from a rolled-back transaction is then harmless and a retry overwrites nothing);
   c. insert the ledger row per item keyed by ``envelope.dedupe_key`` and the raw_intake
      rows keyed by ``blob.dedupe_key(envelope)``, ON CONFLICT DO NOTHING (also record
      ``envelope.internet_message_id`` as a secondary hint for the same mail arriving via
      another mailbox/resend; it is not unique enough to be the key);
   d. defer jobs only for rows actually inserted;
   e. set the cursor to ``batch.checkpoint``; commit.
3. Any failure before that commit (crash, exception in ``on_batch``, DeadlineExceeded,
   network error) leaves the stored cursor at the previous link; the next poll re-fetches
   the same page. Delivery is at-least-once, the unique keys make the effect exactly-once.
   The client never advances anything itself: a page that was fetched but not handed to
   ``on_batch`` (e.g. the deadline hit during its attachment downloads) is simply lost
   work, not lost data.
4. Dedupe is mandatory even without crashes: Graph may return a message twice within a
   round and re-returns changed messages (read flag, category, move) in later rounds.
   Pass ``is_known`` to skip attachment downloads for immutable ids already ingested.
5. ``DeltaExpired`` (410 Gone / syncStateNotFound; a stored nextLink can expire too): set
   the cursor to NULL in its own transaction, then poll with ``delta_link=None``. The
   full resync re-delivers every message still in the folder; the keys dedupe it.
6. ``@removed`` entries are ignored (counted only): intake never un-ingests a CV because
   the recruiter deleted the mail.
7. One poller per mailbox across processes is the caller's job (row lock / CAS above);
   within a process ``GraphClient`` caps concurrent requests per mailbox at
   ``max_concurrency_per_mailbox`` (Outlook's limit is 4 per app per mailbox).

Deadlines: every public call takes a ``Deadline``; each HTTP exchange gets
``min(remaining, per_request_timeout)`` as httpx timeout, streaming bodies re-check the
wall clock per chunk, and backoff sleeps that would outlast the budget raise
``DeadlineExceeded`` immediately instead of sleeping into it.
"""

from __future__ import annotations

import contextlib
import email.utils
import hashlib
import json
import random
import ssl
import threading
import time
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Self, TypeVar
from urllib.parse import quote

import httpx
import msal
import structlog

from ats.mail.data import (
    AttachmentBlob,
    AttachmentInfo,
    AttachmentTooLarge,
    Deadline,
    DeadlineExceeded,
    DeltaExpired,
    DeltaPage,
    GraphAuthError,
    GraphConfig,
    GraphError,
    GraphHTTPError,
    GraphProtocolError,
    GraphTransportError,
    IntakeBatch,
    IntakeItem,
    InvalidCheckpoint,
    MessageEnvelope,
    PollResult,
    SkippedAttachment,
    SkipReason,
)
from ats.observability import data as observability_data

log = structlog.get_logger(__name__)

T = TypeVar("T")

MESSAGE_FIELDS = ("id", "internetMessageId", "subject", "from", "receivedDateTime", "hasAttachments")
ATTACHMENT_FIELDS = ("id", "name", "contentType", "size", "isInline")
IMMUTABLE_ID_PREFERENCE = 'IdType="ImmutableId"'
FILE_ATTACHMENT = "#microsoft.graph.fileAttachment"
_SKIP_BY_TYPE = {
    "#microsoft.graph.itemAttachment": SkipReason.ITEM_ATTACHMENT,
    "#microsoft.graph.referenceAttachment": SkipReason.REFERENCE_ATTACHMENT,
}
_RETRYABLE_STATUS = frozenset({429, 502, 503, 504})
# Error codes Graph uses for an unusable delta state; identity resources send them with
# 400 rather than 410, so they are matched regardless of status.
_SYNC_STATE_CODES = frozenset({"syncstatenotfound", "syncstateinvalid", "resyncrequired"})
_ERROR_BODY_LIMIT = 64 * 1024
_CHUNK = 64 * 1024

OnBatch = Callable[[IntakeBatch], None]
IsKnown = Callable[[MessageEnvelope], bool]


class _MsalHttpClient:
    """msal's HttpClient protocol on top of our httpx client.

    So discovery and token requests use the same TLS settings as Graph calls and obey the
    caller's deadline (msal's own requests session only knows a global timeout).
    ``deadline`` is set by GraphClient while it holds the token lock.
    """

    def __init__(self, http: httpx.Client, cap: float) -> None:
        self._http = http
        self._cap = cap
        self.deadline: Deadline | None = None

    def _timeout(self) -> float:
        if self.deadline is None:
            return self._cap
        return self.deadline.timeout(self._cap, what="token request", error=DeadlineExceeded)

    def get(
        self,
        url: str,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        **_: Any,
    ) -> httpx.Response:
        return self._http.get(url, params=params, headers=headers, timeout=self._timeout())

    def post(
        self,
        url: str,
        params: Mapping[str, Any] | None = None,
        data: Mapping[str, Any] | str | bytes | None = None,
        headers: Mapping[str, str] | None = None,
        **_: Any,
    ) -> httpx.Response:
        # msal sends either a form dict or a pre-encoded string body.
        if isinstance(data, (str, bytes)):
            return self._http.post(url, params=params, content=data, headers=headers, timeout=self._timeout())
        return self._http.post(url, params=params, data=data, headers=headers, timeout=self._timeout())


class GraphClient:
    """Sync Graph client for application-permission mailbox access. Thread-safe.

    Create one per process (it caches the token and the per-mailbox slots) and close it.
    """

    def __init__(
        self,
        config: GraphConfig,
        *,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self._config = config
        # A CA path becomes an SSLContext: httpx 0.28 deprecates verify=<str>.
        verify = ssl.create_default_context(cafile=config.verify) if isinstance(config.verify, str) else config.verify
        self._http = httpx.Client(
            verify=verify,
            transport=transport,
            # Graph does not redirect these calls; following one would carry the token.
            follow_redirects=False,
            headers={"User-Agent": "ats-intake-mail/1"},
        )
        self._base = httpx.URL(config.graph_base_url.rstrip("/"))
        self._msal_http = _MsalHttpClient(self._http, config.per_request_timeout)
        self._msal_app: msal.ConfidentialClientApplication | None = None
        self._token_lock = threading.Lock()
        self._slots_lock = threading.Lock()
        self._slots: dict[str, threading.BoundedSemaphore] = {}
        self._sleep = sleep
        self._rng = rng or random.Random()  # noqa: S311 - jitter, not crypto

    @property
    def config(self) -> GraphConfig:
        return self._config

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ auth

    def acquire_token(self, *, deadline: Deadline) -> str:
        """Client-credentials token from msal's in-memory cache, or fetched within deadline."""
        if not self._token_lock.acquire(timeout=max(0.0, deadline.remaining())):
            raise DeadlineExceeded("deadline exceeded waiting for the token lock")
        try:
            self._msal_http.deadline = deadline
            try:
                app = self._app()
                result = app.acquire_token_for_client(scopes=[self._config.scope])
            except GraphError:
                raise
            except httpx.TimeoutException as exc:
                if deadline.expired:
                    raise DeadlineExceeded("deadline exceeded during token request") from exc
                raise GraphTransportError(f"token request timed out: {exc}") from exc
            except httpx.TransportError as exc:
                raise GraphTransportError(f"token request failed: {exc}") from exc
            except (ValueError, httpx.HTTPError) as exc:
                # msal raises ValueError for a failed OIDC discovery.
                raise GraphAuthError(f"authority unusable: {exc}") from exc
            finally:
                self._msal_http.deadline = None
        finally:
            self._token_lock.release()
        token = result.get("access_token") if isinstance(result, dict) else None
        if not token:
            err = result.get("error") if isinstance(result, dict) else None
            desc = result.get("error_description") if isinstance(result, dict) else None
            raise GraphAuthError(f"token acquisition failed: {err}: {desc}")
        return str(token)

    def _app(self) -> msal.ConfidentialClientApplication:
        # Built lazily: msal performs OIDC discovery in its constructor, which is network
        # I/O that must happen under a deadline, not at import/wiring time.
        if self._msal_app is None:
            kwargs: dict[str, Any] = {}
            if self._config.instance_discovery is not None:
                kwargs["instance_discovery"] = self._config.instance_discovery
            self._msal_app = msal.ConfidentialClientApplication(
                self._config.client_id,
                client_credential=self._config.client_secret,
                authority=self._config.authority,
                http_client=self._msal_http,
                **kwargs,
            )
        return self._msal_app

    def _drop_cached_token(self) -> None:
        with self._token_lock:
            if self._msal_app is not None:
                self._msal_app.remove_tokens_for_client()

    # ------------------------------------------------------------------ HTTP core

    @contextlib.contextmanager
    def _mailbox_slot(self, mailbox: str, deadline: Deadline) -> Iterator[None]:
        key = mailbox.lower()
        with self._slots_lock:
            sem = self._slots.get(key)
            if sem is None:
                sem = threading.BoundedSemaphore(self._config.max_concurrency_per_mailbox)
                self._slots[key] = sem
        if not sem.acquire(timeout=max(0.0, deadline.remaining())):
            raise DeadlineExceeded(f"deadline exceeded waiting for a request slot of {mailbox}")
        try:
            yield
        finally:
            sem.release()

    def check_link(self, link: str) -> str:
        """Validate a nextLink/deltaLink against the configured Graph base URL."""
        try:
            url = httpx.URL(link)
        except (httpx.InvalidURL, TypeError) as exc:
            raise InvalidCheckpoint(f"not a URL: {link[:80]!r}") from exc
        base = self._base
        if (
            url.scheme != base.scheme
            or url.host != base.host
            or url.port != base.port
            or not url.path.startswith(base.path.rstrip("/") + "/")
        ):
            raise InvalidCheckpoint(f"link outside {base}: {link[:80]!r}")
        return link

    def _url(self, *segments: str, query: Sequence[tuple[str, str]] = ()) -> str:
        # "@" keeps UPNs readable and "$" keeps OData segments like $value literal; ids
        # (which may contain "/", "+", "=") and everything else are percent-encoded.
        path = "/".join(quote(s, safe="@$") for s in segments)
        url = f"{self._base}/{path}"
        if query:
            # OData system options keep their literal "$" and "," for readability in logs.
            url += "?" + "&".join(f"{quote(k, safe='$')}={quote(v, safe='$,')}" for k, v in query)
        return url

    def _backoff(self, attempt: int) -> float:
        # "Equal jitter": never below half the exponential step, so a herd of workers
        # spreads out but still backs off.
        step = min(self._config.backoff_max, self._config.backoff_base * (2 ** (attempt - 1)))
        return step / 2 + self._rng.uniform(0, step / 2)

    def _request(
        self,
        url: str,
        *,
        mailbox: str,
        deadline: Deadline,
        consume: Callable[[httpx.Response, Deadline], T],
        prefer: Sequence[str] = (IMMUTABLE_ID_PREFERENCE,),
        delta: bool = False,
    ) -> T:
        """GET ``url`` with auth, slots, timeouts and retries; ``consume`` reads a 200 body.

        ``consume`` runs inside the mailbox slot and is re-run from scratch on a retry.
        """
        auth_retried = False
        attempt = 0
        while True:
            attempt += 1
            result = self._attempt(url, mailbox=mailbox, deadline=deadline, consume=consume, prefer=prefer)
            if not isinstance(result, _Failed):
                return result
            if result.status == 429:
                observability_data.record_graph_throttled()
            if result.failure is not None or result.status in _RETRYABLE_STATUS:
                self._sleep(self._retry_wait(result, url=url, attempt=attempt, deadline=deadline, mailbox=mailbox))
                continue
            if result.status == 401 and not auth_retried:
                # A revoked/rotated token can still sit in msal's cache; drop it once.
                auth_retried = True
                self._drop_cached_token()
                continue
            raise _refusal(result, delta=delta)

    def _attempt(
        self,
        url: str,
        *,
        mailbox: str,
        deadline: Deadline,
        consume: Callable[[httpx.Response, Deadline], T],
        prefer: Sequence[str],
    ) -> T | _Failed:
        """One GET: what ``consume`` made of a 200, or how it failed (a non-200 or a
        transport error). Raises only what no retry can help."""
        token = self.acquire_token(deadline=deadline)
        headers: list[tuple[str, str]] = [("Authorization", f"Bearer {token}")]
        # One Prefer line per preference; equivalent to a comma-joined value (RFC 9110
        # list headers) and avoids relying on the server's list parsing.
        headers += [("Prefer", p) for p in prefer]
        failed = _Failed()
        with self._mailbox_slot(mailbox, deadline):
            timeout = deadline.timeout(self._config.per_request_timeout, error=DeadlineExceeded)
            try:
                with self._http.stream("GET", url, headers=headers, timeout=httpx.Timeout(timeout)) as resp:
                    if resp.status_code == 200:
                        return consume(resp, deadline)
                    # Status and headers first: a body read that times out still leaves
                    # them to count a 429 and honour its Retry-After.
                    failed.status = resp.status_code
                    failed.request_id = resp.headers.get("request-id")
                    failed.retry_after = _parse_retry_after(resp.headers.get("Retry-After"))
                    failed.code, failed.message = _error_details(_read_limited(resp, deadline))
            except httpx.TimeoutException as exc:
                if deadline.expired:
                    raise DeadlineExceeded(f"deadline exceeded during GET {_short(url)}") from exc
                failed.failure = exc
            except httpx.TransportError as exc:
                failed.failure = exc
            except httpx.HTTPError as exc:  # decoding/stream misuse: not transient
                raise GraphProtocolError(f"GET {_short(url)}: {exc}") from exc
        return failed

    def _retry_wait(self, failed: _Failed, *, url: str, attempt: int, deadline: Deadline, mailbox: str) -> float:
        """How long to wait before the next attempt; raises when there is none to make."""
        if attempt >= self._config.max_attempts:
            if failed.failure is not None:
                raise GraphTransportError(f"GET {_short(url)}: {failed.failure}") from failed.failure
            raise GraphHTTPError(failed.status, failed.code, failed.message, request_id=failed.request_id)
        wait = failed.retry_after if failed.retry_after is not None else self._backoff(attempt)
        left = deadline.remaining()
        if wait >= left:
            raise DeadlineExceeded(f"retry of GET {_short(url)} needs {wait:.2f}s, {max(left, 0):.2f}s left")
        log.warning(
            "graph_retry",
            status=failed.status or None,
            error=str(failed.failure) if failed.failure else failed.code,
            attempt=attempt,
            wait=round(wait, 3),
            honoured_retry_after=failed.retry_after is not None,
            mailbox=mailbox,
        )
        return wait

    def _get_json(
        self,
        url: str,
        *,
        mailbox: str,
        deadline: Deadline,
        prefer: Sequence[str] = (IMMUTABLE_ID_PREFERENCE,),
        delta: bool = False,
    ) -> dict[str, Any]:
        limit = self._config.max_json_bytes

        def consume(resp: httpx.Response, dl: Deadline) -> dict[str, Any]:
            raw = _read_limited(resp, dl, limit=limit, strict=True)
            try:
                body = json.loads(raw)
            except ValueError as exc:
                raise GraphProtocolError(f"invalid JSON from GET {_short(url)}") from exc
            if not isinstance(body, dict):
                raise GraphProtocolError(f"expected a JSON object from GET {_short(url)}")
            return body

        return self._request(url, mailbox=mailbox, deadline=deadline, consume=consume, prefer=prefer, delta=delta)

    # ------------------------------------------------------------------ delta

    def initial_delta_url(self, mailbox: str, folder: str) -> str:
        return self._url(
            "users",
            mailbox,
            "mailFolders",
            folder,
            "messages",
            "delta",
            query=[("$select", ",".join(MESSAGE_FIELDS))],
        )

    def iter_delta_pages(
        self,
        *,
        mailbox: str,
        folder: str,
        delta_link: str | None,
        deadline: Deadline,
    ) -> Iterator[DeltaPage]:
        """Pages of one delta round, from ``delta_link`` (or from scratch when None).

        Stops after the page that carries the deltaLink. Raises DeltaExpired on 410.
        """
        url = self.check_link(delta_link) if delta_link else self.initial_delta_url(mailbox, folder)
        previous = delta_link
        prefer = (f"odata.maxpagesize={self._config.page_size}", IMMUTABLE_ID_PREFERENCE)
        while True:
            body = self._get_json(url, mailbox=mailbox, deadline=deadline, prefer=prefer, delta=True)
            page = self._parse_delta_page(body, mailbox=mailbox, folder=folder, previous=previous)
            yield page
            if page.is_last:
                return
            url = previous = page.checkpoint

    def _parse_delta_page(
        self, body: Mapping[str, Any], *, mailbox: str, folder: str, previous: str | None
    ) -> DeltaPage:
        value = body.get("value")
        if not isinstance(value, list):
            raise GraphProtocolError("delta page without a 'value' array")
        next_link = body.get("@odata.nextLink")
        delta_link = body.get("@odata.deltaLink")
        link = next_link or delta_link
        if not isinstance(link, str) or not link:
            raise GraphProtocolError("delta page with neither @odata.nextLink nor @odata.deltaLink")
        self.check_link(link)
        messages: list[MessageEnvelope] = []
        removed: list[str] = []
        for item in value:
            if not isinstance(item, dict) or not isinstance(item.get("id"), str):
                raise GraphProtocolError("delta item without an id")
            if "@removed" in item:
                removed.append(item["id"])
                continue
            messages.append(_envelope(item, mailbox=mailbox, folder=folder))
        return DeltaPage(
            messages=tuple(messages),
            removed_ids=tuple(removed),
            checkpoint=link,
            is_last=not next_link,
            previous_checkpoint=previous,
        )

    # ------------------------------------------------------------------ attachments

    def list_attachments(self, *, mailbox: str, message_id: str, deadline: Deadline) -> list[AttachmentInfo]:
        """Attachment metadata of one message; $select keeps contentBytes out of the JSON."""
        url: str | None = self._url(
            "users",
            mailbox,
            "messages",
            message_id,
            "attachments",
            query=[("$select", ",".join(ATTACHMENT_FIELDS))],
        )
        out: list[AttachmentInfo] = []
        while url:
            body = self._get_json(url, mailbox=mailbox, deadline=deadline)
            value = body.get("value")
            if not isinstance(value, list):
                raise GraphProtocolError("attachments response without a 'value' array")
            for item in value:
                if not isinstance(item, dict) or not isinstance(item.get("id"), str):
                    raise GraphProtocolError("attachment without an id")
                size = item.get("size")
                out.append(
                    AttachmentInfo(
                        attachment_id=item["id"],
                        odata_type=str(item.get("@odata.type") or ""),
                        name=_opt_str(item.get("name")),
                        content_type=_opt_str(item.get("contentType")),
                        size=size if isinstance(size, int) else None,
                        is_inline=bool(item.get("isInline")),
                    )
                )
            nxt = body.get("@odata.nextLink")
            url = self.check_link(nxt) if isinstance(nxt, str) and nxt else None
        return out

    def download_attachment(
        self,
        *,
        mailbox: str,
        message_id: str,
        attachment: AttachmentInfo,
        deadline: Deadline,
        max_bytes: int | None = None,
    ) -> AttachmentBlob:
        """Stream ``.../attachments/{id}/$value``, hashing as it goes.

        Raises AttachmentTooLarge as soon as more than ``max_bytes`` arrive (or the
        Content-Length announces it), without buffering the rest.
        """
        limit = self._config.max_attachment_bytes if max_bytes is None else max_bytes
        aid = attachment.attachment_id
        url = self._url("users", mailbox, "messages", message_id, "attachments", aid, "$value")

        def consume(resp: httpx.Response, dl: Deadline) -> AttachmentBlob:
            announced = resp.headers.get("Content-Length")
            if announced and announced.isdigit() and int(announced) > limit:
                raise AttachmentTooLarge(attachment_id=aid, limit=limit, seen=int(announced))
            digest = hashlib.sha256()
            chunks: list[bytes] = []
            seen = 0
            for chunk in resp.iter_bytes(_CHUNK):
                seen += len(chunk)
                if seen > limit:
                    raise AttachmentTooLarge(attachment_id=aid, limit=limit, seen=seen)
                if dl.expired:
                    raise DeadlineExceeded(f"deadline exceeded downloading attachment {aid!r}")
                digest.update(chunk)
                chunks.append(chunk)
            return AttachmentBlob(
                attachment_id=aid,
                name=attachment.name,
                content_type=attachment.content_type,
                is_inline=attachment.is_inline,
                size=seen,
                sha256=digest.hexdigest(),
                content=b"".join(chunks),
            )

        return self._request(url, mailbox=mailbox, deadline=deadline, consume=consume)


# ---------------------------------------------------------------------- polling


def iter_intake_batches(
    *,
    client: GraphClient,
    mailbox: str,
    folder: str = "inbox",
    delta_link: str | None,
    deadline: Deadline,
    is_known: IsKnown | None = None,
) -> Generator[IntakeBatch, None, None]:
    """One IntakeBatch per delta page, attachments downloaded. See the module contract.

    Commit each batch (rows + ``batch.checkpoint``) before pulling the next one.
    """
    cfg = client.config
    with ThreadPoolExecutor(max_workers=cfg.max_concurrency_per_mailbox, thread_name_prefix="graph-attach") as pool:
        pages = client.iter_delta_pages(mailbox=mailbox, folder=folder, delta_link=delta_link, deadline=deadline)
        for index, page in enumerate(pages):
            fresh: list[MessageEnvelope] = []
            known: list[str] = []
            for env in page.messages:
                if is_known is not None and is_known(env):
                    known.append(env.message_id)
                else:
                    fresh.append(env)
            items = _collect_items(client, mailbox, fresh, pool, deadline)
            yield IntakeBatch(
                mailbox=mailbox,
                folder=folder,
                page_index=index,
                checkpoint=page.checkpoint,
                is_last=page.is_last,
                previous_checkpoint=page.previous_checkpoint,
                items=tuple(items),
                removed_ids=page.removed_ids,
                known_ids=tuple(known),
            )


def poll_mailbox(
    *,
    client: GraphClient,
    mailbox: str,
    folder: str = "inbox",
    delta_link: str | None,
    deadline: Deadline,
    on_batch: OnBatch,
    is_known: IsKnown | None = None,
) -> PollResult:
    """Run one delta round and hand every page to ``on_batch`` (commit it there).

    Exceptions from ``on_batch`` propagate unchanged and stop the poll; whatever
    ``on_batch`` committed before stays committed. Raises DeadlineExceeded, DeltaExpired,
    GraphError subclasses; never returns a checkpoint that was not handed over.
    """
    pages = seen = handed = known = removed = downloaded = skipped = 0
    last = delta_link
    with contextlib.closing(
        iter_intake_batches(
            client=client,
            mailbox=mailbox,
            folder=folder,
            delta_link=delta_link,
            deadline=deadline,
            is_known=is_known,
        )
    ) as batches:
        for batch in batches:
            on_batch(batch)
            last = batch.checkpoint
            pages += 1
            seen += len(batch.items) + len(batch.known_ids)
            handed += len(batch.items)
            known += len(batch.known_ids)
            removed += len(batch.removed_ids)
            downloaded += sum(len(i.attachments) for i in batch.items)
            skipped += sum(len(i.skipped) for i in batch.items)
    if last is None:  # pragma: no cover - iter_delta_pages always yields a final page
        raise GraphProtocolError("delta round ended without a deltaLink")
    return PollResult(
        new_delta_link=last,
        full_sync=delta_link is None,
        pages=pages,
        messages_seen=seen,
        messages_handed_over=handed,
        messages_known=known,
        removed_seen=removed,
        attachments_downloaded=downloaded,
        attachments_skipped=skipped,
    )


def _collect_items(  # noqa: PLR0912 - one branch per attachment kind Graph returns, in its documented order
    client: GraphClient,
    mailbox: str,
    messages: Sequence[MessageEnvelope],
    pool: ThreadPoolExecutor,
    deadline: Deadline,
) -> list[IntakeItem]:
    """List then download attachments of a page's messages, ``pool``-bounded, in order."""
    cfg = client.config
    listings: dict[int, Future[list[AttachmentInfo]]] = {
        i: pool.submit(client.list_attachments, mailbox=mailbox, message_id=env.message_id, deadline=deadline)
        for i, env in enumerate(messages)
        # hasAttachments is false for messages with only inline parts; those are
        # signatures/logos, not CVs, so skipping the extra request is deliberate.
        if env.has_attachments
    }
    infos, gone = _gather_listings(listings)

    skipped: dict[int, list[SkippedAttachment]] = {i: [] for i in range(len(messages))}
    downloads: dict[tuple[int, int], Future[AttachmentBlob]] = {}
    for i, attachments in infos.items():
        env = messages[i]
        for j, info in enumerate(attachments):
            if not info.is_file:
                reason = _SKIP_BY_TYPE.get(info.odata_type, SkipReason.UNKNOWN_TYPE)
                # No detail: the recruiter's reason for each type already says what it is
                # (an internal Graph type name would only appear in brackets after it).
                skipped[i].append(_skip(info, reason, ""))
            elif info.size is not None and info.size > cfg.max_attachment_bytes:
                # Graph's size slightly overstates the content (it includes metadata),
                # so a file within a few hundred bytes of the cap may be skipped; the
                # cap is a policy number, not an exact one.
                skipped[i].append(_skip(info, SkipReason.TOO_LARGE, f"listed as {info.size:,} bytes"))
            else:
                downloads[(i, j)] = pool.submit(
                    client.download_attachment,
                    mailbox=mailbox,
                    message_id=env.message_id,
                    attachment=info,
                    deadline=deadline,
                )

    blobs: dict[int, list[AttachmentBlob]] = {i: [] for i in range(len(messages))}
    try:
        for (i, j), fut in downloads.items():
            try:
                blobs[i].append(fut.result())
            except AttachmentTooLarge as exc:
                skipped[i].append(_skip(infos[i][j], SkipReason.TOO_LARGE, f"stream exceeded {exc.limit}"))
            except GraphHTTPError as exc:
                if exc.status != 404:
                    raise
                skipped[i].append(_skip(infos[i][j], SkipReason.GONE, f"404 {exc.code}"))
    except BaseException:
        for fut in downloads.values():
            fut.cancel()
        raise

    for i, sk in skipped.items():
        for s in sk:
            log.info(
                "graph_attachment_skipped",
                mailbox=mailbox,
                message_id=messages[i].message_id,
                attachment_id=s.attachment_id,
                reason=str(s.reason),
                detail=s.detail,
            )
    return [
        IntakeItem(envelope=env, attachments=tuple(blobs[i]), skipped=tuple(skipped[i]), message_gone=i in gone)
        for i, env in enumerate(messages)
    ]


def _gather_listings(
    futures: Mapping[int, Future[list[AttachmentInfo]]],
) -> tuple[dict[int, list[AttachmentInfo]], set[int]]:
    """Results by message index, plus the indexes whose message 404'd."""
    out: dict[int, list[AttachmentInfo]] = {}
    gone: set[int] = set()
    try:
        for key, fut in futures.items():
            try:
                out[key] = fut.result()
            except GraphHTTPError as exc:
                if exc.status != 404:
                    raise
                gone.add(key)
    except BaseException:
        # Don't start further requests for a page that is already failing.
        for fut in futures.values():
            fut.cancel()
        raise
    return out, gone


# ---------------------------------------------------------------------- helpers


def _skip(info: AttachmentInfo, reason: SkipReason, detail: str) -> SkippedAttachment:
    return SkippedAttachment(
        attachment_id=info.attachment_id,
        name=info.name,
        odata_type=info.odata_type,
        reason=reason,
        detail=detail,
    )


def _envelope(item: Mapping[str, Any], *, mailbox: str, folder: str) -> MessageEnvelope:
    sender = item.get("from")
    address = name = None
    if isinstance(sender, dict) and isinstance(sender.get("emailAddress"), dict):
        address = _opt_str(sender["emailAddress"].get("address"))
        name = _opt_str(sender["emailAddress"].get("name"))
    return MessageEnvelope(
        mailbox=mailbox,
        folder=folder,
        message_id=item["id"],
        internet_message_id=_opt_str(item.get("internetMessageId")),
        subject=_opt_str(item.get("subject")),
        sender_address=address,
        sender_name=name,
        received_at=_parse_datetime(item.get("receivedDateTime")),
        has_attachments=bool(item.get("hasAttachments")),
        raw=dict(item),
    )


def _opt_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _parse_datetime(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _parse_retry_after(value: str | None) -> float | None:
    """Retry-After as delta-seconds (what Graph sends) or, defensively, an HTTP-date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _read_limited(
    resp: httpx.Response, deadline: Deadline, *, limit: int = _ERROR_BODY_LIMIT, strict: bool = False
) -> bytes:
    """Read a body with a wall-clock check per chunk; over ``limit`` truncates or raises."""
    buf = bytearray()
    for chunk in resp.iter_bytes(_CHUNK):
        if deadline.expired:
            raise DeadlineExceeded("deadline exceeded reading response body")
        buf += chunk
        if len(buf) > limit:
            if strict:
                raise GraphProtocolError(f"response body larger than {limit} bytes")
            return bytes(buf[:limit])
    return bytes(buf)


@dataclass
class _Failed:
    """One GET that did not return 200: what it learnt of the status and Graph error
    before it ended, and the transport error if that is how it ended."""

    status: int = 0
    code: str | None = None
    message: str | None = None
    request_id: str | None = None
    retry_after: float | None = None
    failure: Exception | None = None


def _refusal(failed: _Failed, *, delta: bool) -> Exception:
    """The error for a status no retry helps."""
    if failed.status in {401, 403}:
        return GraphAuthError(f"Graph refused access ({failed.status} {failed.code}): {failed.message}")
    if delta and (failed.status == 410 or (failed.code or "").lower() in _SYNC_STATE_CODES):
        return DeltaExpired(f"delta state gone ({failed.status} {failed.code}): {failed.message}")
    return GraphHTTPError(failed.status, failed.code, failed.message, request_id=failed.request_id)


def _error_details(raw: bytes) -> tuple[str | None, str | None]:
    try:
        body = json.loads(raw)
    except ValueError:
        return None, raw[:200].decode("utf-8", "replace") or None
    err = body.get("error") if isinstance(body, dict) else None
    if isinstance(err, dict):
        return _opt_str(err.get("code")), _opt_str(err.get("message"))
    return None, None


def _short(url: str) -> str:
    # Links carry opaque state tokens; log the path only.
    return url.split("?", 1)[0]
