"""A zygote that refuses to start says hello and exits at once; on a busy machine it is gone
(and reaped) before the template opens its pidfd, and the template hands the worker its
socket alone. The worker must still read the refusal from that socket.

Seen in a full `just test` run (stop 48): test_container_mode's no-Landlock case read
"zygote did not start: the template's answer was incomplete" instead of the zygote's "no file
boundary ..." - the reason an operator needs. Here the template's side of the exchange is
played over a socket pair, so the race is not left to the machine's load.
"""

from __future__ import annotations

import os
import socket
import subprocess
import threading

import pytest

from ats.sandbox import forkserver, protocol

REFUSAL = "no file boundary: the child keeps uid 65534 and Landlock is missing (test)"


def _template_over(sock: socket.socket) -> forkserver._Template:
    template = object.__new__(forkserver._Template)
    template.sock = sock
    template.fd = sock.fileno()
    template.startup_timeout_s = 5.0
    template.replacing = False
    return template


def _answer_one_fork(template_end: socket.socket, *, stand_in: subprocess.Popen[bytes] | None) -> None:
    """The template's side: read the fork request, hand over the zygote's socket end (whose
    other end has already said its refusal) and, only if asked, a pidfd - of a stand-in
    process, which the worker kills as it would a refusing zygote."""
    protocol.recv_json(template_end.fileno(), 1 << 16)
    zygote_end, worker_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    protocol.send_json(zygote_end.fileno(), {"ok": False, "error": REFUSAL})
    zygote_end.close()  # the zygote exited
    fds = [worker_end.fileno()]
    if stand_in is not None:
        fds.append(os.pidfd_open(stand_in.pid))
    socket.send_fds(template_end, [protocol.LEN.pack(12345)], fds)
    for fd in fds[1:]:
        os.close(fd)
    worker_end.close()


@pytest.mark.parametrize("with_pidfd", [False, True], ids=["zygote-gone-first", "pidfd-opened"])
def test_a_refusing_zygotes_reason_reaches_the_worker_with_or_without_its_pidfd(with_pidfd: bool) -> None:
    worker_end, template_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    template = _template_over(worker_end)
    stand_in = subprocess.Popen(["sleep", "60"]) if with_pidfd else None
    player = threading.Thread(target=_answer_one_fork, args=(template_end,), kwargs={"stand_in": stand_in})
    player.start()
    try:
        with pytest.raises(forkserver.ZygoteError, match="zygote refused to start: no file boundary"):
            template.fork_zygote()
        if stand_in is not None:
            assert stand_in.wait(10) == -9  # killed through its pidfd, as a zygote would be
    finally:
        player.join(10)
        worker_end.close()
        template_end.close()
        if stand_in is not None and stand_in.poll() is None:
            stand_in.kill()
