"""A person of our own for each test (a unique name, e-mail and phone in a real PDF), and
the probes that look for them: a pg_dump of the whole test database and every blob."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import string
import subprocess
from pathlib import Path
from typing import Any

import pymupdf

from ats.devtools.pg_local import pg_bindir


@dataclasses.dataclass(frozen=True)
class Person:
    name: str
    email: str
    phone: str  # as printed
    pdf: bytes

    def needles(self) -> dict[str, bytes]:
        digits = "".join(c for c in self.phone if c.isdigit() or c == "+")
        # A window of the file's own bytes around a marker only this file carries.
        at = self.pdf.index(b"docmark")
        chunk = self.pdf[at - 8 : at + 40]
        return {
            "email": self.email.encode(),
            "phone": self.phone.encode(),
            "phone_e164": digits.encode(),
            "name": self.name.encode(),
            "surname": self.name.split()[-1].encode(),
            "document_bytes": chunk,
            "document_bytes_hex": chunk.hex().encode(),
        }


def person(seed: int | None = None) -> Person:
    rnd = random.Random(seed)
    surname = "Vex" + "".join(rnd.choice(string.ascii_lowercase) for _ in range(6))
    first = rnd.choice(["Orlando", "Marguerite", "Theodora", "Benedikt", "Ysolde"])
    name = f"{first} {surname.capitalize()}"
    email = f"{first.lower()}.{surname.lower()}@example.org"
    phone = f"+44 20 7946 0{rnd.randint(100, 999)}"
    lines = (
        name,
        email,
        phone,
        "",
        "Experience",
        "Senior Software Engineer, Example Ltd, 2018-2024",
        "Built payment systems in Python and PostgreSQL.",
        "",
        "Skills",
        "Python, Django, Kubernetes, SQL",
    )
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = 90.0
    for line in lines:
        if line:
            page.insert_text((72, y), line, fontsize=14, fontname="helv")
        y += 22
    mark = "docmark" + "".join(rnd.choice(string.ascii_lowercase) for _ in range(24))
    doc.set_metadata({"subject": mark, "keywords": mark})
    pdf = doc.tobytes(deflate=False)  # uncompressed: the text is greppable in the bytes
    return Person(name, email, phone, pdf)


def ingest(ats_cli: Any, path: Path, *extra: str) -> dict[str, Any]:
    res = ats_cli("ingest", "--wait", "--json", "--timeout", "90", *extra, str(path), timeout=150)
    assert res.returncode == 0, res.stderr + res.stdout
    [row] = [json.loads(line) for line in res.stdout.splitlines()]
    return row


def db_url() -> str:
    from django.db import connection

    s = connection.settings_dict
    auth = s["USER"] + (f":{s['PASSWORD']}" if s["PASSWORD"] else "")
    return f"postgresql://{auth}@{s['HOST']}:{s['PORT']}/{s['NAME']}"


def pg_dump(url: str, out: Path, *, fmt: str = "p") -> Path:
    res = subprocess.run(
        [str(pg_bindir() / "pg_dump"), f"--format={fmt}", "--no-owner", "--file", str(out), url],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PGCONNECT_TIMEOUT": "10"},
    )
    assert res.returncode == 0, res.stderr
    return out


def found_in(data: bytes, p: Person) -> list[str]:
    low = data.lower()
    return [k for k, needle in p.needles().items() if needle.lower() in low]


def blob_hits(root: Path, p: Person) -> dict[str, list[str]]:
    """Every blob of every container of the local store (the tests' Azurite stand-in:
    the same BlobStore interface), listed and downloaded through the store."""
    from ats.storage import api as storage_api

    store = storage_api.store_from_config("local", root=root)
    hits: dict[str, list[str]] = {}
    containers = [d.name for d in root.iterdir() if d.is_dir() and not d.name.startswith(".")]
    assert containers, f"no containers under {root}"
    for container in containers:
        for info in store.list_blobs(container):
            found = found_in(store.get(container, info.key, max_bytes=1 << 30), p)
            if found:
                hits[f"{container}/{info.key}"] = found
    return hits


def azure_blob_hits(connection_string: str, p: Person) -> tuple[dict[str, list[str]], int]:
    """Every blob of every container of an Azurite account, listed and downloaded with the
    Azure SDK (not through our own store: the probe must not share its blind spots)."""
    from azure.storage.blob import BlobServiceClient

    from ats.storage.azure_blob import DEFAULT_API_VERSION  # the version Azurite serves

    client = BlobServiceClient.from_connection_string(connection_string, api_version=DEFAULT_API_VERSION)
    hits: dict[str, list[str]] = {}
    seen = 0
    for container in client.list_containers():
        cc = client.get_container_client(container.name)
        for blob in cc.list_blobs():
            seen += 1
            found = found_in(cc.download_blob(blob.name).readall(), p)
            if found:
                hits[f"{container.name}/{blob.name}"] = found
    return hits, seen
