#!/usr/bin/env bash
# `just images`: every image compose.yaml runs, built locally from this repository with
# podman - nothing is pulled from a container registry.
#
#   localhost/ats-debian:bookworm     mmdebstrap base (base-image.sh), only when missing
#   localhost/ats-base:dev            services/base.Dockerfile (runs `ats migrate`)
#   localhost/ats-web:dev             services/web/Dockerfile
#   localhost/ats-worker-default:dev  services/worker-default/Dockerfile
#   localhost/ats-worker-untrusted:dev services/worker-untrusted/Dockerfile
#   localhost/ats-dev-{postgres,redis,clamd,azurite}:dev   services/dev-images/*.Dockerfile
#
# Layer caching (and uv's/npm's cache mounts) make a warm rebuild take seconds. Timings go
# to .ats/containers/images-timings.txt.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
# shellcheck source=env.sh
. scripts/containers/env.sh
BASE_IMAGE=${BASE_IMAGE:-localhost/ats-debian:bookworm}
TAG=${ATS_IMAGE_TAG:-dev}
log() { printf '[images] %s\n' "$*" >&2; }

# The host's extra CAs (e.g. a TLS-intercepting proxy) for build-time HTTPS (uv, npm). Passed
# as a build context that only the discarded build stages copy; empty when there are none.
# Replaced only when the set of certificates changed, with their timestamps kept: buildah's
# layer cache would otherwise see a new context and redo every step after the COPY.
EXTRA_CA=$ROOT/.ats/containers/extra-ca
staged=$(mktemp -d)
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  cp -p /usr/local/share/ca-certificates/*.crt "$staged"/
fi
if [ ! -d "$EXTRA_CA" ] || ! diff -rq "$staged" "$EXTRA_CA" >/dev/null 2>&1; then
  rm -rf "$EXTRA_CA"; mv "$staged" "$EXTRA_CA"; chmod 0755 "$EXTRA_CA"
else
  rm -rf "$staged"
fi

TIMINGS=$ROOT/.ats/containers/images-timings.txt
: > "$TIMINGS"
timed() {  # label, command...
  local label=$1 start end; shift
  start=$(date +%s%N)
  "$@"
  end=$(date +%s%N)
  printf '%s %d.%01d s\n' "$label" $(( (end - start) / 1000000000 )) $(( (end - start) / 100000000 % 10 )) \
    | tee -a "$TIMINGS" >&2
}

timed base-image scripts/containers/base-image.sh "$BASE_IMAGE"

build() {  # image, dockerfile
  local image=$1 dockerfile=$2
  log "$image <- $dockerfile"
  podman build --quiet --layers -f "$dockerfile" \
    --build-arg "BASE_IMAGE=$BASE_IMAGE" --build-arg "ATS_BASE_IMAGE=localhost/ats-base:$TAG" \
    --build-context "extra-ca=$EXTRA_CA" -t "$image" . >/dev/null
}
timed ats-base build "localhost/ats-base:$TAG" services/base.Dockerfile
for svc in web worker-default worker-untrusted; do
  timed "ats-$svc" build "localhost/ats-$svc:$TAG" "services/$svc/Dockerfile"
done
for svc in postgres redis clamd azurite; do
  timed "ats-dev-$svc" build "localhost/ats-dev-$svc:$TAG" "services/dev-images/$svc.Dockerfile"
done
# No `podman image prune` here: the untagged images of the build stages ARE the layer cache
# (pruning them made every warm run redo uv sync and npm ci). Reclaim disk by hand with
# `podman image prune` when needed.
podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E '^localhost/ats-' | sort >&2
