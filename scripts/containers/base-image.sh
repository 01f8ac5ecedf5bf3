#!/usr/bin/env bash
# Build the Debian base image every project Dockerfile starts FROM, without any container
# registry: mmdebstrap assembles a minimal bookworm root filesystem from the same Debian
# mirrors the host's apt uses, and `podman import` turns the tarball into an image.
#
#   scripts/containers/base-image.sh [IMAGE]     # default localhost/ats-debian:bookworm
#
# Does nothing when the image already exists (`--force` rebuilds). Nothing from the host's
# trust store goes into the image: builds that need the host's extra CAs (a TLS-intercepting
# proxy) get them per build stage (see services/base.Dockerfile, `extra-ca`).
set -euo pipefail

FORCE=0
if [ "${1:-}" = "--force" ]; then FORCE=1; shift; fi
IMAGE=${1:-localhost/ats-debian:bookworm}
log() { printf '[base-image] %s\n' "$*" >&2; }

if [ "$FORCE" -eq 0 ] && podman image exists "$IMAGE"; then
  log "$IMAGE exists (pass --force to rebuild)"; exit 0
fi

# The mirrors apt already uses here (deb822 .sources or one-line .list), so the base comes
# from wherever this machine is allowed to fetch Debian packages.
mirror_for() {  # suite-suffix ('' or '-security') -> URI
  local want=$1 uri
  uri=$(python3 - "$want" <<'PY'
import glob, re, sys
want = sys.argv[1]
for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
    for stanza in open(path).read().split("\n\n"):
        fields = dict(re.findall(r"^(\w[\w-]*):\s*(.*)$", stanza, re.M))
        suites = fields.get("Suites", "").split()
        if "deb" in fields.get("Types", "").split() and f"bookworm{want}" in suites:
            print(fields["URIs"].split()[0]); sys.exit()
for path in ["/etc/apt/sources.list", *sorted(glob.glob("/etc/apt/sources.list.d/*.list"))]:
    try:
        lines = open(path).read().splitlines()
    except OSError:
        continue
    for line in lines:
        parts = re.sub(r"\[[^]]*\]", "", line).split()
        if len(parts) >= 3 and parts[0] == "deb" and parts[2] == f"bookworm{want}":
            print(parts[1]); sys.exit()
PY
)
  echo "${uri:-}"
}
MAIN=$(mirror_for "")
SECURITY=$(mirror_for "-security")
MAIN=${MAIN:-http://deb.debian.org/debian}
SECURITY=${SECURITY:-http://deb.debian.org/debian-security}
log "mmdebstrap bookworm from $MAIN (+ $SECURITY) -> $IMAGE"

start=$(date +%s)
# --variant=apt: essential + apt only (no init, no man pages). Docs, man pages and locales
# are never unpacked (dpkg path-exclude), as in Debian's -slim images.
mmdebstrap --quiet --variant=apt --include=ca-certificates --format=tar \
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --aptopt='APT::Install-Recommends "false"' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
  bookworm - \
  "deb $MAIN bookworm main" "deb $MAIN bookworm-updates main" "deb $SECURITY bookworm-security main" \
  | podman import --change 'CMD ["/bin/bash"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' - "$IMAGE" >/dev/null
log "done in $(( $(date +%s) - start )) s: $(podman image inspect --format '{{.Size}}' "$IMAGE") bytes"
