"""A local HTTP server speaking the OpenAI chat-completions wire format, with failure modes:
ok, slow, 500, 429, malformed (not JSON), empty (no choices)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeProvider:
    def __init__(self) -> None:
        self.mode = "ok"
        self.slow_s = 2.0
        self.requests: list[dict[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                return

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
                owner.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
                mode = owner.mode
                if mode == "slow":
                    time.sleep(owner.slow_s)
                if mode == "500":
                    return self._send(500, b'{"error": {"message": "boom"}}')
                if mode == "429":
                    return self._send(429, b'{"error": {"message": "rate limited"}}')
                if mode == "malformed":
                    return self._send(200, b"<html>not json</html>")
                if mode == "empty":
                    return self._send(200, json.dumps({"id": "x", "choices": []}).encode())
                answer = {
                    "id": "chatcmpl-test",
                    "object": "chat.completion",
                    "model": body.get("model"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": "The score reflects Python found."},
                            "finish_reason": "stop",
                        }
                    ],
                }
                return self._send(200, json.dumps(answer).encode())

            def _send(self, status: int, payload: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # A client that gave up on a slow answer closes the socket: not an error here.
        self.server.handle_error = lambda *_: None  # type: ignore[method-assign]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeProvider:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
