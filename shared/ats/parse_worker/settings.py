"""Django settings of worker-untrusted (`ats worker --deployable untrusted` forces them).

procrastinate and `ats.jobs` only: no trusted app is installed (so no trusted model,
signal or task module loads), and nothing here reads the storage, Graph, AI, audit or
session-signing secrets - this process never holds them, whatever its environment has.
The database is the least-privilege parse role (policy/db-role.sql).
"""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

from ats.config import env
from ats.config.log_config import LOGGING  # noqa: F401 - Django reads it: one LOGGING for every process
from ats.config.settings_db import database_from_url, with_statement_binding

if env.DEPLOYABLE != "untrusted":
    # Keeps the trusted settings' DEPLOYABLE branches (connection reuse, wake-up fix) right.
    raise RuntimeError("ats.parse_worker.settings is for ATS_DEPLOYABLE=untrusted only")

# structlog imports rich (and through it pygments) whenever it is installed - the dev venv
# has both - for its console renderer's tracebacks. The JSON lines this worker writes
# never use them: ~3 MB of modules in a process held to a memory budget (issue 26). Set
# before LOGGING is configured, which is when structlog is first imported.
if os.environ.get("ATS_LOG_FORMAT", "json") != "console":
    sys.modules.setdefault("rich", None)  # type: ignore[arg-type]

DEBUG = False
# Django wants a key; nothing in this process signs anything. Random per process, so no
# configured secret is ever read here.
SECRET_KEY = secrets.token_hex(32)
ALLOWED_HOSTS: list[str] = []

INSTALLED_APPS = [
    # Must precede ats.jobs: its AppConfig.ready() may touch the procrastinate app.
    "procrastinate.contrib.django",
    "ats.jobs",
    "ats.parse_worker",
]
MIDDLEWARE: list[str] = []

DATABASES = {
    "default": with_statement_binding(
        database_from_url(env.database_url(), deployable="untrusted"), deployable="untrusted"
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
TIME_ZONE = "UTC"

# --- procrastinate (same knobs as the trusted settings) --------------------------------
# The task is imported by ats.parse_worker's AppConfig, never by autodiscovery (see there).
PROCRASTINATE_AUTODISCOVER_MODULE_NAME = ""
PROCRASTINATE_ON_APP_READY = "ats.jobs.registry.on_app_ready"
PROCRASTINATE_WORKER_DEFAULTS = {
    "update_heartbeat_interval": env.number("ATS_HEARTBEAT_INTERVAL_S", default=10.0),
    "stalled_worker_timeout": env.number("ATS_STALLED_WORKER_TIMEOUT_S", default=30.0),
    "fetch_job_polling_interval": env.number("ATS_POLL_INTERVAL_S", default=5.0),
    "abort_job_polling_interval": env.number("ATS_POLL_INTERVAL_S", default=5.0),
}

# Only the keys this process reads (ats.jobs.runtime, ats.parse_worker.runner).
ATS = {
    "RETRY_TIME_SCALE": env.number("ATS_RETRY_TIME_SCALE", default=1.0),
    # Development only: run parsers in-process without the sandbox (refused otherwise).
    "SANDBOX_ALLOW_INPROCESS": env.flag("ATS_SANDBOX_ALLOW_INPROCESS", default=False),
    "SANDBOX_POLICY_DIR": Path(
        os.environ.get("ATS_SANDBOX_POLICY_DIR", str(env.REPO_ROOT / "services" / "worker-untrusted" / "policy"))
    ),
}
