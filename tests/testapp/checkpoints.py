"""The receivers of ats.config.checkpoints: what the interleaving tests ask for, through
the environment of the process under test (a worker subprocess, a CLI subprocess, or this
pytest process via monkeypatch).

- ATS_TEST_<STEP>_PAUSE_S=<s>: pg_sleep at the step, inside its transaction (MERGE,
  DEDUPE, SCORE, RESCORE).
- ATS_TEST_PAUSE_AT=<step>:<s>: announce "paused at <step>" on stderr and sleep (the
  SIGKILL tests of the audit CLI wait for that line).
- ATS_TEST_<STEP>_NO_ROW_LOCK=1: the step skips its row lock (DEDUPE, SCORE), to show
  what the lock prevents.
- ATS_TEST_RETENTION_FAULT=<candidate_id>:<part>: the erasure of that subject raises at
  that step (part), inside the subject's transaction.
- ATS_TEST_RETENTION_PAUSE=<candidate_id>:<s>: announce "retention paused at candidate
  <id>" on stderr and sleep before that subject's "documents" step, locks held (the SIGKILL
  and race tests wait for that line).
"""

from __future__ import annotations

import os
import time
from typing import Any

from django.db import connection


def pause(sender: Any, step: str, **kwargs: Any) -> None:
    seconds = os.environ.get(f"ATS_TEST_{step}_PAUSE_S")
    if seconds:
        with connection.cursor() as cur:
            cur.execute("SELECT pg_sleep(%s)", [float(seconds)])
    spec = os.environ.get("ATS_TEST_PAUSE_AT", "")
    if spec.startswith(step + ":"):
        os.write(2, f"paused at {step}\n".encode())
        time.sleep(float(spec.split(":", 1)[1]))


def row_lock(sender: Any, step: str, **kwargs: Any) -> bool:
    return os.environ.get(f"ATS_TEST_{step}_NO_ROW_LOCK") != "1"


def erase(sender: Any, step: str, candidate_id: int | None = None, part: str = "", **kwargs: Any) -> None:
    if step != "ERASE":
        return
    if os.environ.get("ATS_TEST_RETENTION_FAULT", "") == f"{candidate_id}:{part}":
        raise RuntimeError(f"injected fault at candidate {candidate_id}, step {part}")
    pause = os.environ.get("ATS_TEST_RETENTION_PAUSE", "")
    if part == "documents" and pause.startswith(f"{candidate_id}:"):
        os.write(2, f"retention paused at candidate {candidate_id}\n".encode())
        time.sleep(float(pause.split(":", 1)[1]))
