"""Facades hand out frozen data, not ORM models (OEP-49, issue 22 item 5).

A model class on a facade invites another module to query the owner's tables with
`.objects`, bypassing its selectors, its access checks and its freedom to reshape its
rows. So no `api.py` / `data.py` under shared/ats exports a Django model, except those in
ALLOWED below, each with its reason and the only modules that may use it through the
facade. Tests may read any model: they import it from the owner's `models` module.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from collections.abc import Iterator
from pathlib import Path

from django.apps import apps
from django.db import models

REPO = Path(__file__).resolve().parents[2]
ATS = REPO / "shared" / "ats"
FACADES = ("api", "data")

# (facade module, exported name) -> (why it must stay, modules outside the owner that may use it).
ADMIN = "Django's admin registers model classes, and the read-only domain views live in ats.web.admin"
ALLOWED: dict[tuple[str, str], tuple[str, frozenset[str]]] = {
    ("ats.intake.api", "Attachment"): (ADMIN, frozenset({"ats.web.admin"})),
    ("ats.intake.api", "RawIntake"): (ADMIN, frozenset({"ats.web.admin"})),
    ("ats.candidates.api", "Candidate"): (ADMIN, frozenset({"ats.web.admin"})),
}


def _facades() -> Iterator[str]:
    for package in sorted(p.parent for p in ATS.glob("*/__init__.py")):
        for name in FACADES:
            if (package / f"{name}.py").exists():
                yield f"ats.{package.name}.{name}"


def _exported_models() -> set[tuple[str, str]]:
    found = set()
    for facade in _facades():
        module = importlib.import_module(facade)
        for name, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, models.Model):
                found.add((facade, name))
    return found


def _module_name(path: Path) -> str:
    rel = path.relative_to(ATS.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _facade_uses(tree: ast.Module) -> Iterator[tuple[str, str]]:
    """(facade module, name) for every `alias.Name` on an imported facade and every
    `from ats.X.api import Name` in this file."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                full = f"{node.module}.{a.name}"
                if full.count(".") == 2 and full.startswith("ats.") and full.rsplit(".", 1)[1] in FACADES:
                    aliases[a.asname or a.name] = full  # from ats.X import api as x_api
                elif node.module.count(".") == 2 and node.module.rsplit(".", 1)[1] in FACADES:
                    yield node.module, a.name  # from ats.X.api import Name
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.asname and a.name.count(".") == 2 and a.name.rsplit(".", 1)[1] in FACADES:
                    aliases[a.asname] = a.name  # import ats.X.api as x_api
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            yield aliases[node.value.id], node.attr


def _uses_outside_owner(names: set[tuple[str, str]]) -> dict[tuple[str, str], set[str]]:
    users: dict[tuple[str, str], set[str]] = {n: set() for n in names}
    for path in sorted(ATS.rglob("*.py")):
        module = _module_name(path)
        for facade, name in _facade_uses(ast.parse(path.read_text(), str(path))):
            owner = facade.rsplit(".", 1)[0]
            if (facade, name) in users and not module.startswith(owner + "."):
                users[(facade, name)].add(module)
    return users


def test_no_facade_exports_a_model_outside_the_allow_list() -> None:
    exported = _exported_models()
    assert exported - set(ALLOWED) == set(), "return frozen dataclasses from a selector instead (docs/contracts.md)"
    assert set(ALLOWED) - exported == set(), "no longer exported: drop it from ALLOWED"
    for key, (reason, _users) in ALLOWED.items():
        assert len(reason) > 20, key


def test_allowed_models_are_used_only_where_their_reason_says() -> None:
    users = _uses_outside_owner(set(ALLOWED))
    for key, (_reason, allowed) in ALLOWED.items():
        # Exact: the scan must see the admin's use, or it has stopped seeing anything.
        assert users[key] == allowed, (key, users[key] - allowed or "the scan missed the allowed user")


def _returns_a_model(fn: object, model_names: set[str]) -> bool:
    returns = str(inspect.signature(fn).return_annotation)  # type: ignore[arg-type]
    return bool(set(re.findall(r"\b[A-Z]\w*", returns)) & model_names)


def test_no_facade_function_returns_a_model() -> None:
    """Every facade function answers frozen data, ids or plain values: none declares an ORM
    model or a QuerySet as (part of) its return type (the last eleven went in issue 22)."""
    model_names = {m.__name__ for m in apps.get_models() if m.__module__.startswith("ats.")} | {"QuerySet"}
    found = set()
    for facade in _facades():
        for name, value in vars(importlib.import_module(facade)).items():
            if inspect.isfunction(value) and _returns_a_model(value, model_names):
                found.add(f"{facade.split('.')[1]}.{name}")

    # The check reads annotations at all (as the facades write them, postponed strings):
    def probe() -> Attachment | None: ...  # type: ignore[empty-body]  # noqa: F821

    def frozen() -> Document | None: ...  # type: ignore[empty-body]  # noqa: F821

    assert _returns_a_model(probe, model_names) and not _returns_a_model(frozen, model_names)
    assert found == set(), "return a frozen dataclass (in the module's data.py) instead"


def test_the_scan_sees_every_import_form() -> None:
    tree = ast.parse(
        "from ats.intake import api as a\n"
        "import ats.scoring.api as s\n"
        "from ats.candidates.api import Candidate\n"
        "a.Attachment.objects.all(); s.Application\n"
    )
    assert set(_facade_uses(tree)) == {
        ("ats.intake.api", "Attachment"),
        ("ats.scoring.api", "Application"),
        ("ats.candidates.api", "Candidate"),
    }
