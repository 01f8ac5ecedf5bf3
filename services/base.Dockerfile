# syntax=docker/dockerfile:1.7
#
# Shared base image for all three deployables (web, worker-default, worker-untrusted) and
# for the one-shot `ats migrate`. The per-service Dockerfiles start `FROM ${ATS_BASE_IMAGE}`
# (this image), so the Python runtime, the locked dependencies and the non-root user are
# defined once, here. Built by `just images` (scripts/containers/images.sh), in order:
#   scripts/containers/base-image.sh          # localhost/ats-debian:bookworm (mmdebstrap)
#   podman build -f services/base.Dockerfile --build-context extra-ca=<dir> -t localhost/ats-base:dev .
#   podman build -f services/web/Dockerfile -t localhost/ats-web:dev .
# The build context is always the repository root. No stage pulls from a registry: the
# Debian base is built locally (anyone with a registry may pass --build-arg BASE_IMAGE=...),
# uv comes from PyPI.

ARG BASE_IMAGE=localhost/ats-debian:bookworm

# Extra CA certificates for build-time HTTPS only (a TLS-intercepting proxy's CA, as on
# hosts whose /usr/local/share/ca-certificates holds one). Empty unless the build passes
# `--build-context extra-ca=<dir of .crt files>`; only the discarded build stage sees them.
FROM scratch AS extra-ca

# --- build: resolve the venv from uv.lock, nothing else -----------------------------------
FROM ${BASE_IMAGE} AS build
# python3.11-dev, gcc and libcap-dev only because python-prctl ships no wheel (sdist only).
# python3.11-venv: a throwaway venv that installs uv from PyPI.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      python3.11 python3.11-dev python3.11-venv gcc libc6-dev libcap-dev ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=extra-ca . /usr/local/share/ca-certificates/
RUN update-ca-certificates >/dev/null
# uv matching the version that wrote uv.lock, from PyPI (never a registry image).
ARG UV_VERSION=0.13.9
ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
RUN python3.11 -m venv /opt/uv \
 && /opt/uv/bin/pip install --no-cache-dir --disable-pip-version-check -q "uv==${UV_VERSION}"
# Debian's interpreter, never a downloaded one (docs/contracts.md); the venv lives at the
# same path in the runtime stage, so its shebangs and symlinks stay valid after the copy.
ENV UV_PYTHON=/usr/bin/python3.11 \
    UV_PYTHON_DOWNLOADS=never \
    UV_PROJECT_ENVIRONMENT=/opt/ats/venv \
    UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy
WORKDIR /src
# Dependencies first (cached while only our own code changes), then the project itself.
COPY pyproject.toml uv.lock README.md ./
RUN --mount=type=cache,target=/root/.cache/uv \
    /opt/uv/bin/uv sync --frozen --no-dev --no-install-project
COPY shared/ ./shared/
# --no-editable: the package is installed into site-packages, so /src is not needed later.
RUN --mount=type=cache,target=/root/.cache/uv \
    /opt/uv/bin/uv sync --frozen --no-dev --no-editable \
 && chmod -R a+rX /opt/ats/venv

# --- runtime --------------------------------------------------------------------------------
FROM ${BASE_IMAGE} AS runtime
# libcap2: python-prctl's extension links it. libseccomp2: pyseccomp loads it with ctypes.
# tini: PID 1 that forwards SIGTERM to `ats` and reaps orphans (the sandbox forks children).
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      python3.11 libcap2 libseccomp2 ca-certificates tini \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
# Fixed uid/gid so Kubernetes runAsUser/fsGroup and compose `user:` can name them.
RUN groupadd --system --gid 65532 ats \
 && useradd --system --uid 65532 --gid 65532 --home-dir /nonexistent --no-create-home \
      --shell /usr/sbin/nologin ats
# Owned by root and world-readable: the app and the sandbox's unprivileged uid can read it,
# neither can change it.
COPY --from=build /opt/ats/venv /opt/ats/venv
# The sandbox policies, root-owned and read-only. In the base image because the one-shot
# migration applies policy/db-role.sql (the parse worker's role); worker-untrusted loads
# the seccomp/limits files from here.
COPY services/worker-untrusted/policy/ /opt/ats/policy/
RUN chmod -R a=rX /opt/ats/policy
# ATS_STATE_DIR: the code's default is relative to a checkout, meaningless in an image.
# Here it holds only the collected static files (served by whitenoise), baked in at build
# time because the root filesystem is read-only at run time.
ENV PATH=/opt/ats/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    ATS_STATE_DIR=/opt/ats/state \
    ATS_STATIC_ROOT=/opt/ats/state/static \
    ATS_SANDBOX_POLICY_DIR=/opt/ats/policy
RUN ats collectstatic --noinput >/dev/null
WORKDIR /opt/ats
USER 65532:65532
ENTRYPOINT ["/usr/bin/tini", "--"]
# The base image itself only runs the one-shot migration (compose `migrate`, k8s Job).
CMD ["ats", "migrate"]
