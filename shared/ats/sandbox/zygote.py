"""The pre-warmed fork server: ``python -I -m ats.sandbox.zygote [--test-probes]``.

Started by ForkServerSandbox as a fresh, single-threaded process (the worker has
threads and an event loop; forking *it* could copy a held lock into the child): the
*template*. It imports and pre-warms the parser and freezes the heap once, then forks
one *zygote* per parse slot when the worker asks - so every slot's zygote and every
child shares one copy of the parser's pages (copy-on-write) instead of one per slot.
Each zygote serves one request at a time on its own AF_UNIX socket (a socket, not
pipes: see ``_stream_pair``):

  worker -> template  config (JSON frame, once), then {"kind": "fork"} per zygote
  template -> worker  hello (JSON frame, once), then per fork: the zygote's pid (8 bytes)
                      with its socket and a pidfd of it (SCM_RIGHTS) - the socket alone
                      when the zygote exited first (a refusal), its hello still readable
  worker -> zygote    per document: request (JSON frame: kind) + document (raw frame)
  zygote -> worker    hello (JSON frame, once), then per document:
                      outcome (JSON frame, trusted) + the child's answer (raw frame, untrusted);
                      for a parse+page1 request, twice: the parse's frame as soon as it is
                      whole (outcome "more": true), then what followed it (page 1, or empty)

Children are forked one ahead ("the spare"): right after start and after each
document, so fork, confinement (ats.sandbox.hardening) and a warm-up parse of trusted
samples happen while idle. The spare then waits on its own pipe; per document the
zygote writes the document there (no temp files), enforces the wall deadline, caps
the answer, kills the child's process group when needed, reaps it and reports how it
ended. The zygote never parses anything itself, never interprets the child's answer,
and zeroes its copies of the document and the answer before the next fork.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import importlib
import json
import mmap
import os
import select
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import prctl

from ats.sandbox import hardening, oci, protocol
from ats.sandbox.data import FILE_BOUNDARY, Failure, Layer
from ats.sandbox.pages import FIRST_PAGE_MAX_CPU_S, parse_render_request, parse_with_first_page_request
from ats.sandbox.policy import load_policy

PROBES_ENV = "ATS_SANDBOX_TEST_PROBES"
_MAX_CONFIG = 1 << 20
# How long a fresh spare waits for a document before its warm-up (issue 26, paced
# latency). The spare is forked as the previous document's answer goes out: warming up at
# once put its parses on the CPU exactly while that document's report was submitted and
# applied (2 cores: worker-untrusted, worker-default and Postgres all busy then); the
# candidate is in ~20 ms after the answer. A document that arrives within the wait is
# parsed at once, unwarmed, as one that arrives during a backlog always was. Measured
# (paced, 60 CVs 0.4 s apart, 2 cores): apply -> candidate 11.9 -> 10.9 ms p50 over four
# pairs of runs with 60 ms, 10.7 with 25 ms.
_WARMUP_AFTER_MS = 25
_MAX_REQUEST = 1 << 16


def _child_answer(status: str, **fields: Any) -> bytes:
    return protocol.frame(json.dumps({"status": status, **fields}).encode())


# Built before any child exists: under memory pressure a child may not manage to
# allocate these.
_MEMORY_ANSWER = _child_answer("error", code=Failure.MEMORY.value, detail="MemoryError")
_TOO_LARGE_ANSWER = _child_answer("error", code=Failure.OUTPUT_TOO_LARGE.value, detail="result over max_result_bytes")


class Zygote:
    def __init__(self, config: dict[str, Any], *, probes_enabled: bool) -> None:
        self.policy = load_policy(Path(config["policy_dir"]), **config.get("child_overrides", {}))
        self.limits = self.policy.child
        self.pid = os.getpid()
        self.worker_pid = os.getppid()
        # Same-uid children (container mode) cannot ptrace us or read /proc/<us>/*
        # (inherited by every zygote forked from this template).
        prctl.set_dumpable(False)

        from ats.parsing.data import ParseError, ParseLimits  # trusted data types only

        self.parse_error_type = ParseError
        self.parse_limits = ParseLimits(**self.policy.parse)
        interpreter_code = _code_mappings()
        self.parser = importlib.import_module(config.get("parser", "ats.parsing.api"))
        started = time.monotonic()
        self.parser.prewarm()
        self.prewarm_ms = (time.monotonic() - started) * 1000
        self.read_only_paths = [*self.limits.read_only_paths, self.parse_limits.tessdata_dir]

        self.probes: Any = None
        self.result_fd = -1
        self.spare: _Child | None = None
        self.answer_buf: mmap.mmap  # each zygote's own (become_zygote)
        self.answer_dirty = 0  # bytes of answer_buf written since the last scrub
        # The parser supplies its own trusted warm-up documents (see the spare child below).
        self.warmup_samples = self.parser.warmup_documents() if config.get("warmup", True) else []
        self.max_document_bytes = int(self.policy.parse.get("max_bytes", 20 * 1024 * 1024))
        if config.get("probes"):
            # Test-only: needs both the --test-probes flag and the env var; production
            # config never sets either, so a probe kind is refused there.
            if not probes_enabled:
                raise RuntimeError("probes requested but not enabled for this zygote")
            if config.get("probes_path"):
                sys.path.insert(0, config["probes_path"])
            self.probes = importlib.import_module(config["probes"])

        # Checked (allow-like actions refused), compiled and hashed from one read of the file:
        # the hash in hello is the profile these children really run under.
        seccomp, self.seccomp_skipped, self.profile_hash = oci.load_child_profile(
            Path(self.policy.policy_dir) / "seccomp-child.json"
        )
        self.seccomp = oci.CompiledFilter(seccomp)
        # Test-only (like the probes): behave as on a kernel without Landlock, to prove the
        # sandbox then refuses to run rather than run without a file boundary.
        self.no_landlock = bool(config.get("test_without_landlock"))
        if self.no_landlock and not probes_enabled:
            raise RuntimeError("test_without_landlock requested but probes are not enabled")
        self.plan: hardening.Plan  # each zygote's own (become_zygote)
        # The parser's native code (MuPDF, libxml2: ~20 MB) was paged in by the prewarm,
        # but the zygote never runs it again: unmap those pages here and each spare maps
        # back, from the page cache, only what its warm-up parse runs (minor faults, off
        # the critical path). Nothing is lost: only never-written code pages are dropped.
        _drop_code_pages(_code_mappings() - interpreter_code)
        gc.collect()
        # What the collection and the set-up after prewarm freed, glibc would keep mapped:
        # hand it back before the first fork, or the zygote and every spare carry it.
        _release_freed_heap()
        gc.freeze()  # keep the pre-warmed heap out of the child's GC: fewer copy-on-write faults
        self.threads = len(os.listdir("/proc/self/task"))

    def become_zygote(self) -> None:
        """In a fresh fork of the template: what each zygote must have of its own.

        Everything above (the imported, pre-warmed parser, the compiled filter) is the
        template's and shared copy-on-write by every zygote forked from it - one copy of
        the parser's pages for all parse slots instead of one per slot. What must not be
        shared is set up here, after the fork.
        """
        self.pid = os.getpid()
        # Orphans (there should be none: children cannot fork) are reparented to us and
        # reaped, so zombies never count against RLIMIT_NPROC of the sandbox uid. (Not
        # inherited through fork: set in each zygote.)
        prctl.set_child_subreaper(True)
        prctl.set_dumpable(False)
        # Each zygote its own empty network namespace, bounding set and securebits, as
        # when each was exec'd on its own: two slots' children never share a namespace.
        self.plan = hardening.prepare_zygote(without_landlock=self.no_landlock)
        # One answer buffer for the zygote's lifetime (cap + 1 byte to detect overflow),
        # scrubbed after each document. Never forked, and resident only where an answer
        # was written (see _private_buffer): a zeroed 4 MiB bytearray sat in every
        # zygote and, copy-on-write, in its spare.
        # Room for a streamed answer's two frames (and the byte that shows an overflow).
        self.answer_buf = _private_buffer(self.limits.max_result_bytes + 2 * protocol.LEN_SIZE + 1)
        self.answer_dirty = 0
        self.threads = len(os.listdir("/proc/self/task"))

    def fork_zygote(self, in_fd: int, out_fd: int) -> None:
        """Template side of a "fork" request: fork a zygote, hand the worker its socket.

        The worker gets (over SCM_RIGHTS on our socket) its end of a fresh socket pair -
        the new zygote's stdin/stdout equivalent - and a pidfd of the zygote (its parent
        is this template, not the worker: the pidfd is how the worker watches and kills
        it). The zygote then says hello on that socket, like an exec'd one did.
        """
        import socket

        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        pid = os.fork()
        if pid == 0:  # the new zygote: never returns into the template's loop
            code = 1
            try:
                theirs.close()
                os.close(in_fd)
                os.close(out_fd)
                os.setsid()  # its own session, as start_new_session gave an exec'd zygote
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # it reaps its own children
                fd = ours.detach()
                code = _zygote_main(self, fd)
            finally:
                os._exit(code)
        ours.close()
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:  # it died (and was reaped) already: the worker sees no zygote
            pidfd = -1
        sock = socket.socket(fileno=os.dup(out_fd))
        try:
            fds = [theirs.fileno()] if pidfd < 0 else [theirs.fileno(), pidfd]
            socket.send_fds(sock, [protocol.LEN.pack(pid)], fds)
        finally:
            sock.close()
            theirs.close()
            if pidfd >= 0:
                os.close(pidfd)

    def _refusal(self) -> str | None:
        if self.threads != 1:
            return f"{self.threads} threads after prewarm: forking is unsafe"
        if not FILE_BOUNDARY & set(self.plan.layers):
            # The child would keep our uid with nothing between it and same-uid processes'
            # /proc/<pid>/environ and fds (health check, kubectl exec shells): refuse.
            return (
                f"no file boundary: the child keeps uid {os.geteuid()} and Landlock is missing "
                f"({self.plan.skipped.get(Layer.LANDLOCK, '?')}); run on a kernel with Landlock, or "
                "give the zygote a real uid change (root in a user namespace, hostUsers: false)"
            )
        return None

    def hello(self) -> dict[str, Any]:
        refusal = self._refusal()
        return {
            "ok": refusal is None,
            "error": refusal,
            "pid": self.pid,
            "uid": os.geteuid(),
            "layers": [layer.value for layer in self.plan.layers],
            "skipped": self.plan.skipped,
            "seccomp_skipped": self.seccomp_skipped,
            "policy_hash": self.policy.policy_hash,
            "profile_hash": self.profile_hash,
            "vm_bytes": hardening.address_space_bytes(),
            "prewarm_ms": round(self.prewarm_ms, 1),
        }

    # -- child side (never returns) -------------------------------------------------

    def _child(self, doc_fd: int, answer_fd: int, vm_bytes: int) -> None:
        try:
            hardening.apply(
                self.plan,
                self.limits,
                keep_fds=(doc_fd, answer_fd),
                zygote_pid=self.pid,
                vm_bytes=vm_bytes,
                read_only_paths=self.read_only_paths,
                load_seccomp=self.seccomp.load,
            )
            self.result_fd = answer_fd
            # Confined, not yet given a document: fault in the pages a parse writes to
            # (the parser's warmup_documents()), then wait for the zygote to send the next document.
            # Not at once (_WARMUP_AFTER_MS), and skipped when a document arrives first
            # (a backlog): then it would only add to that document's latency.
            waiting = select.poll()
            waiting.register(doc_fd, select.POLLIN)
            if not waiting.poll(_WARMUP_AFTER_MS):
                for sample_kind, sample in self.warmup_samples:
                    with contextlib.suppress(Exception):
                        self.parser.parse_document(sample, kind=sample_kind, limits=self.parse_limits)
            request = protocol.recv_json(doc_fd, _MAX_REQUEST)
            data = protocol.read_frame(doc_fd, self.max_document_bytes)
            os.close(doc_fd)
            # ---- from here on the process handles untrusted bytes ----
            answer, first_page = self._parse(str(request["kind"]), data)
            protocol.write_all(answer_fd, answer)
            if first_page is not None:
                # The parse's answer is on its way to the worker (and its report into the
                # database) while page 1 renders: a frame of its own, or nothing.
                protocol.write_all(answer_fd, first_page())
            # EOF now, before the address space is torn down: the zygote answers the
            # worker without waiting for our exit.
            os.close(answer_fd)
        except BaseException:
            os._exit(1)
        os._exit(0)

    def _parse(self, kind: str, data: bytes) -> tuple[bytes, Callable[[], bytes] | None]:
        """The answer frame, and for a with_first_page_request whose parse succeeded the
        work that makes page 1's frame (run after the answer is written)."""
        started = time.process_time()
        first_page: Callable[[], bytes] | None = None
        try:
            with_page = parse_with_first_page_request(kind)
            if kind.startswith("probe:"):
                probe = getattr(self.probes, "probe_" + kind[6:])
                context = {
                    "zygote_pid": self.pid,
                    "worker_pid": self.worker_pid,
                    "limits": self.limits,
                    "layers": [layer.value for layer in self.plan.layers],
                    "result_fd": self.result_fd,
                }
                document = probe(data, context)
            elif (render := parse_render_request(kind)) is not None:
                # One page as raw grey pixels for the CV viewer (ats.sandbox.pages).
                document = self.parser.render_page(data, kind=render[0], page=render[1], limits=self.parse_limits)
            else:
                document = self.parser.parse_document(data, kind=with_page or kind, limits=self.parse_limits)
            # ensure_ascii: one byte per character on the wire, no encoding step that can fail
            body = json.dumps({"status": "ok", "document": document}, allow_nan=False, separators=(",", ":"))
            if with_page is not None and time.process_time() - started < FIRST_PAGE_MAX_CPU_S:
                # Page 1 rendered by this child (issue 26: one fork per one-page document,
                # not two), after the parse's answer. The parse decides: a page that fails
                # to render, would push the two frames over the answer cap or comes after
                # FIRST_PAGE_MAX_CPU_S of parsing is left out, and the worker renders it in
                # a child of its own.
                first_page = functools.partial(
                    self._first_page, with_page, data, self.limits.max_result_bytes - len(body)
                )
        except MemoryError:
            return _MEMORY_ANSWER, None
        except self.parse_error_type as exc:
            body = json.dumps({"status": "error", "code": str(exc.code), "detail": exc.detail[:500]})
        except BaseException as exc:  # an extractor bug or a probe's refusal: typed as crashed
            try:
                body = json.dumps({"status": "error", "code": Failure.CRASHED.value, "detail": type(exc).__name__})
            except MemoryError:
                return _MEMORY_ANSWER, None
        if len(body) > self.limits.max_result_bytes:
            return _TOO_LARGE_ANSWER, None
        return protocol.frame(body.encode()), first_page

    def _first_page(self, kind: str, data: bytes, room: int) -> bytes:
        """Page 1's render answer as a frame, or b"" (not rendered, or over `room`)."""
        try:
            page = self.parser.render_page(data, kind=kind, page=1, limits=self.parse_limits)
            body = json.dumps({"status": "ok", "document": page}, allow_nan=False, separators=(",", ":"))
        except BaseException:  # MemoryError too: the parse stands without its page
            return b""
        return protocol.frame(body.encode()) if len(body) <= room else b""

    # -- zygote side -------------------------------------------------------------------

    def fork_spare(self) -> _Child:
        """Fork the next child now, while idle: fork and hardening (~3 ms) are then off the
        document's critical path. The spare is fully confined before it sees any input."""
        # Socket pairs, not pipes: a pipe can be reopened through /proc/<pid>/fd/N by any
        # process allowed to open that link; a socket cannot (ENXIO). Each pair is used in
        # one direction only, as the pipes were (EOF = the writer closed its end).
        doc_r, doc_w = _stream_pair()
        answer_r, answer_w = _stream_pair()
        vm_bytes = hardening.address_space_bytes()
        pid = os.fork()
        if pid == 0:
            os.close(doc_w)
            os.close(answer_r)
            self._child(doc_r, answer_w, vm_bytes)
        os.close(doc_r)
        os.close(answer_w)
        os.set_blocking(doc_w, False)
        return _Child(pid, os.pidfd_open(pid), doc_w, answer_r)

    def run_one(
        self, kind: str, document: memoryview, reply: Callable[[dict[str, Any], memoryview], None]
    ) -> tuple[dict[str, Any], memoryview, _Child | None]:
        """Send one document to the spare and judge how it ended.

        Returns (outcome, answer - a view of ``self.answer_buf``, child still to reap).
        When the child has closed its answer pipe with a complete frame, we answer at
        once and reap it afterwards. No copy of the document or the answer is made:
        both buffers are scrubbed by ``serve`` before the next spare is forked.

        A with_first_page_request is answered twice: its parse's frame through `reply` as
        soon as it is whole (outcome ``"more": true``; the child renders on), then what
        follows it - page 1's frame, or nothing - as the returned answer.
        """
        if kind.startswith("probe:") and (self.probes is None or not hasattr(self.probes, "probe_" + kind[6:])):
            refused = {"end": "refused", "failure": Failure.UNSUPPORTED.value, "detail": "unknown kind"}
            return refused, memoryview(b""), None
        child, self.spare = self.spare or self.fork_spare(), None
        started = time.monotonic()
        header = protocol.frame(json.dumps({"kind": kind}).encode()) + protocol.LEN.pack(len(document))
        # Test-only too: a `probe:stream_*` kind is answered like a parse+page1 request, so
        # the escape probes can play a hostile child on this path (probe kinds are refused
        # above unless probes are enabled).
        streamed = parse_with_first_page_request(kind) is not None or kind.startswith("probe:stream_")
        exchange = _Exchange(
            child,
            outgoing=[memoryview(header), document],
            answer=memoryview(self.answer_buf),
            # Two frames for a streamed request, the same cap on their bodies together.
            cap=self.limits.max_result_bytes + protocol.LEN_SIZE * (2 if streamed else 1),
            first_frame_only=streamed,
        )
        end = exchange.run(deadline=started + self.limits.wall_s)
        if streamed and end is None and exchange.first_frame_end > self.limits.max_result_bytes + protocol.LEN_SIZE:
            end = "output_too_large"  # the parse's frame alone over the cap: not ours to pass on
        if streamed and end is None and exchange.first_frame_end:
            # The two frames share the cap, so what follows the first always fits a reply.
            first = exchange.first_frame_end
            self.answer_dirty = max(self.answer_dirty, exchange.received)
            cpu_s, _ = _proc_usage(child.pid)
            reply(
                {"end": "answered", "more": True, "cpu_s": cpu_s, "wall_s": time.monotonic() - started},
                exchange.answer[:first],
            )
            exchange.first_frame_only, exchange.offset = False, first
            end = exchange.run(deadline=started + self.limits.wall_s)
        # Everything read so far is scrubbed after the reply, answered or not: a child
        # stopped for overflow or at the deadline left its bytes in our buffer too.
        self.answer_dirty = max(self.answer_dirty, exchange.received)
        child.close_doc()
        answer = exchange.answer[exchange.offset : exchange.received]
        if end is None and not exchange.exited:
            return self._answered(child, answer, started)
        return self._ended(child, end, answer, started)

    def _answered(
        self, child: _Child, answer: memoryview, started: float
    ) -> tuple[dict[str, Any], memoryview, _Child | None]:
        """A complete answer and EOF: the child is done. Kill it in case it is not, read
        its CPU time before the reap, and let the caller reap after replying."""
        cpu_s, rss_kb = _proc_usage(child.pid)
        signal.pidfd_send_signal(child.pidfd, signal.SIGKILL)
        pending: _Child | None = child
        if not rss_kb:
            # It exited between its EOF and our look (a zombie has no VmHWM): its
            # rusage is final, so reap it now rather than report a peak of 0.
            _, usage = self.reap(child)
            cpu_s, rss_kb, pending = usage.ru_utime + usage.ru_stime, usage.ru_maxrss, None
        outcome = {"end": "answered", "cpu_s": cpu_s, "maxrss_kb": rss_kb, "wall_s": time.monotonic() - started}
        return outcome, answer, pending

    def _ended(
        self, child: _Child, end: str | None, answer: memoryview, started: float
    ) -> tuple[dict[str, Any], memoryview, None]:
        """The child exited (or was signalled) on its own, or we stop it (`end`: the wall
        deadline, an answer over the cap): reap it and report how. A stopped child's
        answer is never passed on."""
        if end is not None:
            signal.pidfd_send_signal(child.pidfd, signal.SIGKILL)
        status, usage = self.reap(child)
        outcome = {
            "end": end or ("signaled" if os.WIFSIGNALED(status) else "exited"),
            "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            "exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            "cpu_s": usage.ru_utime + usage.ru_stime,
            "wall_s": time.monotonic() - started,
            "maxrss_kb": usage.ru_maxrss,
        }
        return outcome, answer if end is None else answer[:0], None

    def reap(self, child: _Child) -> tuple[int, Any]:
        _killpg(child.pid)
        _, status, usage = os.wait4(child.pid, 0)
        child.close()
        self._reap_orphans()
        return status, usage

    def _reap_orphans(self) -> None:
        if self.spare is not None:
            return  # waitpid(-1) could reap the spare; orphans wait for the next round
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return

    def serve(self, in_fd: int, out_fd: int) -> None:
        self.spare = self.fork_spare()
        try:
            while True:
                try:
                    request = protocol.recv_json(in_fd, _MAX_REQUEST)
                    (length,) = protocol.LEN.unpack(protocol.read_exact(in_fd, protocol.LEN_SIZE))
                except EOFError:
                    return  # the worker closed the pipe or died
                if length > self.max_document_bytes:
                    return  # the worker checks first: this is a bug, not a document
                # Read straight into one buffer (no intermediate chunks left in the heap).
                document = _private_buffer(length)
                view = memoryview(document)[:length]  # a mapping has at least one byte
                _read_into(in_fd, view)
                outcome, answer, pending = self.run_one(str(request["kind"]), view, functools.partial(_reply, out_fd))
                _reply(out_fd, outcome, answer)
                # Every later child is a fork of this process: no byte of this document
                # or its answer may survive in our heap for the next spare to find.
                del answer, view
                _scrub(document)
                _scrub(self.answer_buf, self.answer_dirty)
                self.answer_dirty = 0
                _unmap(document)
                del document
                if pending is not None:
                    self.reap(pending)  # overlaps with the worker validating the answer
                if self.spare is None:
                    self.spare = self.fork_spare()
        finally:
            if self.spare is not None:
                signal.pidfd_send_signal(self.spare.pidfd, signal.SIGKILL)
                self.reap(self.spare)


def _reply(out_fd: int, outcome: dict[str, Any], answer: memoryview) -> None:
    protocol.send_json(out_fd, outcome)
    protocol.write_all(out_fd, protocol.LEN.pack(len(answer)))
    protocol.write_all(out_fd, answer)


def _stream_pair() -> tuple[int, int]:
    """(read end, write end) of a close-on-exec AF_UNIX stream pair, as raw fds."""
    import socket

    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    return left.detach(), right.detach()  # socket.socketpair sets SOCK_CLOEXEC already


def _read_into(fd: int, view: memoryview) -> None:
    while view:
        count = os.readv(fd, [view])
        if not count:
            raise EOFError
        view = view[count:]


def _code_mappings() -> set[tuple[int, int]]:
    """(start, end) of every executable file mapping of this process none of whose pages
    was ever written (a text relocation would have copied some: those stay mapped)."""
    found: set[tuple[int, int]] = set()
    current: tuple[int, int] | None = None
    with open("/proc/self/smaps") as fh:
        for line in fh:
            fields = line.split()
            if "-" in fields[0] and len(fields) >= 5:  # a mapping's header line
                start, end = (int(x, 16) for x in fields[0].split("-"))
                current = (start, end) if len(fields) >= 6 and fields[1] == "r-xp" and fields[5][:1] == "/" else None
            elif current is not None and fields[0] == "Anonymous:":
                if fields[1] == "0":
                    found.add(current)
                current = None
    return found


def _drop_code_pages(mappings: set[tuple[int, int]]) -> None:
    """Unmap the resident pages of these code mappings: the next access maps them again
    from the page cache (MADV_DONTNEED on a private file mapping re-reads the file, and
    _code_mappings lists only mappings with no page of their own)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    for start, end in mappings:
        libc.madvise(start, end - start, mmap.MADV_DONTNEED)


def _release_freed_heap() -> None:
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).malloc_trim(0)


def _private_buffer(size: int) -> mmap.mmap:
    """A zero-filled buffer of its own anonymous private mapping, excluded from fork.

    Not a bytearray: that is zeroed (so resident) at once and lives in the heap every
    later spare inherits. Here only the pages a document or answer touches are
    resident, MADV_DONTFORK keeps the mapping out of every child (the spare never sees
    these bytes, not even copy-on-write), and _scrub gives the pages back zeroed.
    """
    buf = mmap.mmap(-1, max(size, 1), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    buf.madvise(mmap.MADV_DONTFORK)
    return buf


def _scrub(buf: mmap.mmap, length: int | None = None) -> None:
    """Zero the first `length` bytes (all by default) and release their pages: a private
    anonymous page dropped with MADV_DONTNEED reads back as zeros."""
    length = len(buf) if length is None else min(length, len(buf))
    if length:
        ctypes.memset((ctypes.c_char * length).from_buffer(buf), 0, length)
        buf.madvise(mmap.MADV_DONTNEED, 0, length)


def _unmap(buf: mmap.mmap) -> None:
    # A memoryview still exported (a bug) only delays the munmap to the buffer's
    # collection; its bytes are scrubbed either way.
    with contextlib.suppress(BufferError):
        buf.close()


@dataclass
class _Child:
    pid: int
    pidfd: int
    doc_fd: int  # we write the request here (non-blocking)
    answer_fd: int  # the child's answer arrives here

    def close_doc(self) -> None:
        if self.doc_fd >= 0:
            os.close(self.doc_fd)
            self.doc_fd = -1

    def close(self) -> None:
        self.close_doc()
        for fd in (self.pidfd, self.answer_fd):
            with contextlib.suppress(OSError):
                os.close(fd)


@dataclass
class _Exchange:
    """One document's round trip with a child, on one poll loop: the request written to
    its document socket (non-blocking, 1 MiB at a time), its answer read into the
    zygote's answer buffer, its exit noticed through its pidfd."""

    child: _Child
    outgoing: list[memoryview]  # what is still to be written: header, then the document
    answer: memoryview  # the zygote's answer buffer (it holds cap + 1 bytes)
    cap: int  # the most an answer may be: max_result_bytes + its length prefix(es)
    # Stop as soon as the first frame is whole (a streamed request's parse answer), then
    # `first_frame_end` is its length; `offset` is where the answer judged next begins.
    first_frame_only: bool = False
    first_frame_end: int = 0
    offset: int = 0
    received: int = 0
    eof: bool = False
    exited: bool = False
    poller: Any = None

    def __post_init__(self) -> None:
        # One poller for the whole exchange: a streamed one runs twice, and what ended in
        # the first run (the request written, even the answer's EOF) stays ended.
        self.poller = select.poll()
        self.poller.register(self.child.answer_fd, select.POLLIN)
        self.poller.register(self.child.pidfd, select.POLLIN)
        self.poller.register(self.child.doc_fd, select.POLLOUT)

    def _done(self) -> bool:
        if self.first_frame_only:
            whole = _frame_end(self.answer[: self.received])
            if whole:
                self.first_frame_end = whole
                return True
        return self.eof and (self.exited or _complete(self.answer[self.offset : self.received]))

    def run(self, *, deadline: float) -> str | None:
        """Until the answer's EOF and the child's exit or a complete answer (or, with
        `first_frame_only`, a whole first frame); returns None, or why the zygote stops
        the child: "wall_timeout", "output_too_large"."""
        poller = self.poller
        while not self._done():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "wall_timeout"
            for fd, event in poller.poll(remaining * 1000):
                if fd == self.child.pidfd:
                    self._exited(poller, fd)
                elif fd == self.child.doc_fd:
                    self._writable(poller, fd, event)
                else:
                    self._readable(poller, fd)
            if self.received > self.cap:
                return "output_too_large"
        return None

    def _exited(self, poller: select.poll, fd: int) -> None:
        self.exited = True
        poller.unregister(fd)
        _killpg(self.child.pid)  # anything it left behind; its pipe ends then close

    def _writable(self, poller: select.poll, fd: int, event: int) -> None:
        if event & select.POLLOUT:
            try:
                self.outgoing[0] = self.outgoing[0][os.write(fd, self.outgoing[0][: 1 << 20]) :]
            except BlockingIOError:
                pass
            except BrokenPipeError:
                self.outgoing = []  # the child is gone; its exit tells why
            while self.outgoing and not self.outgoing[0]:
                self.outgoing.pop(0)
        if not self.outgoing or event & (select.POLLERR | select.POLLHUP):
            poller.unregister(fd)
            self.child.close_doc()

    def _readable(self, poller: select.poll, fd: int) -> None:
        count = os.readv(fd, [self.answer[self.received :]])  # the buffer holds cap + 1
        if not count:
            self.eof = True
            poller.unregister(fd)
        self.received += count


def _frame_end(answer: memoryview) -> int:
    """The length of the first frame when it is whole in `answer`, else 0."""
    if len(answer) < protocol.LEN_SIZE:
        return 0
    end = protocol.LEN_SIZE + int.from_bytes(answer[: protocol.LEN_SIZE], "big")
    return end if len(answer) >= end else 0


def _complete(answer: memoryview) -> bool:
    return len(answer) >= protocol.LEN_SIZE and len(answer) == protocol.LEN_SIZE + int.from_bytes(
        answer[: protocol.LEN_SIZE], "big"
    )


def _proc_usage(pid: int) -> tuple[float, int]:
    """CPU seconds (schedstat, ns precision) and peak RSS of a child not yet reaped."""
    try:
        with open(f"/proc/{pid}/schedstat") as fh:
            cpu_s = int(fh.read().split()[0]) / 1e9
        with open(f"/proc/{pid}/status") as fh:
            rss_kb = next((int(line.split()[1]) for line in fh if line.startswith("VmHWM:")), 0)
    except (OSError, ValueError):
        return 0.0, 0
    return cpu_s, rss_kb


def _killpg(pid: int) -> None:
    # ESRCH: not (yet) a group leader, or already gone
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _zygote_main(template: Zygote, fd: int) -> int:
    """A zygote just forked from the template: set up its own part, say hello, serve."""
    try:
        template.become_zygote()
        hello = template.hello()
    except Exception as exc:  # report why instead of dying silently
        protocol.send_json(fd, {"ok": False, "error": f"{type(exc).__name__}: {exc}"})
        return 1
    protocol.send_json(fd, hello)
    if not hello["ok"]:
        return 1
    with contextlib.suppress(BrokenPipeError, EOFError):  # the worker went away
        template.serve(fd, fd)
    return 0


def main() -> int:
    """The template: import and pre-warm once, then fork a zygote per worker request.

    Every zygote of one template shares its pre-warmed pages (copy-on-write) - and so its
    address-space layout, heap shape and stack canary: the worker recycles them together
    (ats.sandbox.forkserver). The template itself never forks a document's child, never
    reads a document, and serves only "fork" requests from the worker.
    """
    # First thing: execve made us dumpable again; a same-uid process must not read our
    # memory or /proc files while we start (Zygote.__init__ repeats it for clarity).
    prctl.set_dumpable(False)
    probes_enabled = "--test-probes" in sys.argv[1:] and os.environ.get(PROBES_ENV) == "1"
    # Keep the protocol pipes off 0/1: a stray print() from a library must not corrupt
    # the stream. stdout goes to stderr (logs), stdin to /dev/null.
    in_fd, out_fd = os.dup(0), os.dup(1)
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    os.close(null)
    try:
        config = protocol.recv_json(in_fd, _MAX_CONFIG)
        template = Zygote(config, probes_enabled=probes_enabled)
    except Exception as exc:  # report why instead of dying silently
        protocol.send_json(out_fd, {"ok": False, "error": f"{type(exc).__name__}: {exc}"})
        return 1
    # Our zygotes are reaped by the kernel (the worker watches them through pidfds); each
    # zygote restores SIGCHLD for its own children right after the fork.
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    protocol.send_json(out_fd, {"ok": True, "pid": os.getpid(), "policy_hash": template.policy.policy_hash})
    while True:
        try:
            request = protocol.recv_json(in_fd, _MAX_REQUEST)
        except (EOFError, OSError):
            return 0  # the worker closed the socket or died
        if request.get("kind") != "fork":
            return 1  # only the worker writes here: anything else is a bug
        template.fork_zygote(in_fd, out_fd)


if __name__ == "__main__":
    sys.exit(main())
