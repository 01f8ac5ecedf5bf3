"""A commit's files, extracted once into /tmp for tools that run an earlier release's code
beside this tree's (bench/e2e_bench.py's baseline, scripts/dev_compare.py's extractor).

`git archive`, not a worktree: nothing is registered in the repository, and the tools,
test app and venv stay this tree's - only the code under test differs."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path


def tree_at(repo: Path, ref: str, *, prefix: str, paths: tuple[str, ...] = ()) -> tuple[str, Path]:
    """(commit sha, directory) of `ref`'s tree - or only its `paths` - under
    /tmp/<prefix>-<sha[:12]>, extracted on first use and reused after (a `.complete`
    marker says the extraction finished)."""
    sha = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--verify", f"{ref}^{{commit}}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    root = Path(tempfile.gettempdir()) / f"{prefix}-{sha[:12]}"
    if not (root / ".complete").exists():
        root.mkdir(mode=0o755, parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(repo), "archive", sha, *paths], capture_output=True, check=True)
        # tar, not tarfile: Debian's Python 3.11 has no extraction filter
        subprocess.run(["tar", "-x", "-C", str(root)], input=archive.stdout, check=True)
        (root / ".complete").write_text(sha)
    return sha, root
