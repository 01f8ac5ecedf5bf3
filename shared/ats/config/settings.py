"""Django settings of the trusted deployables: every knob comes from the environment, here.

`ATS_DEPLOYABLE` (web | default | cli | healthcheck) decides which task modules a process
imports. worker-untrusted never loads this file: it runs with `ats.parse_worker.settings`
(no trusted app, no secret), and this file refuses to load as it.
"""

from __future__ import annotations

import os
from pathlib import Path

from django.conf import global_settings

from ats.config import env
from ats.config.log_config import LOGGING  # noqa: F401 - Django reads it: one LOGGING for every process
from ats.config.settings_db import database_from_url, with_statement_binding

REPO_ROOT = env.REPO_ROOT
STATE_DIR = env.STATE_DIR
DEPLOYABLE = env.DEPLOYABLE
if DEPLOYABLE == "untrusted":
    # The untrusted worker must not load every trusted app and secret (issue 9).
    raise RuntimeError("worker-untrusted runs with DJANGO_SETTINGS_MODULE=ats.parse_worker.settings")

DEBUG = env.flag("ATS_DEBUG", default=False)
SECRET_KEY = os.environ.get("ATS_SECRET_KEY") or env.dev_secret_key()
ALLOWED_HOSTS = env.csv("ATS_ALLOWED_HOSTS", default="127.0.0.1,localhost")
CSRF_TRUSTED_ORIGINS = env.csv("ATS_CSRF_TRUSTED_ORIGINS", default="")

INSTALLED_APPS = [
    # The admin site with iam's rules (admins only; domain models read-only).
    "ats.web.apps.AtsAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    # Must precede our apps: their AppConfig.ready() may touch the procrastinate app.
    "procrastinate.contrib.django",
    "ats.jobs",
    "ats.iam",
    "ats.audit",
    "ats.intake",
    "ats.candidates",
    "ats.channels",
    "ats.scoring",
    "ats.ai",
    "ats.web",
    "ats.observability",
    "ats.evidence",
    "ats.search",
    "ats.retention",
    "ats.selfid",
    # Cross-module chain steps and commands: imports the modules above, so it comes last.
    "ats.pipeline",
    # Test-only apps (e.g. tests.testapp) are added by the test runner, never in images.
    *env.csv("ATS_EXTRA_APPS", default=""),
]

MIDDLEWARE = [
    # First: every log line of the request, and every job it defers, carries its id.
    "ats.observability.middleware.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "ats.web.middleware.TrailingSlashMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # Before any view: a NUL, over-long or non-UTF-8 parameter is a 400 with its reason.
    "ats.web.middleware.ParameterGuardMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
]

ROOT_URLCONF = "ats.config.urls"
WSGI_APPLICATION = "ats.config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "ats.web.context.nav",
                "ats.web.context.live",
            ],
            # `|when`, the one time format, in every template without a {% load %}.
            "builtins": ["ats.web.templatetags.ats_time"],
        },
    }
]


DATABASE_URL = env.database_url()
DATABASES = {
    "default": with_statement_binding(database_from_url(DATABASE_URL, deployable=DEPLOYABLE), deployable=DEPLOYABLE)
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
# Django's own hashers (PBKDF2 first, 1,000,000 iterations: 0.3-0.5 CPU s a hash, which is
# the point). Production reads no switch here: the test suite's cheap hasher is put first by
# its test-only app (tests/testapp/apps.py), which no image ships.
PASSWORD_HASHERS = list(global_settings.PASSWORD_HASHERS)
# Django permissions (the admin site) follow the iam role; ModelBackend still authenticates.
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "ats.iam.backends.RolePermissionBackend",
]
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
# How often the inbox and the ops console refresh themselves in place (htmx, seconds;
# docs/web.md). The browser tests shrink it: they wait for refreshes, not for the clock.
WEB_LIVE_REFRESH_S = env.integer("ATS_WEB_LIVE_REFRESH_S", default=10)

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# Images run collectstatic into ATS_STATIC_ROOT at build time; elsewhere whitenoise
# serves straight from the app directories.
STATIC_ROOT = os.environ.get("ATS_STATIC_ROOT") or None
WHITENOISE_USE_FINDERS = STATIC_ROOT is None

# Redis is a cache/session/rate-limit store only, never a broker (ADR 0004 R9).
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
# Secure by default (issue 21 N8): the web pod is served over HTTPS by a TLS-terminating
# proxy (the ingress), which sets X-Forwarded-Proto. Only development harnesses that serve
# plain http on loopback (`just up`, compose, the tests) opt out, explicitly, with
# ATS_DEV_PLAIN_HTTP=1. Secure: Secure session and CSRF cookies, the proxy's scheme header
# believed (so request.is_secure() and HSTS work behind it), HSTS for a year.
PLAIN_HTTP = env.flag("ATS_DEV_PLAIN_HTTP", default=False)
SESSION_COOKIE_SECURE = not PLAIN_HTTP
CSRF_COOKIE_SECURE = not PLAIN_HTTP
if not PLAIN_HTTP:
    # The proxy must overwrite (never pass through) a client's X-Forwarded-Proto.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = env.integer("ATS_HSTS_SECONDS", default=365 * 24 * 3600)
CSRF_FAILURE_VIEW = "ats.web.access.csrf_failure"
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
# Sessions live in the database (django.contrib.sessions' default engine); Redis, when
# configured, is a cache only. Browser-length sessions, 8 h at most.
SESSION_COOKIE_AGE = 8 * 3600
SECURE_CONTENT_TYPE_NOSNIFF = True
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "style-src": ["'self'"],
        "script-src": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    }
}

# Uploads: the upload view streams each file straight into its quarantine blob
# (ats.web.upload.QuarantineUploadHandler), never whole in memory nor in /tmp. This only
# bounds other multipart forms; the limits are ATS.MAX_UPLOAD_BYTES (per file) and
# ATS.MAX_UPLOAD_REQUEST_BYTES (per request).
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
DATA_UPLOAD_MAX_NUMBER_FILES = 20

# --- procrastinate ---------------------------------------------------------------------
PROCRASTINATE_AUTODISCOVER_MODULE_NAME = "tasks"
if DEPLOYABLE == "healthcheck":
    # The probe reads rows, never runs or defers tasks: importing every task module (mail,
    # Graph, storage clients) would be most of its cost.
    PROCRASTINATE_AUTODISCOVER_MODULE_NAME = ""
PROCRASTINATE_ON_APP_READY = "ats.jobs.registry.on_app_ready"
PROCRASTINATE_WORKER_DEFAULTS = {
    # Heartbeats drive stalled-job rescue; tests shrink them to keep the suite fast.
    "update_heartbeat_interval": env.number("ATS_HEARTBEAT_INTERVAL_S", default=10.0),
    "stalled_worker_timeout": env.number("ATS_STALLED_WORKER_TIMEOUT_S", default=30.0),
    "fetch_job_polling_interval": env.number("ATS_POLL_INTERVAL_S", default=5.0),
    "abort_job_polling_interval": env.number("ATS_POLL_INTERVAL_S", default=5.0),
}

# --- domain knobs ----------------------------------------------------------------------
ATS: env.AtsConfig = {
    # Multiplies every retry wait (tests use a small factor; production 1.0).
    "RETRY_TIME_SCALE": env.number("ATS_RETRY_TIME_SCALE", default=1.0),
    "MAX_UPLOAD_BYTES": env.integer("ATS_MAX_UPLOAD_BYTES", default=20 * 1024 * 1024),
    # The cap on ONE whole upload request, every file and field together (docs/web.md):
    # over it the request is refused with 413 before a byte is read, and nothing is kept.
    "MAX_UPLOAD_REQUEST_BYTES": env.integer("ATS_MAX_UPLOAD_REQUEST_BYTES", default=100 * 1024 * 1024),
    "STORAGE_KIND": os.environ.get("ATS_STORAGE_KIND", "local"),
    "STORAGE_LOCAL_ROOT": Path(os.environ.get("ATS_STORAGE_LOCAL_ROOT", str(STATE_DIR / "blobs"))),
    "AZURE_BLOB_CONNECTION_STRING": os.environ.get("ATS_AZURE_BLOB_CONNECTION_STRING", ""),
    "CLAMD_HOST": os.environ.get("ATS_CLAMD_HOST", "127.0.0.1"),
    "CLAMD_PORT": env.integer("ATS_CLAMD_PORT", default=3311),
    "CLAMD_TIMEOUT_S": env.number("ATS_CLAMD_TIMEOUT_S", default=30.0),
    # The second clamd, with raised limits (services/clamd/limits-raised.conf), that an
    # admin's "re-scan with raised limits" uses for one scan_incomplete file. Empty: none
    # deployed, the action says so (docs/runbook/clamav.md).
    "CLAMD_RAISED_HOST": os.environ.get("ATS_CLAMD_RAISED_HOST", ""),
    "CLAMD_RAISED_PORT": env.integer("ATS_CLAMD_RAISED_PORT", default=3312),
    "GRAPH_BASE_URL": os.environ.get("ATS_GRAPH_BASE_URL", "https://graph.microsoft.com/v1.0"),
    "GRAPH_AUTHORITY": os.environ.get("ATS_GRAPH_AUTHORITY", "https://login.microsoftonline.com"),
    "GRAPH_TENANT_ID": os.environ.get("ATS_GRAPH_TENANT_ID", ""),
    "GRAPH_CLIENT_ID": os.environ.get("ATS_GRAPH_CLIENT_ID", ""),
    "GRAPH_CLIENT_SECRET": os.environ.get("ATS_GRAPH_CLIENT_SECRET", ""),
    # A private CA for the Graph endpoint (the local fake Graph server in demos/tests).
    "GRAPH_CA_BUNDLE": os.environ.get("ATS_GRAPH_CA_BUNDLE", ""),
    # Development only: run parsers in-process without the sandbox (refused otherwise).
    "SANDBOX_ALLOW_INPROCESS": env.flag("ATS_SANDBOX_ALLOW_INPROCESS", default=False),
    "SANDBOX_POLICY_DIR": Path(
        os.environ.get("ATS_SANDBOX_POLICY_DIR", str(REPO_ROOT / "services" / "worker-untrusted" / "policy"))
    ),
    # Parse reports are believed only under a policy this deployment ships: the hash of
    # SANDBOX_POLICY_DIR, plus these (comma-separated sha256, e.g. the previous release's
    # during a rolling policy change). docs/security/trust-boundary.md.
    "SANDBOX_ACCEPTED_POLICY_HASHES": env.csv("ATS_SANDBOX_ACCEPTED_POLICY_HASHES", default=""),
    # Layers every parsed report's child must have had (comma-separated ats.sandbox Layer
    # names); empty = what the zygote itself requires for its mode (root or not).
    "SANDBOX_REQUIRED_LAYERS": env.csv("ATS_SANDBOX_REQUIRED_LAYERS", default=""),
    # An erasure's compaction (docs/compliance.md): how long it waits for snapshots older
    # than the erasure before cancelling them, then for the cancelled before terminating
    # them. Tests shrink both: what they prove is the order, not the length of the waits.
    "COMPACTION_SNAPSHOT_WAIT_S": env.number("ATS_COMPACTION_SNAPSHOT_WAIT_S", default=15.0),
    "COMPACTION_CANCEL_GRACE_S": env.number("ATS_COMPACTION_CANCEL_GRACE_S", default=5.0),
}

# --- mail channels (ats.channels) ------------------------------------------------------
# Every active channel is polled on this procrastinate cron (5 fields, or 6 with seconds
# last); tests shrink it.
MAIL_POLL_CRON = os.environ.get("ATS_MAIL_POLL_CRON", "*/2 * * * *")
# The region a CV's national phone number is read in when the CV itself gives no sign of
# its country (docs/extraction.md, "Phone regions"): web uploads' region, then the
# deployment default. ATS_EXTRACTION_DEFAULT_REGION is the default's earlier name.
DEFAULT_PHONE_REGION = env.phone_region(
    os.environ.get("ATS_DEFAULT_PHONE_REGION", os.environ.get("ATS_EXTRACTION_DEFAULT_REGION", "GB")),
    name="ATS_DEFAULT_PHONE_REGION",
)
UPLOAD_PHONE_REGION = env.phone_region(os.environ.get("ATS_UPLOAD_PHONE_REGION", ""), name="ATS_UPLOAD_PHONE_REGION")
# Messages per Graph delta page. A page is one intake transaction and all its attachments
# are held in memory together, so keep it small.
MAIL_PAGE_SIZE = env.integer("ATS_MAIL_PAGE_SIZE", default=10)

# --- AI provider (ats.ai) --------------------------------------------------------------
# Any OpenAI-compatible chat-completions endpoint. Empty base URL = AI disabled (the
# default): the product then says "AI unavailable" and never shows canned text.
AI_BASE_URL = os.environ.get("ATS_AI_BASE_URL", "")
AI_API_KEY = os.environ.get("ATS_AI_API_KEY", "")
AI_MODEL = os.environ.get("ATS_AI_MODEL", "")
AI_TIMEOUT_S = env.number("ATS_AI_TIMEOUT_S", default=30.0)  # inside the 45 s attempt budget
# Consecutive failed calls that open the circuit breaker; the half-open probe runs on the
# ADR's 15-minute health schedule.
AI_BREAKER_THRESHOLD = env.integer("ATS_AI_BREAKER_THRESHOLD", default=3)
AI_PROBE_CRON = os.environ.get("ATS_AI_PROBE_CRON", "*/15 * * * *")


# --- audit (ats.audit) -----------------------------------------------------------------
# Key of the HMAC that binds erasable personal details to the audit chain; production
# sets it and keeps it out of the database (default: derived from SECRET_KEY).
AUDIT_HMAC_KEY = os.environ.get("ATS_AUDIT_HMAC_KEY", "")
# Key of the erasure tombstones' HMAC (docs/compliance.md): kept out of the database like
# the audit key (default: derived from SECRET_KEY). Retention rules, in months.
TOMBSTONE_HMAC_KEY = os.environ.get("ATS_TOMBSTONE_HMAC_KEY", "")
RETENTION_MONTHS = int(os.environ.get("ATS_RETENTION_MONTHS", "24"))
RETENTION_CONSENT_MONTHS = int(os.environ.get("ATS_RETENTION_CONSENT_MONTHS", "48"))
ERASURE_LOG_CONTAINER = os.environ.get("ATS_ERASURE_LOG_CONTAINER", "erasure-log")
# The immutable archive container of audit exports (WORM retention set by infrastructure).
AUDIT_ARCHIVE_CONTAINER = os.environ.get("ATS_AUDIT_ARCHIVE_CONTAINER", "audit-archive")
# Quarantine blobs without a row younger than this are intakes still in flight.
BLOBS_ORPHAN_GRACE_S = env.number("ATS_BLOBS_ORPHAN_GRACE_S", default=24 * 3600.0)
