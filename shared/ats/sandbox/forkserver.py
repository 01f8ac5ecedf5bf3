"""Worker side of the fork-server sandbox: start zygotes, send documents, judge the outcome.

Thread-safe: procrastinate runs sync tasks in threads, so ``run`` takes a zygote from a
small pool (one document at a time per zygote) and gives it back. A zygote that dies,
hangs or answers nonsense is killed and replaced on the next call; the worker itself
never executes parser code and never dies from a document.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import queue
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import ats
from ats.parsing.data import ParseLimits
from ats.sandbox import protocol
from ats.sandbox.data import Failure, Layer, OnDocument, SandboxPolicy, SandboxResult
from ats.sandbox.errors import SandboxError
from ats.sandbox.hardening import layer_for_exit_code
from ats.sandbox.pages import decode_render_answer, parse_render_request, parse_with_first_page_request
from ats.sandbox.policy import load_policy
from ats.sandbox.validate import decode_answer
from ats.sandbox.zygote import PROBES_ENV

NO_LANDLOCK_TEST_ENV = "ATS_SANDBOX_TEST_NO_LANDLOCK"
logger = logging.getLogger(__name__)

_MAX_OUTCOME = 1 << 16
_MAX_HELLO = 1 << 20
# The zygote gets no secrets: its environment is built from scratch, never copied.
_ZYGOTE_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "OMP_THREAD_LIMIT": "1"}
_PASS_THROUGH_ENV = ("TESSDATA_PREFIX",)
_OVERRIDABLE = ("cpu_soft_s", "cpu_hard_s", "wall_s", "address_space_budget_mb", "max_result_bytes")


class ZygoteError(SandboxError):
    def __init__(self, message: str, hello: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.hello = hello or {}  # what a zygote that refused to start said about the host


# A child killed by one of these may have been probing the zygote's layout (a failed
# exploit attempt, or a parser bug an attacker is steering): recycle the zygote.
_RECYCLE_SIGNALS = frozenset({signal.SIGSEGV, signal.SIGBUS, signal.SIGILL, signal.SIGSYS})


def _memory_fault(outcome: dict[str, Any]) -> bool:
    return outcome.get("end") == "signaled" and outcome.get("signal") in _RECYCLE_SIGNALS


class _Template:
    """One ``python -m ats.sandbox.zygote`` process - the template - and the socket to it.

    It imports and pre-warms the parser once and forks the zygotes (one per parse slot),
    so they share its pages copy-on-write. Fork requests are serialized by the caller.
    """

    def __init__(self, config: dict[str, Any], *, probes: bool, startup_timeout_s: float) -> None:
        env = dict(_ZYGOTE_ENV)
        env.update({k: os.environ[k] for k in _PASS_THROUGH_ENV if k in os.environ})
        # -I: no environment-driven import paths. The one path added is where this very
        # `ats` package was imported from, so the zygote runs the worker's own code
        # (and does not depend on an editable install's .pth being readable).
        code_root = str(Path(ats.__file__).resolve().parents[1])
        bootstrap = (
            f"import sys; sys.path.insert(0, {code_root!r}); import runpy; "
            "runpy.run_module('ats.sandbox.zygote', run_name='__main__', alter_sys=True)"
        )
        argv = [sys.executable, "-I", "-c", bootstrap]
        if probes:
            env[PROBES_ENV] = "1"
            argv.append("--test-probes")
        # One AF_UNIX stream socket as the template's stdin and stdout, not two pipes: a
        # pipe can be reopened through /proc/<pid>/fd/0 (while the fresh process is still
        # dumpable, any same-uid process could inject a config); a socket cannot (ENXIO).
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=theirs.fileno(),
                stdout=theirs.fileno(),
                env=env,
                close_fds=True,
                # Own session: a Ctrl-C or SIGTERM aimed at the worker's group does not hit
                # it; it exits on EOF when the worker goes away.
                start_new_session=True,
            )
        except BaseException:
            self.sock.close()
            raise
        finally:
            theirs.close()
        self.fd = self.sock.fileno()
        self.sock.setblocking(False)
        self.startup_timeout_s = startup_timeout_s
        self.replacing = False  # a replacement family is warming up in the background
        deadline = time.monotonic() + startup_timeout_s
        try:
            protocol.send_json(self.fd, config, deadline)
            self.hello: dict[str, Any] = protocol.recv_json(self.fd, _MAX_HELLO, deadline)
        except (OSError, EOFError, TimeoutError, ValueError, protocol.ProtocolError) as exc:
            self.kill()
            raise ZygoteError(f"zygote did not start: {type(exc).__name__}") from exc
        if not self.hello.get("ok"):
            self.kill()
            raise ZygoteError(f"zygote refused to start: {self.hello.get('error')}", self.hello)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def fork_zygote(self) -> _Zygote:
        """Ask for one more zygote; the template answers with its pid, socket and pidfd."""
        deadline = time.monotonic() + self.startup_timeout_s
        try:
            protocol.send_json(self.fd, {"kind": "fork"}, deadline)
            poller = select.poll()
            poller.register(self.fd, select.POLLIN)
            if not poller.poll(max(deadline - time.monotonic(), 0) * 1000):
                raise TimeoutError
            message, fds, _, _ = socket.recv_fds(self.sock, protocol.LEN_SIZE, 2)
        except (OSError, TimeoutError) as exc:
            self.kill()
            raise ZygoteError(f"zygote did not start: {type(exc).__name__}") from exc
        if len(message) != protocol.LEN_SIZE or len(fds) not in (1, 2):
            for fd in fds:
                os.close(fd)
            self.kill()
            raise ZygoteError("zygote did not start: the template's answer was incomplete")
        (pid,) = protocol.LEN.unpack(message)
        # One fd, no pidfd: the zygote exited before the template could open one - a zygote
        # that refuses to start says hello and exits at once, and on a busy machine that
        # wins the race. Its hello is still in the socket: read it, so the reason ("no file
        # boundary ...") reaches the operator, not "the template's answer was incomplete".
        pidfd = fds[1] if len(fds) == 2 else -1
        return _Zygote(socket.socket(fileno=fds[0]), pid, pidfd, template=self, deadline=deadline)

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.kill()
        self.proc.wait()
        self.sock.close()

    def close(self, timeout_s: float = 5.0) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_WR)  # EOF: the template exits (its zygotes do not)
        try:
            self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.kill()
        self.sock.close()


class _Zygote:
    """One zygote forked by a template, and the socket to it.

    Not the worker's child (the template is its parent and the kernel reaps it): the
    worker watches and kills it through its pidfd, which cannot name a reused pid.
    """

    def __init__(self, sock: socket.socket, pid: int, pidfd: int, *, template: _Template, deadline: float) -> None:
        self.sock, self.pid, self.pidfd, self.template = sock, pid, pidfd, template
        self.in_fd = self.out_fd = sock.fileno()
        sock.setblocking(False)
        try:
            self.hello: dict[str, Any] = protocol.recv_json(self.out_fd, _MAX_HELLO, deadline)
        except (OSError, EOFError, TimeoutError, ValueError, protocol.ProtocolError) as exc:
            self.kill()
            raise ZygoteError(f"zygote did not start: {type(exc).__name__}") from exc
        if not self.hello.get("ok"):
            self.kill()
            raise ZygoteError(f"zygote refused to start: {self.hello.get('error')}", self.hello)
        self.documents = 0  # served so far (the recycle count)
        self.faulted = False  # a child of it died of a memory fault or SIGSYS
        self.retired = False  # replaced while busy: close instead of returning it to the pool

    def due(self, recycle_after_documents: int) -> bool:
        return self.faulted or self.documents >= recycle_after_documents

    def alive(self) -> bool:
        return self.pidfd >= 0 and not self._wait_exit(0)

    def request(self, kind: str, data: bytes, *, deadline: float, max_answer: int) -> tuple[dict[str, Any], bytes]:
        protocol.send_json(self.in_fd, {"kind": kind}, deadline)
        protocol.write_all(self.in_fd, protocol.frame(data), deadline)
        return self.reply(deadline=deadline, max_answer=max_answer)

    def reply(self, *, deadline: float, max_answer: int) -> tuple[dict[str, Any], bytes]:
        """The zygote's next reply: its (trusted) outcome and the child's (untrusted) answer."""
        outcome = protocol.recv_json(self.out_fd, _MAX_OUTCOME, deadline)
        untrusted_answer = protocol.read_frame(self.out_fd, max_answer, deadline)
        return outcome, untrusted_answer

    def _wait_exit(self, timeout_s: float) -> bool:
        """Whether it has exited (waiting up to timeout_s): a pidfd polls readable then."""
        if self.pidfd < 0:
            return True
        poller = select.poll()
        poller.register(self.pidfd, select.POLLIN)
        return bool(poller.poll(timeout_s * 1000))

    def _release(self) -> None:
        self.sock.close()
        if self.pidfd >= 0:
            os.close(self.pidfd)
            self.pidfd = -1

    def kill(self) -> None:
        # The zygote leads its own session; its children lead their own, and die by
        # PDEATHSIG when the zygote does.
        if self.pidfd >= 0:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            self._wait_exit(5.0)
        self._release()

    def close(self, timeout_s: float = 5.0) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_WR)  # EOF: the zygote finishes the current child and exits
        if not self._wait_exit(timeout_s):
            self.kill()
            return
        self._release()


class ForkServerSandbox:
    """Parse each document in a fresh fork of a pre-warmed zygote (see zygote.py).

    ``probes`` names a test module whose ``probe_<name>(data, context)`` functions run in
    the child instead of the parser (kind ``"probe:<name>"``); it is refused unless the
    environment has ATS_SANDBOX_TEST_PROBES=1, which no production config sets.
    """

    name = "forkserver"

    def __init__(
        self,
        *,
        policy: SandboxPolicy | None = None,
        parser: str = "ats.parsing.api",
        pool_size: int = 1,
        probes: str | None = None,
        probes_path: str | None = None,
        startup_timeout_s: float = 60.0,
    ) -> None:
        if probes and os.environ.get(PROBES_ENV) != "1":
            raise RuntimeError(f"sandbox probes are test-only: set {PROBES_ENV}=1 to enable them")
        self.policy = policy or load_policy()
        self._config: dict[str, Any] = {
            "policy_dir": self.policy.policy_dir,
            # Overrides (tests' short caps) travel as values; the zygote re-reads the files.
            "child_overrides": {k: getattr(self.policy.child, k) for k in _OVERRIDABLE},
            "parser": parser,
            "probes": probes,
            "probes_path": str(Path(probes_path).resolve()) if probes_path else None,
            # Test-only, like the probes (the zygote refuses it without them).
            "test_without_landlock": bool(probes) and os.environ.get(NO_LANDLOCK_TEST_ENV) == "1",
        }
        self._probes = bool(probes)
        self._parse_limits = ParseLimits(**self.policy.parse)
        self._startup_timeout_s = startup_timeout_s
        self._pool: queue.LifoQueue[_Zygote | None] = queue.LifoQueue()
        for _ in range(pool_size):
            self._pool.put(None)  # started on first use
        self.restarts = 0  # unplanned: a zygote died, hung or broke the protocol
        self.recycles = 0  # planned: replaced after N documents or a crashed child
        self._restarts_reported = 0
        self._restarts_lock = threading.Lock()
        # The template the next zygote is forked from; its lock serializes starting it and
        # fork requests, and is held until a new zygote is in _live (lock order: this one,
        # then _lifecycle).
        self._template: _Template | None = None
        self._template_lock = threading.Lock()
        # Guards the pool's hand-overs: which zygotes are in service (idle or busy), and
        # the swap of a recycled family for its replacement.
        self._lifecycle = threading.Lock()
        self._live: list[_Zygote] = []
        self._replacers: list[threading.Thread] = []
        self.last_hello: dict[str, Any] = {}

    # -- lifecycle -----------------------------------------------------------------------
    #
    # Zygotes forked from one template share its pages - and its address-space layout,
    # heap shape and stack canary - so they are one family for recycling: a zygote due
    # for recycling (recycle_after_documents served, or a child killed by a memory fault
    # or SIGSYS; or an unplanned death) has its whole family replaced by zygotes of a
    # fresh template (a new exec: new layout), off the critical path. Until the
    # replacement is ready the old family keeps serving, as a single recycled zygote did.

    def _start_template(self) -> _Template:
        try:
            return _Template(self._config, probes=self._probes, startup_timeout_s=self._startup_timeout_s)
        except OSError as exc:  # e.g. EAGAIN from fork/exec: report, do not crash the worker
            raise ZygoteError(f"cannot start the zygote: {exc}") from exc

    def _fork(self, template: _Template) -> _Zygote:
        """A zygote of `template`, in _live. Called with _template_lock held."""
        try:
            zygote = template.fork_zygote()
        except OSError as exc:
            raise ZygoteError(f"cannot start the zygote: {exc}") from exc
        if zygote.hello.get("policy_hash") != self.policy.policy_hash:
            zygote.kill()  # the policy files changed under us: refuse to mix versions
            raise ZygoteError("policy files changed since the worker loaded them")
        with self._lifecycle:
            self._live.append(zygote)
        self.last_hello = zygote.hello
        return zygote

    def _spawn(self) -> _Zygote:
        with self._template_lock:
            if self._template is None or not self._template.alive():
                if self._template is not None:
                    self._template.kill()
                self._template = None
                self._template = self._start_template()
            return self._fork(self._template)

    def start(self) -> dict[str, Any]:
        """Start every zygote now (at worker start) instead of on the first document."""
        slots = [self._pool.get() for _ in range(self._pool.qsize())]
        try:
            for i, slot in enumerate(slots):
                if slot is None or not slot.alive():
                    slots[i] = self._spawn()
        finally:
            for slot in slots:
                self._pool.put(slot)
        return self.last_hello

    def status(self) -> dict[str, Any]:
        """For the health check: idle zygotes' pids, the policy hash they loaded, restarts.

        Zygotes busy with a document are not listed (a death there costs that document
        and the slot is respawned); unstarted slots start on the next document.
        """
        with self._pool.mutex:
            idle = list(self._pool.queue)
        template = self._template
        return {
            "kind": self.name,
            "policy_dir": str(self.policy.policy_dir),
            "loaded_policy_hash": self.last_hello.get("policy_hash"),
            "loaded_profile_hash": self.loaded_profile_hash(),
            "zygote_pids": [z.pid for z in idle if z is not None],
            "template_pid": template.pid if template is not None else None,
            "unstarted": sum(1 for z in idle if z is None),
            "restarts": self.restarts,
            "recycles": self.recycles,
        }

    def loaded_profile_hash(self) -> str | None:
        """sha256 of the seccomp-child.json bytes the zygotes compiled (None if unknown
        or if two zygotes disagree, which the health check reports as a problem)."""
        with self._pool.mutex:
            hashes = {z.hello.get("profile_hash") for z in self._pool.queue if z is not None}
        hashes.add(self.last_hello.get("profile_hash"))
        return hashes.pop() if len(hashes) == 1 else None

    def replacing(self) -> bool:
        """Whether a replacement zygote is still warming up (tests, shutdown)."""
        return any(t.is_alive() for t in self._replacers)

    def _retire(self, zygote: _Zygote) -> None:
        """Out of service for good (called under _lifecycle)."""
        if zygote in self._live:
            self._live.remove(zygote)
        if zygote.due(self.policy.recycle_after_documents):
            self.recycles += 1

    def _give_back(self, slot: _Zygote) -> None:
        with self._lifecycle:
            if not slot.retired:
                self._pool.put(slot)
                return
            self._retire(slot)
        slot.close()  # its replacement took its place while it was busy

    def _recycle(self, template: _Template) -> None:
        """Replace `template`'s family in the background; it serves until that is ready."""
        with self._lifecycle:
            if template.replacing:
                return
            template.replacing = True
            # Under the lock: two documents finishing at once on two zygotes must not drop
            # each other's thread from the list close() joins.
            self._replacers = [t for t in self._replacers if t.is_alive()]
            thread = threading.Thread(target=self._replace, args=(template,), name="zygote-recycle", daemon=True)
            self._replacers.append(thread)
        thread.start()

    def _replace(self, old: _Template) -> None:
        try:
            new = self._start_template()
        except ZygoteError:
            with self._lifecycle:
                old.replacing = False  # keep serving with the old family; retried on its next document
            return
        with self._template_lock:
            if self._template is old or self._template is None or not self._template.alive():
                current, self._template = self._template, new
            else:  # `old` was already superseded (it died and a new one started): keep that one
                current = None
                new.close()
                new = self._template
            # From here no zygote of `old` is forked any more, and every one forked so far
            # is in _live: replace them one for one, forked before the swap so each slot
            # changes hands warm.
            with self._lifecycle:
                count = sum(1 for z in self._live if z.template is old)
            fresh: list[_Zygote] = []
            with contextlib.suppress(ZygoteError):
                for _ in range(count):
                    fresh.append(self._fork(new))
        to_close: list[_Zygote] = []
        with self._lifecycle:
            members = [z for z in self._live if z.template is old]
            with self._pool.mutex:
                for zygote in members:
                    if zygote in self._pool.queue:
                        self._pool.queue.remove(zygote)
                        self._retire(zygote)
                        to_close.append(zygote)
                    else:
                        zygote.retired = True  # busy: closed when given back (_give_back)
            for _ in members:
                self._pool.put(fresh.pop() if fresh else None)  # None: started on next use
            for extra in fresh:  # a member died meanwhile (its slot was freed as None)
                self._live.remove(extra)
                to_close.append(extra)
        for zygote in to_close:
            zygote.close()
        if current is not None:
            current.close()

    def close(self) -> None:
        with self._lifecycle:
            replacers = list(self._replacers)
        for thread in replacers:
            thread.join(self._startup_timeout_s)
        while not self._pool.empty():
            slot = self._pool.get_nowait()
            if slot is not None:
                slot.close()
        with self._template_lock:
            if self._template is not None:
                self._template.close()
                self._template = None

    def __enter__(self) -> ForkServerSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- one document ----------------------------------------------------------------------

    def run(self, kind: str, data: bytes, *, on_document: OnDocument | None = None) -> SandboxResult:
        """One document in a fresh child. For a with_first_page_request whose parse
        succeeded, `on_document(result)` runs with the parse's checked result while the
        child renders page 1 (the caller's report goes in meanwhile); the returned result
        then carries the page. An exception from `on_document` is raised again once the
        page's reply is in (the zygote must be read to its end before its next document)."""
        started = time.monotonic()
        max_bytes = int(self.policy.parse.get("max_bytes", 20 * 1024 * 1024))
        if len(data) > max_bytes:
            return self._result(Failure.TOO_LARGE, f"document over {max_bytes} bytes", started=started)
        slot = self._pool.get()
        try:
            if slot is None or not slot.alive():
                if slot is not None:  # died between documents
                    self._lost(slot)
                slot = None
                slot = self._spawn()
        except ZygoteError as exc:
            self._pool.put(slot)
            return self._result(Failure.SANDBOX_UNAVAILABLE, str(exc), started=started)
        limits = self.policy.child
        # The document's wall cap starts once its zygote is ready: a replacement zygote's
        # start-up (its own startup timeout) must not eat the document's budget.
        ready = time.monotonic()
        deadline = ready + limits.wall_s + self.policy.reply_grace_s
        max_answer = limits.max_result_bytes + protocol.LEN_SIZE
        try:
            outcome, untrusted_answer = slot.request(kind, data, deadline=deadline, max_answer=max_answer)
        except (OSError, EOFError, TimeoutError, ValueError, protocol.ProtocolError) as exc:
            return self._zygote_failed(slot, exc, started)
        if outcome.get("more") is True:
            # The zygote sends a second reply whenever it says so: read it, or the next
            # document would get this one's.
            return self._streamed(
                slot,
                parse_with_first_page_request(kind) or kind,
                outcome=outcome,
                untrusted_answer=untrusted_answer,
                started=started,
                deadline=deadline,
                on_document=on_document,
            )
        self._done_with(slot, outcome)
        return self._judge_safely(kind, outcome, untrusted_answer, started, slot.hello)

    def _streamed(
        self,
        slot: _Zygote,
        kind: str,
        *,
        outcome: dict[str, Any],
        untrusted_answer: bytes,
        started: float,
        deadline: float,
        on_document: OnDocument | None,
    ) -> SandboxResult:
        """A with_first_page_request's parse came first (checked on its own); page 1's
        reply follows, checked on its own too: a page refused leaves the parse standing."""
        parsed = self._judge_safely(kind, outcome, untrusted_answer, started, slot.hello)
        raised: BaseException | None = None
        if parsed.ok and on_document is not None:
            try:
                on_document(parsed)
            except BaseException as exc:  # raised again below, once the zygote is in step
                raised = exc
        max_answer = self.policy.child.max_result_bytes + protocol.LEN_SIZE
        # The zygote ends the child by the document's own deadline whatever the hook did;
        # a hook slower than that (a stalled database) finds the page's reply waiting and
        # must not take it for a hung zygote.
        deadline = max(deadline, time.monotonic() + self.policy.reply_grace_s)
        try:
            page_outcome, untrusted_page = slot.reply(deadline=deadline, max_answer=max_answer)
        except (OSError, EOFError, TimeoutError, ValueError, protocol.ProtocolError) as exc:
            self._zygote_failed(slot, exc, started)
            page_outcome, untrusted_page = {}, b""
        else:
            self._done_with(slot, page_outcome)
        if raised is not None:
            raise raised
        page = self._first_page(page_outcome, untrusted_page) if parsed.ok else None
        cpu_s = float(page_outcome.get("cpu_s") or 0.0)
        return dataclasses.replace(
            parsed,
            first_page=page,
            wall_ms=(time.monotonic() - started) * 1000,
            cpu_ms=max(parsed.cpu_ms, cpu_s * 1000),
            max_rss_kb=max(parsed.max_rss_kb, int(page_outcome.get("maxrss_kb") or 0)),
        )

    def _first_page(self, outcome: dict[str, Any], untrusted_page: bytes) -> Mapping[str, Any] | None:
        """Page 1 from a streamed parse's second reply, or None (not rendered, refused)."""
        if not untrusted_page or outcome.get("end") not in ("answered", "exited") or outcome.get("exit_code"):
            return None
        failure, detail, page = decode_render_answer(
            untrusted_page, page=1, max_result_bytes=self.policy.child.max_result_bytes
        )
        if failure is not None:
            # Not our child's doing (it sends a page or nothing): the worker renders page 1
            # in a child of its own, and this shows in the log.
            logger.warning("page 1 from the parse's child refused: %s %s", failure.value, detail)
            return None
        return cast("Mapping[str, Any]", page)

    def _zygote_failed(self, slot: _Zygote, exc: BaseException, started: float) -> SandboxResult:
        """A zygote that does not answer in time or breaks the protocol is replaced."""
        retired = self._lost(slot)
        if not retired:
            self._pool.put(None)
        failure = Failure.TIMEOUT_WALL if isinstance(exc, TimeoutError) else Failure.CRASHED
        return self._result(failure, f"zygote failed: {type(exc).__name__}", started=started, hello=slot.hello)

    def _done_with(self, slot: _Zygote, outcome: dict[str, Any]) -> None:
        slot.documents += 1
        slot.faulted = slot.faulted or _memory_fault(outcome)
        if slot.due(self.policy.recycle_after_documents):
            self._recycle(slot.template)
        self._give_back(slot)

    def _judge_safely(
        self, kind: str, outcome: dict[str, Any], untrusted_answer: bytes, started: float, hello: dict[str, Any]
    ) -> SandboxResult:
        try:
            return self._judge(kind, outcome, untrusted_answer, started, hello)
        except Exception as exc:  # a bug here must cost one document, not the worker
            return self._result(Failure.CRASHED, f"sandbox bug: {type(exc).__name__}", started=started)

    def _lost(self, slot: _Zygote) -> bool:
        """An unplanned zygote death or hang: kill it, count a restart, and replace its
        family (a zygote that died on its own may have been attacked: new layout). True
        if it had been retired (its replacement already holds its slot)."""
        slot.kill()
        self.restarts += 1
        with self._lifecycle:
            if slot in self._live:
                self._live.remove(slot)
            retired = slot.retired
        self._recycle(slot.template)
        return retired

    def _judge(
        self, kind: str, outcome: dict[str, Any], untrusted_answer: bytes, started: float, hello: dict[str, Any]
    ) -> SandboxResult:
        """Map the zygote's (trusted) account of how the child ended, then the child's answer."""
        limits = self.policy.child
        end, sig, code = outcome.get("end"), outcome.get("signal"), outcome.get("exit_code")
        cpu_s = float(outcome.get("cpu_s") or 0.0)
        document = None
        failure: Failure | None
        if end == "refused":
            failure, detail = Failure(outcome["failure"]), str(outcome.get("detail", ""))
        elif end == "wall_timeout":
            failure, detail = Failure.TIMEOUT_WALL, f"killed after {limits.wall_s}s wall"
        elif end == "output_too_large":
            failure, detail = Failure.OUTPUT_TOO_LARGE, "answer over max_result_bytes"
        elif end == "signaled" and sig == signal.SIGSYS:
            failure, detail = Failure.SECCOMP_VIOLATION, "SIGSYS"
        elif end == "signaled" and (
            sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu_s >= limits.cpu_hard_s - 0.5)
        ):
            failure, detail = Failure.TIMEOUT_CPU, f"CPU limit ({cpu_s:.1f}s)"
        elif end == "signaled":
            failure, detail = Failure.CRASHED, f"signal {sig}"
        elif end != "answered" and code != 0:
            layer = layer_for_exit_code(int(code or 0))
            if layer is not None:
                failure, detail = Failure.SANDBOX_UNAVAILABLE, f"layer {layer} failed"
            else:
                failure, detail = Failure.CRASHED, f"exit status {code}"
        elif (render := parse_render_request(kind)) is not None:
            failure, detail, document = decode_render_answer(
                untrusted_answer, page=render[1], max_result_bytes=limits.max_result_bytes
            )
        else:
            failure, detail, document = decode_answer(
                untrusted_answer, kind=kind, limits=self._parse_limits, max_result_bytes=limits.max_result_bytes
            )
        return self._result(
            failure,
            detail,
            started=started,
            document=document,
            cpu_ms=cpu_s * 1000,
            max_rss_kb=int(outcome.get("maxrss_kb") or 0),
            hello=hello,
        )

    def _result(
        self,
        failure: Failure | None,
        detail: str,
        *,
        started: float,
        document: Any = None,
        cpu_ms: float = 0.0,
        max_rss_kb: int = 0,
        hello: dict[str, Any] | None = None,
    ) -> SandboxResult:
        hello = hello if hello is not None else self.last_hello
        with self._restarts_lock:
            restarts, self._restarts_reported = self.restarts - self._restarts_reported, self.restarts
        return SandboxResult(
            ok=failure is None,
            failure=failure,
            detail=detail,
            document=document if failure is None else None,
            sandbox=self.name,
            layers=tuple(Layer(v) for v in hello.get("layers", ())),
            skipped_layers=tuple(Layer(v) for v in hello.get("skipped", {})),
            policy_hash=self.policy.policy_hash,
            wall_ms=(time.monotonic() - started) * 1000,
            cpu_ms=cpu_ms,
            max_rss_kb=max_rss_kb,
            zygote_restarts=max(restarts, 0),
        )
