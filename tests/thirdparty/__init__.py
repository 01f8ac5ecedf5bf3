"""Issue 28's third-party corpus: the PDF, DOCX and image test files that the source
distributions of Pillow, Wand, pyHanko, pikepdf, PyDocX, ReportLab, OCRmyPDF,
pdfminer.six, scikit-image, img2pdf, pypdfium2, WeasyPrint and tabula-py ship.

The sdists are pinned in ``manifest.json`` (version, PyPI file URL, sha256) and fetched
once into a cache OUTSIDE the repository (``ATS_THIRDPARTY_CACHE``, default
``~/.cache/ats/thirdparty-sdists``); nothing of them is committed. They are downloaded
from the URL the manifest pins, not with ``pip download --no-binary :all:``: pip
prepares each sdist's metadata, which for Pillow, pikepdf, OCRmyPDF, scikit-image and
tabula-py needs their build back-ends and did not finish here. The sha256 is checked
either way, so the bytes are the ones this manifest names.

Refresh: bump a version, put the sdist in the cache, record its sha256 (PyPI's simple
index lists it) - a mismatch fails loudly, never silently uses other bytes.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tarfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXTENSIONS = frozenset({".pdf", ".docx", ".png", ".jpg", ".jpeg", ".tif", ".tiff", ".gif", ".bmp", ".webp"})


@dataclass(frozen=True)
class Sdist:
    package: str
    version: str
    sdist: str
    url: str
    sha256: str


@dataclass(frozen=True)
class CorpusFile:
    package: str
    member: str  # path inside the sdist
    data: bytes

    @property
    def key(self) -> str:
        return f"{self.package}/{self.member.split('/', 1)[-1]}"

    @property
    def flat_name(self) -> str:
        """A unique file name for ingest (the path, flattened)."""
        return self.key.replace("/", "__")


def manifest() -> list[Sdist]:
    return [Sdist(**row) for row in json.loads((HERE / "manifest.json").read_text())]


def cache_dir() -> Path:
    return Path(os.environ.get("ATS_THIRDPARTY_CACHE") or Path.home() / ".cache" / "ats" / "thirdparty-sdists")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fetch(sdist: Sdist) -> Path:
    """The sdist in the cache, downloaded if missing; raises on a sha256 mismatch."""
    target = cache_dir() / sdist.sdist
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".part")
        with urllib.request.urlopen(sdist.url, timeout=120) as resp, partial.open("wb") as out:
            while block := resp.read(1 << 20):
                out.write(block)
        partial.rename(target)
    got = _sha256(target)
    if got != sdist.sha256:
        raise RuntimeError(f"{target}: sha256 {got} is not the manifest's {sdist.sha256}")
    return target


@functools.cache
def files() -> tuple[CorpusFile, ...]:
    """Every PDF/DOCX/image member of every pinned sdist, in (package, path) order."""
    out: list[CorpusFile] = []
    for sdist in manifest():
        with tarfile.open(fetch(sdist)) as tar:
            for member in sorted(tar.getmembers(), key=lambda m: m.name):
                if member.isfile() and os.path.splitext(member.name)[1].lower() in EXTENSIONS:
                    fh = tar.extractfile(member)
                    if fh is not None:
                        out.append(CorpusFile(sdist.package, member.name, fh.read()))
    return tuple(out)


def sample(n: int | None) -> list[CorpusFile]:
    """A deterministic sample: the n files whose sha256(key) sorts first (every package
    in proportion, no choice by hand); None: all of them."""
    everything = list(files())
    if n is None or n >= len(everything):
        return everything
    return sorted(everything, key=lambda f: hashlib.sha256(f.key.encode()).hexdigest())[:n]
