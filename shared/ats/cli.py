"""`ats` - one command for every deployable and operator task.

    ats migrate | web | worker --deployable default|untrusted | ingest | status
    ats intake-verify | policy | reparse | retry-scan | retry-candidate | discard | user-add
    ats candidate show|list|merge|unmerge|edit|accept|dismiss   (docs/candidates.md)
    ats audit verify|export|partitions | evidence show ID | blobs reconcile | search QUERY
    ats requisition create|update|list|assign | application show|list | rescore
    ats channel set-requisition | ai explain|summary|status      (docs/scoring.md)
    ats erase candidate ID --reason T [--json] | erase readmit|replay|purge|verify|recompute
    ats export candidate ID --out DIR [--json]                  (docs/compliance.md)
    ats fairness report [--requisition ID] [--since D] [--json] | selfid link|enter
    ats <any Django management command>

Run from a checkout with no environment it talks to the embedded stack `just up` started
(the same default DATABASE_URL, see ats.config.env).
"""

from __future__ import annotations

import argparse
import atexit
import gc
import os
import socket
import sys

from ats.jobs.data import DEFAULT_QUEUES, UNTRUSTED_QUEUES

UNTRUSTED_SETTINGS = "ats.parse_worker.settings"
SHUTDOWN_GRACE_S = 90  # ADR §6: the deploy grace period, equal to the parse wall timeout

DEPLOYABLES = {
    # name: (queues, default concurrency)
    "default": (DEFAULT_QUEUES, 4),
    "untrusted": (UNTRUSTED_QUEUES, 2),
}


def _django(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ats.config.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(["ats", *argv])


def _worker(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="ats worker")
    parser.add_argument("--deployable", choices=sorted(DEPLOYABLES), required=True)
    parser.add_argument("--concurrency", type=int)
    parser.add_argument("--name")
    args, rest = parser.parse_known_args(argv)
    queues, concurrency = DEPLOYABLES[args.deployable]
    # `kill -USR1 <pid>` writes every thread's stack to stderr (the worker's log) and the
    # worker goes on: how a stuck worker says where it is stuck. py-spy cannot attach to
    # worker-untrusted (non-dumpable, below), and this costs nothing until the signal.
    import faulthandler
    import signal

    faulthandler.register(signal.SIGUSR1, all_threads=True)
    # Must be set before Django loads settings: it picks the task modules to import.
    os.environ["ATS_DEPLOYABLE"] = args.deployable
    if args.deployable == "untrusted":
        # Its own settings, whatever the environment names: procrastinate + ats.jobs +
        # ats.parse_worker, no trusted app, no secret (ats/parse_worker/settings.py).
        os.environ["DJANGO_SETTINGS_MODULE"] = UNTRUSTED_SETTINGS
        # The parse worker connects as the least-privilege role (policy/db-role.sql). In
        # containers its DATABASE_URL already is that role's; locally the stack sets this.
        parse_url = os.environ.get("ATS_PARSE_DATABASE_URL")
        if parse_url:
            os.environ["DATABASE_URL"] = parse_url
        # Non-dumpable from the start: a parse child that keeps our uid (container mode)
        # cannot read /proc/<worker>/environ (the database credentials) or ptrace us.
        from ats.sandbox.api import harden_worker_process

        harden_worker_process()
    # One sandbox zygote per concurrent parse (pool size = worker concurrency).
    os.environ["ATS_PARSE_CONCURRENCY"] = str(args.concurrency or concurrency)
    name = args.name or default_worker_name(args.deployable)
    os.environ.setdefault("ATS_PROCESS_NAME", name)
    _worker_metrics(args.deployable)
    # The worker keeps a status file for `ats healthcheck` (ats.jobs.health).
    from ats.jobs.data import STATUS_ENV, status_path

    os.environ[STATUS_ENV] = str(status_path(name))
    # Django's system checks import the migration autodetector, the URL and template
    # checks and every app's management commands, only to vet a settings module that
    # is fixed and tested (tests/skeleton): ~1 MB and their start-up time in a process held
    # to a memory budget (issue 26). Its missing migrations fail the health check.
    checks = ["--skip-checks"] if args.deployable == "untrusted" else []
    _django(
        [
            "procrastinate",
            *checks,  # an option of Django's command, so before procrastinate's subcommand
            "worker",
            f"--queues={','.join(queues)}",
            f"--concurrency={args.concurrency or concurrency}",
            f"--shutdown-graceful-timeout={SHUTDOWN_GRACE_S}",
            f"--name={name}",
            *rest,
        ]
    )


def _worker_metrics(deployable: str) -> None:
    """worker-default serves its in-process metrics on their own port; worker-untrusted none.

    One endpoint per worker process (not prometheus-client's multiprocess mode): a
    procrastinate worker is one process (asyncio loop + task threads), so there is no
    fork pool to aggregate, and multiprocess mode would need a shared writable directory
    and lose live collectors. See docs/observability.md.
    """
    bind = os.environ.pop("ATS_METRICS_BIND", "") if deployable == "untrusted" else os.environ.get("ATS_METRICS_BIND")
    if deployable == "untrusted" or not bind:
        return  # the parse worker's only network peer is Postgres: it opens no port
    from prometheus_client import REGISTRY

    from ats.observability import api as observability_api

    observability_api.serve(REGISTRY, bind, token=observability_api.configured_token())


def default_worker_name(deployable: str) -> str:
    # Per pod/host, so a liveness probe can find exactly its own worker's connections.
    return f"worker-{deployable}-{socket.gethostname()}"[:63]


def _healthcheck(argv: list[str]) -> None:
    """Exit 0 when this pod's process is healthy (docs/observability.md#health-checks)."""
    # First: this process runs as the worker's uid (an exec probe), and holds the same
    # database credentials - nothing of the same uid may read or ptrace it.
    import prctl

    prctl.set_dumpable(False)
    parser = argparse.ArgumentParser(prog="ats healthcheck")
    parser.add_argument("--deployable", choices=[*sorted(DEPLOYABLES), "web"], required=True)
    parser.add_argument("--name")
    args = parser.parse_args(argv)
    if args.deployable == "untrusted" and os.environ.get("ATS_PARSE_DATABASE_URL"):
        os.environ["DATABASE_URL"] = os.environ["ATS_PARSE_DATABASE_URL"]  # as the worker connects
    # The probe reads rows with the trusted settings (no task module, see there), even in
    # worker-untrusted's container, whose environment names the worker's own settings.
    os.environ["DJANGO_SETTINGS_MODULE"] = "ats.config.settings"
    os.environ["ATS_PROCESS_NAME"] = "ats-healthcheck"
    os.environ["ATS_DEPLOYABLE"] = "healthcheck"  # settings: no task modules imported
    import django

    django.setup()
    from ats.observability import api as observability_api

    found = observability_api.health_problems(args.deployable, args.name or default_worker_name(args.deployable))
    for problem in found:
        sys.stderr.write(f"unhealthy: {problem}\n")
    sys.exit(1 if found else 0)


def _web(argv: list[str]) -> None:
    os.environ["ATS_DEPLOYABLE"] = "web"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ats.config.settings")
    from ats.config.env import REPO_ROOT

    if os.environ.get("ATS_METRICS_BIND"):
        _web_multiprocess_dir()
    conf = os.environ.get("ATS_GUNICORN_CONF", str(REPO_ROOT / "services" / "web" / "gunicorn.conf.py"))
    args = ["gunicorn", "ats.config.wsgi:application"]
    if os.path.exists(conf):
        args += ["-c", conf]
    else:
        args += ["--bind", os.environ.get("ATS_WEB_BIND", "127.0.0.1:8000"), "--workers", "2", "--threads", "4"]
    os.execvp(sys.executable, [sys.executable, "-m", *args, *argv])  # noqa: S606 - fixed argv, replaces this process


def _web_multiprocess_dir() -> None:
    """gunicorn's workers are a pre-fork pool: their request histograms go to mmap files in
    a fresh directory (prometheus-client multiprocess mode), summed by the exporter."""
    import shutil

    from ats.jobs.data import runtime_dir

    path = runtime_dir() / f"prometheus-web-{os.getpid()}"  # gunicorn keeps this pid (exec)
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(mode=0o700, parents=True)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(path)


def main(argv: list[str] | None = None) -> None:
    # At exit, every object still alive goes to the GC's permanent generation before the
    # interpreter's final collections: they walked Django's, procrastinate's and the
    # commands' whole heap (~100k objects) only to free memory the process was about to
    # give back - a CPU-only stretch (no syscall, strace) at the end of every exit. Measured
    # (docs/testing.md "Round 4 (jobs)"): `ats diffsettings` 1.24 -> 0.74 user CPU s; a
    # worker's SIGTERM-to-exit 2.1 s -> 0.17 s (median, loaded machine). atexit runs before
    # those collections; what an exit still must do (logging's flush, stdout's) does not
    # depend on the GC. A worker does not also freeze once booted: it stopped no faster
    # (median 0.21 s against 0.17 s, alternated in one run).
    atexit.register(gc.freeze)
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in {"-h", "--help", "help"}:
        sys.stdout.write(__doc__ or "")
        return
    command, rest = argv[0], argv[1:]
    if command == "worker":
        _worker(rest)
    elif command == "healthcheck":
        _healthcheck(rest)
    elif command == "web":
        _web(rest)
    else:
        # Management commands use underscores; the CLI reads nicer with hyphens.
        _django([command.replace("-", "_"), *rest])


if __name__ == "__main__":
    main()
