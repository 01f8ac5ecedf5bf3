# ATS intake platform - the front door. `just` lists the recipes.
# On a fresh Debian 12 machine run `./just <recipe>` once: it installs `just` itself.

set shell := ["bash", "-euo", "pipefail", "-c"]
set export
# Recipe arguments reach commands intact as "$@" (file names with spaces, quotes, parentheses).
set positional-arguments

UV_PYTHON_DOWNLOADS := "never"
UV_PYTHON := "/usr/bin/python3.11"
UV_PROJECT_ENVIRONMENT := "/opt/ats/venv"
VENV := "/opt/ats/venv"
PY := VENV / "bin/python"

# List the recipes
default:
    @just --list --unsorted

# Install what is missing: apt packages, the Python env from uv.lock, npm packages
bootstrap:
    scripts/bootstrap.sh

# Run the whole stack (embedded Postgres unless DATABASE_URL is set): web, worker-default, worker-untrusted (ATS_PGBOUNCER=1: behind a local PgBouncer)
up: bootstrap
    {{PY}} -m ats.devtools.up

# Run the test suite (sets up first; lint included). In parallel: ATS_TEST_WORKERS xdist
# workers (default: one per core plus one - many slow tests wait on workers and timers, and
# the extra worker fills those gaps: 628 -> 537 s on an idle 2-core machine, CPU 92% busy;
# docs/testing.md), each with its own Postgres cluster; `-n 0` runs serially.
[doc("The CI gate: set up, lint, then the whole suite in parallel (`-n 0` runs serially)")]
test *ARGS: bootstrap lint test-upstream
    # A bare `just test` does not run tests/upstream twice (test-upstream just ran them).
    # PYTHONDONTWRITEBYTECODE off for the run: with it, every xdist worker compiles and
    # assertion-rewrites every test module again (~15 CPU s per process, measured).
    if [ $# -eq 0 ]; then set -- --ignore=tests/upstream; fi; env -u PYTHONDONTWRITEBYTECODE PYTHONPATH="{{justfile_directory()}}/shared" {{PY}} -m pytest -n "${ATS_TEST_WORKERS:-$(( $(nproc) + 1 ))}" --dist worksteal "$@"

# Check procrastinate's worker contract against the patched Worker this project installs (tests/upstream)
test-upstream:
    PYTHONPATH="{{justfile_directory()}}/shared" {{PY}} -m pytest tests/upstream -q -p no:cacheprovider

# The fast loop: unit + fast integration tests, no bootstrap, no lint (`just test` is the CI gate)
test-fast *ARGS:
    env -u PYTHONDONTWRITEBYTECODE PYTHONPATH="{{justfile_directory()}}/shared" {{PY}} -m pytest -n "${ATS_TEST_WORKERS:-$(nproc)}" --dist worksteal -m "not slow" -q "$@"

# Record what each test costs into tests/durations.json (the fast loop's bound, the run order): a whole run, on a quiet machine
test-durations:
    env -u PYTHONDONTWRITEBYTECODE PYTHONPATH="{{justfile_directory()}}/shared" ATS_TEST_DURATIONS_RECORD=tests/durations.json {{PY}} -m pytest -n "${ATS_TEST_WORKERS:-$(nproc)}" --dist worksteal --ignore=tests/upstream -q
    {{PY}} -m tests.durations show

# Lint: ruff (lint + format check), mypy and import-linter
lint:
    {{VENV}}/bin/ruff check shared tests bench scripts
    {{VENV}}/bin/ruff format --check shared tests bench scripts
    {{VENV}}/bin/mypy
    {{VENV}}/bin/lint-imports pyproject.toml

# Benchmarks, each side by side with its baseline, reported as ratios; the end-to-end table last,
# measured for the previous release (--baseline, default b359b0a) and this tree in the same run
# (`just bench --tiny`: the end-to-end run only, about a minute per stack on a quiet machine, to check the scripts)
[doc("Benchmarks beside the previous release's baseline, as ratios (`--tiny`: a quick check of the scripts)")]
bench *ARGS: bootstrap
    if [[ " $* " != *" --tiny "* ]]; then \
        {{PY}} bench/sandbox_bench.py && {{PY}} bench/defer_bench.py 1000 && {{PY}} bench/fanout_bench.py 500 && \
        {{PY}} bench/fetch_bench.py && \
        {{PY}} bench/paced_bench.py --count 60 --interval 0.4; fi
    {{PY}} bench/e2e_bench.py "$@"

# Documents through mail and upload while workers, Postgres, clamd and Graph fail on purpose;
# then proof nothing was lost or doubled (docs/reliability.md). Prints its seed.
[doc("Documents through mail and upload while the parts fail on purpose, then proof nothing was lost or doubled")]
chaos *ARGS: bootstrap
    {{PY}} -m tests.chaos.driver "$@"

# The ats command (migrate, ingest, status, intake-verify, policy, reparse, ...), from any directory
[no-cd]
ats *ARGS:
    @{{PY}} -m ats.cli "$@"

# Show and verify the sandbox layers active on this host
sandbox-check: bootstrap
    {{PY}} -m ats.sandbox.check

# Stop the embedded Postgres cluster
down:
    {{PY}} -m ats.devtools.pg_local stop

# Remove the embedded state (database, local blobs) - asks nothing, deletes everything
reset: down
    rm -rf .ats "$({{PY}} -m ats.devtools.pg_local datadir)"

# Write the main pages (triage, document, candidate, upload, ops, jobs, the CV viewer) to docs/screenshots/ from a seeded test stack
screenshots: bootstrap
    ATS_SCREENSHOTS_DIR="$PWD/docs/screenshots" PYTHONPATH="{{justfile_directory()}}/shared" {{PY}} -m pytest tests/web/journeys/test_browser.py tests/web/journeys/test_viewer_browser.py tests/web/test_browser_ops.py -q -p no:cacheprovider

# Extraction accuracy per field, layout, language and source, extractor beside the naive baseline (exit 1 below a floor the suite enforces; --half development while tuning: docs/extraction.md)
eval-extraction *ARGS: bootstrap
    {{PY}} -m ats.extraction.eval "$@"

# A change set on the development half, per CV and field: REF's extractor beside this tree's (never the held-out half)
eval-compare REF *ARGS: bootstrap
    ref="$1"; shift; PYTHONPATH="{{justfile_directory()}}/shared" {{PY}} scripts/dev_compare.py --base "$ref" "$@"

# --- containers (podman, no registry; docs/deploy.md). Separate from `just test`: CI runs
# `just compose-smoke` as its own step, or `ATS_CONTAINER_TESTS=1 just test` includes it.

# Build every image compose.yaml runs, locally (mmdebstrap base when missing; no registry)
images: bootstrap-containers
    scripts/containers/images.sh

# Start compose.yaml with podman, health-gated (web on 127.0.0.1:18000)
compose-up: images
    source scripts/containers/env.sh && {{PY}} -m ats.devtools.compose_stack up

# Stop and remove the compose stack (`just compose-down --volumes` also drops its data)
compose-down *ARGS:
    source scripts/containers/env.sh && {{PY}} -m ats.devtools.compose_stack down "$@"

# Fresh images, the stack up, three CVs through the web API, isolation checks, worker replacement, kube play, down
compose-smoke *ARGS: bootstrap-containers
    source scripts/containers/env.sh && ATS_CONTAINER_TESTS=1 PYTHONPATH="{{justfile_directory()}}/shared" {{PY}} -m pytest tests/containers -p no:cacheprovider -v "$@"

# Install podman, podman-compose, mmdebstrap and friends (idempotent; needs root)
bootstrap-containers: bootstrap
    scripts/bootstrap.sh --containers
