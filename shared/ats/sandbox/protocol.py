"""Length-prefixed frames over pipes (worker <-> zygote <-> child).

A frame is an 8-byte big-endian length and that many bytes. Readers always pass a
maximum: a length above it is refused before anything is allocated.
"""

from __future__ import annotations

import json
import os
import select
import struct
import time
from typing import Any

from ats.sandbox.errors import SandboxError

LEN = struct.Struct(">Q")
LEN_SIZE = LEN.size


class ProtocolError(SandboxError):
    pass


def frame(payload: bytes) -> bytes:
    return LEN.pack(len(payload)) + payload


def _wait(fd: int, *, write: bool, deadline: float | None) -> None:
    if deadline is None:
        return
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError
    ready = select.select([], [fd], [], remaining) if write else select.select([fd], [], [], remaining)
    if not any(ready):
        raise TimeoutError


def write_all(fd: int, data: bytes | bytearray | memoryview, deadline: float | None = None) -> None:
    view = memoryview(data)
    while view:
        _wait(fd, write=True, deadline=deadline)
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            continue


def read_exact(fd: int, size: int, deadline: float | None = None) -> bytes:
    chunks = bytearray()
    while len(chunks) < size:
        _wait(fd, write=False, deadline=deadline)
        try:
            chunk = os.read(fd, min(size - len(chunks), 1 << 20))
        except BlockingIOError:
            continue
        if not chunk:
            raise EOFError
        chunks += chunk
    return bytes(chunks)


def read_frame(fd: int, max_len: int, deadline: float | None = None) -> bytes:
    (length,) = LEN.unpack(read_exact(fd, LEN_SIZE, deadline))
    if length > max_len:
        raise ProtocolError(f"frame of {length} bytes exceeds {max_len}")
    return read_exact(fd, length, deadline)


def send_json(fd: int, obj: Any, deadline: float | None = None) -> None:
    write_all(fd, frame(json.dumps(obj, separators=(",", ":")).encode()), deadline)


def recv_json(fd: int, max_len: int, deadline: float | None = None) -> Any:
    return json.loads(read_frame(fd, max_len, deadline))
