"""import-linter contract type: modules meet only through their facades (OEP-49).

For every domain package `ats.X`, code outside `ats.X` may import `ats.X` itself,
`ats.X.api`, `ats.X.data` and a facade for one audience, `ats.X.<audience>_api`
(`ats.jobs.ops_api`), nothing deeper. One generic rule instead of a hand-kept list per
module, so a new internal module is protected the day it is written.

The `audience` contract says who may import such an audience facade: only the importers
it lists (a `*` matches one dotted segment), and the package itself.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any

from importlinter import Contract, ContractCheck, fields, output

FACADES = {"api", "data"}
AUDIENCE_SUFFIX = "_api"


class FacadeContract(Contract):
    type_name = "facade"

    root = fields.StringField()
    domains = fields.ListField(subfield=fields.StringField())
    # Packages that are not domain modules but tooling (exempt as importers).
    exempt_importers = fields.ListField(subfield=fields.StringField(), required=False)

    def check(self, graph: Any, verbose: bool) -> ContractCheck:
        root = str(self.root)
        exempt = [str(e) for e in (self.exempt_importers or [])]  # type: ignore[union-attr,attr-defined]
        violations = []
        for domain in [str(d) for d in self.domains]:  # type: ignore[union-attr,attr-defined]
            package = f"{root}.{domain}"
            for module in sorted(graph.find_descendants(package)):
                rest = module[len(package) + 1 :].split(".")
                if rest[0] in FACADES or rest[0].endswith(AUDIENCE_SUFFIX):
                    continue
                for importer in sorted(graph.find_modules_that_directly_import(module)):
                    if importer == package or importer.startswith(package + "."):
                        continue
                    if any(importer == e or importer.startswith(e + ".") for e in exempt):
                        continue
                    violations.append((importer, module))
        return ContractCheck(kept=not violations, metadata={"violations": violations})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for importer, module in check.metadata["violations"]:
            output.print_error(f"{importer} imports {module}: import its package's api or data instead")
            output.new_line()


def _matches(module: str, pattern: str) -> bool:
    """`module` is `pattern` or inside it; `*` stands for one segment of the name."""
    parts, wanted = module.split("."), pattern.split(".")
    return len(parts) >= len(wanted) and all(fnmatchcase(p, w) for p, w in zip(parts, wanted, strict=False))


class AudienceContract(Contract):
    type_name = "audience"

    facade = fields.StringField()
    importers = fields.ListField(subfield=fields.StringField())

    def check(self, graph: Any, verbose: bool) -> ContractCheck:
        facade = str(self.facade)
        package = facade.rsplit(".", 1)[0]
        allowed = [str(i) for i in self.importers]  # type: ignore[union-attr,attr-defined]
        violations = sorted(
            importer
            for importer in graph.find_modules_that_directly_import(facade)
            if not _matches(importer, package) and not any(_matches(importer, a) for a in allowed)
        )
        return ContractCheck(kept=not violations, metadata={"facade": facade, "violations": violations})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for importer in check.metadata["violations"]:
            output.print_error(f"{importer} imports {check.metadata['facade']}, which is not for its audience")
            output.new_line()
