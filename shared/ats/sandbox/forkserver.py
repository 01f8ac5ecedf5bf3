"""Worker side of the fork-server sandbox: start zygotes, send documents, judge the outcome.

Thread-safe: procrastinate runs sync tasks in threads, so ``run`` takes a zygote from a
small pool (one document at a time per zygote) and gives it back. A zygote that dies,
hangs or answers nonsense is killed and replaced on the next call; the worker itself
never executes parser code and never dies from a document.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import ats
from ats.parsing.data import ParseLimits
from ats.sandbox import protocol
from ats.sandbox.data import Failure, Layer, SandboxPolicy, SandboxResult
from ats.sandbox.errors import SandboxError
from ats.sandbox.hardening import layer_for_exit_code
from ats.sandbox.pages import decode_render_answer, parse_render_request
from ats.sandbox.policy import load_policy
from ats.sandbox.validate import decode_answer
from ats.sandbox.zygote import PROBES_ENV

NO_LANDLOCK_TEST_ENV = "ATS_SANDBOX_TEST_NO_LANDLOCK"
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


class _Zygote:
    """One ``python -m ats.sandbox.zygote`` process and the socket to it."""

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
        # One AF_UNIX stream socket as the zygote's stdin and stdout, not two pipes: a pipe
        # can be reopened through /proc/<zygote>/fd/0 (while the fresh zygote is still
        # dumpable, any same-uid process could inject a config or read the documents);
        # a socket cannot be opened that way (ENXIO).
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=theirs.fileno(),
                stdout=theirs.fileno(),
                env=env,
                close_fds=True,
                # Own session: a Ctrl-C or SIGTERM aimed at the worker's group does not hit
                # the zygote mid-document; it exits on EOF when the worker goes away.
                start_new_session=True,
            )
        except BaseException:
            self.sock.close()
            raise
        finally:
            theirs.close()
        self.in_fd = self.out_fd = self.sock.fileno()
        self.sock.setblocking(False)
        deadline = time.monotonic() + startup_timeout_s
        try:
            protocol.send_json(self.in_fd, config, deadline)
            self.hello: dict[str, Any] = protocol.recv_json(self.out_fd, _MAX_HELLO, deadline)
        except (OSError, EOFError, TimeoutError, ValueError, protocol.ProtocolError) as exc:
            self.kill()
            raise ZygoteError(f"zygote did not start: {type(exc).__name__}") from exc
        if not self.hello.get("ok"):
            self.kill()
            raise ZygoteError(f"zygote refused to start: {self.hello.get('error')}", self.hello)
        self.documents = 0  # served so far (the recycle count)
        self.replacing = False  # a replacement is warming up in the background
        self.retired = False  # replaced while busy: close instead of returning it to the pool

    def alive(self) -> bool:
        return self.proc.poll() is None

    def request(self, kind: str, data: bytes, *, deadline: float, max_answer: int) -> tuple[dict[str, Any], bytes]:
        protocol.send_json(self.in_fd, {"kind": kind}, deadline)
        protocol.write_all(self.in_fd, protocol.frame(data), deadline)
        outcome = protocol.recv_json(self.out_fd, _MAX_OUTCOME, deadline)
        untrusted_answer = protocol.read_frame(self.out_fd, max_answer, deadline)
        return outcome, untrusted_answer

    def kill(self) -> None:
        # The zygote leads its own session; its children lead their own, and die by
        # PDEATHSIG when the zygote does.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.kill()
        self.proc.wait()
        self.sock.close()

    def close(self, timeout_s: float = 5.0) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_WR)  # EOF: the zygote finishes the current child and exits
        try:
            self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.kill()
        self.sock.close()


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
        # Guards the hand-over between a recycled zygote and its replacement.
        self._lifecycle = threading.Lock()
        self._replacers: list[threading.Thread] = []
        self.last_hello: dict[str, Any] = {}

    # -- lifecycle -----------------------------------------------------------------------

    def _spawn(self) -> _Zygote:
        try:
            zygote = _Zygote(self._config, probes=self._probes, startup_timeout_s=self._startup_timeout_s)
        except OSError as exc:  # e.g. EAGAIN from fork/exec: report, do not crash the worker
            raise ZygoteError(f"cannot start the zygote: {exc}") from exc
        if zygote.hello.get("policy_hash") != self.policy.policy_hash:
            zygote.kill()  # the policy files changed under us: refuse to mix versions
            raise ZygoteError("policy files changed since the worker loaded them")
        self.last_hello = zygote.hello
        return zygote

    def start(self) -> dict[str, Any]:
        """Start every zygote now (at worker start) instead of on the first document."""
        slots = [self._pool.get() for _ in range(self._pool.qsize())]
        try:
            slots = [s if s is not None and s.alive() else self._spawn() for s in slots]
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
        return {
            "kind": self.name,
            "policy_dir": str(self.policy.policy_dir),
            "loaded_policy_hash": self.last_hello.get("policy_hash"),
            "loaded_profile_hash": self.loaded_profile_hash(),
            "zygote_pids": [z.proc.pid for z in idle if z is not None],
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

    def _give_back(self, slot: _Zygote) -> None:
        with self._lifecycle:
            if not slot.retired:
                self._pool.put(slot)
                return
        slot.close()  # its replacement took its place while it was busy

    def _recycle(self, slot: _Zygote) -> None:
        """Start a replacement in the background; the old zygote serves until it is ready."""
        with self._lifecycle:
            if slot.replacing:
                return
            slot.replacing = True
            # Under the lock: two documents finishing at once on two zygotes must not drop
            # each other's thread from the list close() joins.
            self._replacers = [t for t in self._replacers if t.is_alive()]
            thread = threading.Thread(target=self._replace, args=(slot,), name="zygote-recycle", daemon=True)
            self._replacers.append(thread)
        thread.start()

    def _replace(self, old: _Zygote) -> None:
        try:
            new = self._spawn()
        except ZygoteError:
            with self._lifecycle:
                old.replacing = False  # keep serving with the old one; retried on its next document
                if old.retired:  # it died meanwhile and left its slot to us
                    self._pool.put(None)
            return
        with self._lifecycle:
            with self._pool.mutex:
                idle = old in self._pool.queue
                if idle:
                    self._pool.queue.remove(old)
            old.retired = True
            self._pool.put(new)
            self.recycles += 1
        if idle:
            old.close()

    def close(self) -> None:
        with self._lifecycle:
            replacers = list(self._replacers)
        for thread in replacers:
            thread.join(self._startup_timeout_s)
        while not self._pool.empty():
            slot = self._pool.get_nowait()
            if slot is not None:
                slot.close()

    def __enter__(self) -> ForkServerSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- one document ----------------------------------------------------------------------

    def run(self, kind: str, data: bytes) -> SandboxResult:
        started = time.monotonic()
        max_bytes = int(self.policy.parse.get("max_bytes", 20 * 1024 * 1024))
        if len(data) > max_bytes:
            return self._result(Failure.TOO_LARGE, f"document over {max_bytes} bytes", started=started)
        slot = self._pool.get()
        try:
            if slot is None or not slot.alive():
                if slot is not None:  # died between documents
                    slot.kill()
                    self.restarts += 1
                slot = None
                slot = self._spawn()
        except ZygoteError as exc:
            self._pool.put(slot)
            return self._result(Failure.SANDBOX_UNAVAILABLE, str(exc), started=started)
        limits = self.policy.child
        # The document's wall cap starts once its zygote is ready: a replacement zygote's
        # start-up (its own startup timeout) must not eat the document's budget.
        ready = time.monotonic()
        try:
            outcome, untrusted_answer = slot.request(
                kind,
                data,
                deadline=ready + limits.wall_s + self.policy.reply_grace_s,
                max_answer=limits.max_result_bytes + protocol.LEN_SIZE,
            )
        except (OSError, EOFError, TimeoutError, ValueError, protocol.ProtocolError) as exc:
            # A zygote that does not answer in time or breaks the protocol is replaced.
            slot.kill()
            self.restarts += 1
            with self._lifecycle:
                if slot.replacing and not slot.retired:
                    slot.retired = True  # the replacement warming up takes this slot
                else:
                    self._pool.put(None)
            failure = Failure.TIMEOUT_WALL if isinstance(exc, TimeoutError) else Failure.CRASHED
            return self._result(failure, f"zygote failed: {type(exc).__name__}", started=started, hello=slot.hello)
        slot.documents += 1
        if slot.documents >= self.policy.recycle_after_documents or _memory_fault(outcome):
            self._recycle(slot)
        self._give_back(slot)
        try:
            return self._judge(kind, outcome, untrusted_answer, started, slot.hello)
        except Exception as exc:  # a bug here must cost one document, not the worker
            return self._result(Failure.CRASHED, f"sandbox bug: {type(exc).__name__}", started=started)

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
