"""The "no sandbox" sandbox, for development only (like dangerzone's dummy).

Same interface and the same answer validation as the fork server, but the parser runs
in the calling process: a hostile document gets the worker's memory, secrets and
network. Refuses to exist unless explicitly enabled.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import time
from collections.abc import Mapping
from typing import Any, cast

from ats.errors import Refused
from ats.parsing.data import ParseError, ParseLimits
from ats.sandbox import protocol
from ats.sandbox.data import Failure, OnDocument, SandboxPolicy, SandboxResult
from ats.sandbox.errors import SandboxError
from ats.sandbox.pages import decode_render_answer, parse_render_request, parse_with_first_page_request
from ats.sandbox.policy import load_policy
from ats.sandbox.validate import decode_answer

ALLOW_ENV = "ATS_SANDBOX_ALLOW_INPROCESS"


class SandboxRefused(SandboxError, Refused, RuntimeError):
    pass


# How a process knows it is the untrusted worker: `ats worker --deployable untrusted`
# sets this before anything else (and settings pick the task modules from it).
DEPLOYABLE_ENV = "ATS_DEPLOYABLE"


def refuse_in_untrusted_deployable() -> None:
    """Raise SandboxRefused when in-process parsing is requested in worker-untrusted.

    The variable is a development convenience; in the deployable that parses hostile
    documents it would remove every layer at once, so it is a start-up error there
    (never silently ignored: someone set it believing it does something).
    """
    # Any value settings would read as true ("1", "true", "yes", "on", any case) - and any
    # value we do not recognise as false: refuse rather than guess.
    value = os.environ.get(ALLOW_ENV, "").strip().lower()
    if os.environ.get(DEPLOYABLE_ENV) == "untrusted" and value not in {"", "0", "false", "no", "off"}:
        raise SandboxRefused(f"{ALLOW_ENV}=1 is refused in the untrusted deployable: unset it")


class InProcessSandbox:
    name = "inprocess"

    def __init__(
        self, *, allow: bool = False, policy: SandboxPolicy | None = None, parser: str = "ats.parsing.api"
    ) -> None:
        if os.environ.get(DEPLOYABLE_ENV) == "untrusted":
            raise SandboxRefused(f"{ALLOW_ENV}=1 is refused in the untrusted deployable: no in-process parsing")
        if not (allow or os.environ.get(ALLOW_ENV) == "1"):
            raise SandboxRefused(f"InProcessSandbox parses untrusted input unconfined; set {ALLOW_ENV}=1 (dev only)")
        self.policy = policy or load_policy()
        self._limits = ParseLimits(**self.policy.parse)
        self._parser: Any = importlib.import_module(parser)
        self._parser.prewarm()

    def start(self) -> dict[str, Any]:
        return {"layers": [], "skipped": {}}

    def status(self) -> dict[str, Any]:
        return {"kind": self.name}

    def close(self) -> None:
        pass

    def _first_page(self, data: bytes, kind: str) -> Mapping[str, Any] | None:
        """Page 1 through the same encode/check round trip as a child's second frame."""
        try:
            page = self._parser.render_page(data, kind=kind, page=1, limits=self._limits)
            body = json.dumps({"status": "ok", "document": page}, allow_nan=False, separators=(",", ":")).encode()
        except Exception:
            return None
        failure, _, checked = decode_render_answer(
            protocol.frame(body), page=1, max_result_bytes=self.policy.child.max_result_bytes
        )
        return cast("Mapping[str, Any]", checked) if failure is None else None

    def run(self, kind: str, data: bytes, *, on_document: OnDocument | None = None) -> SandboxResult:
        started = time.monotonic()
        cpu_started = time.process_time()
        with_page = parse_with_first_page_request(kind)
        try:
            render = parse_render_request(kind)
            answer: dict[str, Any]
            if render is not None:
                answer = {
                    "document": self._parser.render_page(data, kind=render[0], page=render[1], limits=self._limits)
                }
            else:
                # Development only: a with_first_page_request's page is rendered here too, unconfined.
                answer = {"document": self._parser.parse_document(data, kind=with_page or kind, limits=self._limits)}
            # The same encode/validate round trip as a child's answer, so results (and
            # the benchmark) are comparable and a schema drift shows up here too.
            body = json.dumps({"status": "ok", **answer}, allow_nan=False, separators=(",", ":")).encode()
            max_bytes = self.policy.child.max_result_bytes
            if render is not None:
                failure, detail, checked = decode_render_answer(
                    protocol.frame(body), page=render[1], max_result_bytes=max_bytes
                )
            else:
                failure, detail, checked = decode_answer(
                    protocol.frame(body), kind=with_page or kind, limits=self._limits, max_result_bytes=max_bytes
                )
        except MemoryError:
            failure, detail, checked = Failure.MEMORY, "MemoryError", None
        except ParseError as exc:
            failure, detail, checked = Failure(exc.code.value), exc.detail, None
        except Exception as exc:
            failure, detail, checked = Failure.CRASHED, type(exc).__name__, None
        result = self._result(failure, detail, checked, started, cpu_started)
        if with_page is None or failure is not None:
            return result
        if on_document is not None:
            on_document(result)  # as the fork server does: before page 1 is rendered
        page = self._first_page(data, with_page)
        return dataclasses.replace(self._result(failure, detail, checked, started, cpu_started), first_page=page)

    def _result(
        self, failure: Failure | None, detail: str, checked: Any, started: float, cpu_started: float
    ) -> SandboxResult:
        return SandboxResult(
            ok=failure is None,
            failure=failure,
            detail=detail,
            document=checked,
            sandbox=self.name,
            layers=(),
            skipped_layers=(),
            policy_hash=self.policy.policy_hash,
            wall_ms=(time.monotonic() - started) * 1000,
            cpu_ms=(time.process_time() - cpu_started) * 1000,
        )
