"""Environment parsing shared by settings, the CLI and dev tooling (no Django import)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TypedDict

# shared/ats/config/env.py -> repository root. In a container image the code is installed
# non-editable and the root is meaningless; there every path comes from the environment.
REPO_ROOT = Path(os.environ.get("ATS_REPO_ROOT", Path(__file__).resolve().parents[3]))
STATE_DIR = Path(os.environ.get("ATS_STATE_DIR", str(REPO_ROOT / ".ats")))
DEPLOYABLE = os.environ.get("ATS_DEPLOYABLE", "cli")

# The embedded cluster `just up` starts when no DATABASE_URL is given. Not 5432: a
# machine may already run a Postgres there, and the project must not depend on it.
EMBEDDED_PG_PORT = int(os.environ.get("ATS_EMBEDDED_PG_PORT", "54329"))
EMBEDDED_DATABASE_URL = f"postgresql://ats@127.0.0.1:{EMBEDDED_PG_PORT}/ats"


def database_url() -> str:
    return os.environ.get("DATABASE_URL") or EMBEDDED_DATABASE_URL


def database_url_from(environ: dict[str, str]) -> str:
    return environ.get("DATABASE_URL") or EMBEDDED_DATABASE_URL


def with_user(url: str, user: str) -> str:
    """The same database as another role (local trust-auth clusters only: no password)."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{user}@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def phone_region(value: str, *, name: str) -> str | None:
    """A phone region setting: an ISO 3166 code phonenumbers knows ("DE"), or "" / "none"
    for none. Anything else is a configuration error, said at start-up rather than as
    numbers silently read in no country."""
    import phonenumbers

    region = value.strip().upper()
    if region in ("", "NONE"):
        return None
    if region not in phonenumbers.SUPPORTED_REGIONS:
        raise ValueError(f"{name}={value!r} is not a phone region (an ISO 3166 code such as GB, DE, US, or none)")
    return region


def flag(name: str, *, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


def integer(name: str, *, default: int) -> int:
    raw = os.environ.get(name)
    return default if raw in (None, "") else int(raw)


def number(name: str, *, default: float) -> float:
    raw = os.environ.get(name)
    return default if raw in (None, "") else float(raw)


def csv(name: str, *, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def dev_secret_key() -> str:
    """A stable per-checkout key for the embedded default; production must set ATS_SECRET_KEY."""
    if DEPLOYABLE == "web" and flag("ATS_REQUIRE_SECRET_KEY", default=False):
        raise RuntimeError("ATS_SECRET_KEY is required")
    return "dev-insecure-" + hashlib.sha256(str(REPO_ROOT).encode()).hexdigest()


class AtsConfig(TypedDict):
    """Typed shape of settings.ATS (the project's own knobs)."""

    RETRY_TIME_SCALE: float
    MAX_UPLOAD_BYTES: int
    MAX_UPLOAD_REQUEST_BYTES: int
    STORAGE_KIND: str
    STORAGE_LOCAL_ROOT: Path
    AZURE_BLOB_CONNECTION_STRING: str
    CLAMD_HOST: str
    CLAMD_PORT: int
    CLAMD_TIMEOUT_S: float
    CLAMD_RAISED_HOST: str
    CLAMD_RAISED_PORT: int
    GRAPH_BASE_URL: str
    GRAPH_AUTHORITY: str
    GRAPH_TENANT_ID: str
    GRAPH_CLIENT_ID: str
    GRAPH_CLIENT_SECRET: str
    GRAPH_CA_BUNDLE: str
    SANDBOX_ALLOW_INPROCESS: bool
    SANDBOX_POLICY_DIR: Path
    SANDBOX_ACCEPTED_POLICY_HASHES: list[str]
    SANDBOX_REQUIRED_LAYERS: list[str]
    COMPACTION_SNAPSHOT_WAIT_S: float
    COMPACTION_CANCEL_GRACE_S: float


def ats_settings() -> AtsConfig:
    """settings.ATS, typed (Django's settings object is untyped)."""
    from django.conf import settings

    return settings.ATS  # type: ignore[no-any-return]
