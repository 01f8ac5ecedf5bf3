"""Gunicorn settings for the `web` deployable.

`ats web` passes this file to gunicorn (`-c`); the image points it here with
ATS_GUNICORN_CONF=/opt/ats/gunicorn.conf.py, a checkout finds it in services/web/.
Worker and thread counts are fixed by ADR 0004 §5 (connection budget): 2 workers x 4
threads = 8 persistent Postgres connections per web replica. Change them only together
with the budget table in docs/deploy.md.
"""

import os

# 127.0.0.1 outside containers; the images set ATS_WEB_BIND=0.0.0.0:8000.
bind = [os.environ.get("ATS_WEB_BIND", "127.0.0.1:8000")]

worker_class = "gthread"
workers = 2
threads = 4

# A request that runs longer than this is a hung worker: it is killed and replaced. Slow
# work belongs on the queue, not in a request.
timeout = 60
# SIGTERM: stop accepting, let in-flight requests finish. Kubernetes gives the pod 45 s
# (5 s preStop sleep + this + margin), so gunicorn is never SIGKILLed mid-request.
graceful_timeout = 30
# Recycle workers now and then to bound memory growth; jitter avoids both restarting at once.
max_requests = 2000
max_requests_jitter = 200

# Logs go to stdout/stderr only: the root filesystem is read-only and the platform collects
# container output.
accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("ATS_LOG_LEVEL", "info").lower()

# The heartbeat file must live on a writable tmpfs: /dev/shm exists under Docker and
# Kubernetes alike and avoids disk-backed temp files (None: the default temp dir, e.g. macOS).
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None  # noqa: S108 - a tmpfs, not a temp file
# gunicorn >= 25 opens a control socket under $HOME by default; there is no writable home
# and nothing here uses gunicornc.
control_socket_disable = True

# Metrics live on their own port (a NetworkPolicy filters ports, not paths), served by a
# separate exporter process started and stopped with the master. A thread in the master
# would be forked into every worker with its database socket.
_exporter = None


def when_ready(server):  # noqa: ANN001, ANN201 - gunicorn hook signature
    global _exporter
    bind = os.environ.get("ATS_METRICS_BIND")
    if bind:
        import subprocess
        import sys

        _exporter = subprocess.Popen(
            [sys.executable, "-m", "ats.monitoring.exporter", "--bind", bind],
            env={**os.environ, "ATS_EXPORTER_PARENT_PID": str(os.getpid())},
        )
        server.log.info("metrics exporter pid %s on %s", _exporter.pid, bind)


def child_exit(server, worker):  # noqa: ANN001, ANN201
    # A dead worker's request histograms stay counted; its live gauges (none here) go.
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


def on_exit(server):  # noqa: ANN001, ANN201
    if _exporter is not None and _exporter.poll() is None:
        _exporter.terminate()
        try:
            _exporter.wait(10)
        except Exception:
            _exporter.kill()
