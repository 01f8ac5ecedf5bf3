"""The OpenAI-compatible chat-completions client (POST {base}/chat/completions).

Every failure is a ProviderError with a code: timeout, rate_limited (429), server_error
(5xx), http_error (other non-200), unreachable, malformed (not the wire format, or no
text). Nothing here ever invents an answer.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import httpx
from django.conf import settings

from ats.errors import AtsError


class AiError(AtsError):
    """Base of the errors the AI module raises on purpose."""


class ProviderError(AiError):
    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


@dataclasses.dataclass(frozen=True)
class ProviderConfig:
    base_url: str
    api_key: str
    model: str
    timeout_s: float

    @property
    def enabled(self) -> bool:
        return bool(self.base_url and self.model)


def config() -> ProviderConfig:
    return ProviderConfig(
        base_url=str(settings.AI_BASE_URL).rstrip("/"),
        api_key=str(settings.AI_API_KEY),
        model=str(settings.AI_MODEL),
        timeout_s=float(settings.AI_TIMEOUT_S),
    )


def chat(cfg: ProviderConfig, messages: list[dict[str, str]], *, max_tokens: int = 400) -> str:
    headers = {"Content-Type": "application/json"}
    if cfg.api_key:
        headers["Authorization"] = f"Bearer {cfg.api_key}"
    body: dict[str, Any] = {"model": cfg.model, "messages": messages, "temperature": 0, "max_tokens": max_tokens}
    try:
        resp = httpx.post(f"{cfg.base_url}/chat/completions", json=body, headers=headers, timeout=cfg.timeout_s)
    except httpx.TimeoutException as exc:
        raise ProviderError("timeout", f"no answer within {cfg.timeout_s:g} s") from exc
    except httpx.HTTPError as exc:
        raise ProviderError("unreachable", type(exc).__name__) from exc
    if resp.status_code == 429:
        raise ProviderError("rate_limited", "the provider refused the request (429)")
    if resp.status_code >= 500:
        raise ProviderError("server_error", f"the provider failed ({resp.status_code})")
    if resp.status_code != 200:
        raise ProviderError("http_error", f"unexpected status {resp.status_code}")
    try:
        data = resp.json()
        content = data["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise ProviderError("malformed", "the answer is not a chat completion") from exc
    if not isinstance(content, str) or not content.strip():
        raise ProviderError("malformed", "the answer has no text")
    return content.strip()
