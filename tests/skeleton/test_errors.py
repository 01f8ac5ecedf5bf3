"""One root for every exception shared/ats raises (issue 22 item 4, docs/contracts.md).

Every exception class defined under shared/ats derives from `ats.errors.AtsError`; each
package that raises errors of its own has one base deriving from it, exported from its
api.py; every `*Refused` derives from `ats.errors.Refused`; there is one `NotAllowed`.
The walk imports every module (as a process that runs all of them would), so it sees the
real class hierarchy, not names in the source.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import json
import pkgutil
import subprocess
import sys
import types
from pathlib import Path

import ats
from ats import errors

ATS = Path(ats.__file__).parent
REPO = Path(__file__).resolve().parents[2]
ROOT = "ats.errors.AtsError"

# Exception classes that need not derive from AtsError, and why.
NOT_ATS_ERRORS = {
    "ats.devtools.fake_graph._Reply": (
        "control flow inside the fake Graph server: caught by its own handler, never raised past it"
    ),
}
# Modules the walk does not import, and why.
NOT_IMPORTED = {
    "ats.parse_worker.settings": "refuses to load outside worker-untrusted (ATS_DEPLOYABLE=untrusted)",
}
# package -> its base: raised by that package only, exported from its api.py.
BASES = {
    "ai": "AiError",
    "audit": "AuditError",
    "candidates": "CandidateError",
    "channels": "ChannelError",
    "intake": "IntakeError",
    "jobs": "JobError",
    "mail": "MailError",
    "parsing": "ParsingError",
    "retention": "RetentionError",
    "sandbox": "SandboxError",
    "scanning": "ScanningError",
    "scoring": "ScoringError",
    "storage": "StorageError",
}
# Packages with exceptions but no base of their own, and why.
NO_BASE = {
    "deadline": "a one-class module: its DeadlineExceeded is the base of the budget errors",
    "devtools": "test and `just up` harnesses, not a boundary of the running system",
    "parse_worker": "its two errors never leave worker-untrusted's process (ParseWorkerError, not exported)",
    "web": "the top of the stack: its one error (bulk.Refused) is caught in the view that raises it",
    "selfid": "raises only the shared NotAllowed",
}


def describe(modules: list[types.ModuleType]) -> dict[str, list[str]]:
    """Every exception class defined (not imported) at the top level of `modules`, with
    the dotted names of its MRO."""
    found = {}
    for module in modules:
        for name, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == module.__name__:
                found[f"{module.__name__}.{name}"] = [f"{c.__module__}.{c.__qualname__}" for c in value.__mro__]
    return found


def walk() -> dict[str, list[str]]:
    """`describe` over every module of shared/ats (run in a child process: see _classes)."""
    modules = [ats]
    for info in pkgutil.walk_packages(ats.__path__, "ats."):
        if info.name not in NOT_IMPORTED:
            modules.append(importlib.import_module(info.name))
    return describe(modules)


@functools.cache
def _classes() -> dict[str, list[str]]:
    # Importing every module (worker-untrusted's tasks, devtools, the WSGI app...) would
    # register tasks and hooks in the test process: a child does it and reports.
    code = "import json, django; django.setup(); from tests.skeleton.test_errors import walk; print(json.dumps(walk()))"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def not_ats_errors(classes: dict[str, list[str]]) -> list[str]:
    return sorted(n for n, mro in classes.items() if ROOT not in mro and n not in NOT_ATS_ERRORS)


def test_every_exception_class_derives_from_ats_error() -> None:
    classes = _classes()
    assert len(classes) >= 40, sorted(classes)  # the walk sees the real modules
    assert not_ats_errors(classes) == []
    assert set(NOT_ATS_ERRORS) <= set(classes), "an allowed class no longer exists: drop it here"


def test_the_check_sees_a_class_on_another_base() -> None:
    module = types.ModuleType("ats.fake")
    source = "class Stray(ValueError): pass\nclass Fine(errors.AtsError, ValueError): pass"
    module.__dict__.update(errors=errors, __name__="ats.fake")
    exec(source, vars(module))
    assert not_ats_errors(describe([module])) == ["ats.fake.Stray"]


def test_no_exception_class_hides_inside_a_function() -> None:
    # The walk sees module-level classes only; an exception class defined in a function
    # (or a class body) would escape it.
    nested = []
    for path in ATS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for inner in ast.walk(node):
                    if inner is not node and isinstance(inner, ast.ClassDef):
                        bases = " ".join(ast.unparse(b) for b in inner.bases)
                        if any(w in bases for w in ("Error", "Exception", "Refused", "NotAllowed", "Failure")):
                            nested.append(f"{path.relative_to(ATS)}:{inner.lineno} {inner.name}")
    assert nested == []


def test_each_package_has_one_base_exported_from_its_api() -> None:
    classes = _classes()
    for package, base_name in BASES.items():
        api = importlib.import_module(f"ats.{package}.api")
        base = getattr(api, base_name)
        assert base_name in api.__all__
        assert base.__bases__ == (errors.AtsError,), (package, base.__bases__)
        dotted = f"{base.__module__}.{base.__qualname__}"
        own = {n: mro for n, mro in classes.items() if n.startswith(f"ats.{package}.")}
        assert own, package
        assert [n for n, mro in own.items() if dotted not in mro] == [], package
    with_errors = {n.split(".")[1] for n, mro in classes.items() if ROOT in mro} - {"errors"}
    assert with_errors - set(BASES) - set(NO_BASE) == set(), "a package raises errors but has no base: add one"


def test_one_not_allowed_and_one_refused_family() -> None:
    from ats.ai import api as ai_api
    from ats.candidates import api as candidates_api
    from ats.scoring import api as scoring_api
    from ats.selfid import api as selfid_api

    assert {ai_api.NotAllowed, candidates_api.NotAllowed, scoring_api.NotAllowed, selfid_api.NotAllowed} == {
        errors.NotAllowed
    }
    assert issubclass(errors.NotAllowed, PermissionError)  # the CLI commands catch PermissionError
    classes = _classes()
    refused = {n: mro for n, mro in classes.items() if n.endswith("Refused")}
    assert len(refused) >= 8, sorted(refused)
    assert [n for n, mro in refused.items() if "ats.errors.Refused" not in mro] == []
    assert [n for n, c in classes.items() if n.endswith(".NotAllowed")] == ["ats.errors.NotAllowed"]


def test_builtin_bases_callers_catch_are_kept() -> None:
    # Catch sites that predate the root catch these builtin bases (docs/contracts.md).
    from ats.candidates import api as candidates_api
    from ats.intake import api as intake_api
    from ats.jobs import ops_api as jobs_ops
    from ats.retention import api as retention_api
    from ats.scoring import api as scoring_api

    assert issubclass(intake_api.ActionRefused, ValueError)
    assert issubclass(jobs_ops.JobActionRefused, ValueError)
    assert issubclass(scoring_api.DecisionRefused, ValueError)
    assert issubclass(scoring_api.UnknownSkill, ValueError)
    assert issubclass(candidates_api.CandidateNotActive, ValueError)
    assert issubclass(retention_api.ErasureRefused, PermissionError)
