"""`ats` - one command for every deployable and operator task.

    ats migrate | web | worker --deployable default|untrusted | ingest | status
    ats intake-verify | policy | reparse | <any Django management command>

Run from a checkout with no environment it talks to the embedded stack `just up` started
(the same default DATABASE_URL, see ats.config.env).
"""

from __future__ import annotations

import argparse
import os
import sys

from ats.jobs.data import DEFAULT_QUEUES, UNTRUSTED_QUEUES

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
    # Must be set before Django loads settings: it picks the task modules to import.
    os.environ["ATS_DEPLOYABLE"] = args.deployable
    name = args.name or f"worker-{args.deployable}"
    os.environ.setdefault("ATS_PROCESS_NAME", name)
    _django([
        "procrastinate", "worker",
        f"--queues={','.join(queues)}",
        f"--concurrency={args.concurrency or concurrency}",
        f"--shutdown-graceful-timeout={SHUTDOWN_GRACE_S}",
        f"--name={name}",
        *rest,
    ])


def _web(argv: list[str]) -> None:
    os.environ["ATS_DEPLOYABLE"] = "web"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ats.config.settings")
    from ats.config.env import REPO_ROOT

    conf = os.environ.get("ATS_GUNICORN_CONF", str(REPO_ROOT / "services" / "web" / "gunicorn.conf.py"))
    args = ["gunicorn", "ats.config.wsgi:application"]
    if os.path.exists(conf):
        args += ["-c", conf]
    else:
        args += ["--bind", os.environ.get("ATS_WEB_BIND", "127.0.0.1:8000"), "--workers", "2", "--threads", "4"]
    os.execvp(sys.executable, [sys.executable, "-m", *args, *argv])


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in {"-h", "--help", "help"}:
        sys.stdout.write(__doc__ or "")
        return
    command, rest = argv[0], argv[1:]
    if command == "worker":
        _worker(rest)
    elif command == "web":
        _web(rest)
    else:
        # Management commands use underscores; the CLI reads nicer with hyphens.
        _django([command.replace("-", "_"), *rest])


if __name__ == "__main__":
    main()
