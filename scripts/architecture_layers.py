"""Write the layers section of docs/architecture.md and the package list of docs/contracts.md
from pyproject.toml's import-linter `layers` contract and each package's docstring.

    /opt/ats/venv/bin/python scripts/architecture_layers.py          # rewrite both docs
    /opt/ats/venv/bin/python scripts/architecture_layers.py --check  # exit 1 if they drifted

tests/skeleton/test_layers.py runs the check: the contract is the source, the docs follow.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ATS = REPO / "shared" / "ats"
DOCS = {
    REPO / "docs" / "architecture.md": ("<!-- layers:begin -->", "<!-- layers:end -->"),
    REPO / "docs" / "contracts.md": ("<!-- packages:begin -->", "<!-- packages:end -->"),
}


def layers() -> list[list[str]]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
    [contract] = [c for c in config["contracts"] if c["type"] == "layers"]
    return [[p.strip() for p in layer.split("|")] for layer in contract["layers"]]


def job(name: str) -> str:
    """The first sentence-line of the package's (or module's) docstring: its one-line job."""
    path = ATS / name / "__init__.py" if (ATS / name).is_dir() else ATS / f"{name}.py"
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    line = doc.strip().splitlines()[0].strip() if doc.strip() else ""
    if not line:
        raise SystemExit(f"{path.relative_to(REPO)} has no docstring: its first line is the package's job")
    return line


def layers_section() -> str:
    out = [
        "Generated from the `layers` contract in pyproject.toml by scripts/architecture_layers.py",
        "(a test fails when this drifts). Top to bottom: a package imports only packages on",
        "layers below its own; packages on one layer do not import each other.",
        "",
        "| layer | package | job |",
        "|---|---|---|",
    ]
    for i, layer in enumerate(layers(), start=1):
        for name in layer:
            out.append(f"| {i} | `ats.{name}` | {job(name).replace('|', '/')} |")
    return "\n".join(out)


def packages_section() -> str:
    out = ["Every package under `shared/ats` (generated; the layers are in docs/architecture.md):", ""]
    for name in sorted(p for layer in layers() for p in layer):
        out.append(f"- `ats.{name}`: {job(name)}")
    return "\n".join(out)


def rendered(path: Path) -> str:
    begin, end = DOCS[path]
    body = layers_section() if "layers" in begin else packages_section()
    text = path.read_text()
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{path.relative_to(REPO)} lacks the {begin} ... {end} markers")
    return pattern.sub(lambda _: f"{begin}\n{body}\n{end}", text)


def main(argv: list[str]) -> int:
    drifted = [p for p in DOCS if rendered(p) != p.read_text()]
    if "--check" in argv:
        for p in drifted:
            sys.stderr.write(
                f"{p.relative_to(REPO)} differs from the layers contract: run scripts/architecture_layers.py\n"
            )
        return 1 if drifted else 0
    for p in drifted:
        p.write_text(rendered(p))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
