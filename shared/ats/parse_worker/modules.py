"""What this process has imported, in the shape of services/worker-untrusted/policy/modules.txt.

Written into the worker's status file at every heartbeat (`modules`), so a test - or an
operator with `ats healthcheck` - can compare the running worker with the reviewed list.
"""

from __future__ import annotations

import sys

# The interpreter's own, not code anyone installs: the site hooks and the distribution's
# sysconfig data, and the runtime modules Cython-compiled extensions (psycopg_binary)
# register under version-specific names.
_INTERPRETER_PREFIXES = ("_sysconfigdata_", "sitecustomize", "usercustomize", "_distutils_hack", "_cython_")
_INTERPRETER = {"__main__", "__mp_main__", "cython_runtime"}


def _third_party(top: str) -> bool:
    if top == "ats" or top in sys.stdlib_module_names or top in sys.builtin_module_names:
        return False
    return top not in _INTERPRETER and not top.startswith(_INTERPRETER_PREFIXES)


def loaded_modules() -> dict[str, list[str]]:
    """`ats`: every `ats.*` module; `third_party`: top-level packages outside the stdlib."""
    # A snapshot (other threads may import meanwhile). A None entry blocks an import
    # (ats.parse_worker.settings blocks rich): nothing was loaded under that name.
    names = [name for name, module in list(sys.modules.items()) if module is not None]
    tops = {n.partition(".")[0] for n in names}
    return {
        "ats": sorted(n for n in names if n == "ats" or n.startswith("ats.")),
        "third_party": sorted(t for t in tops if _third_party(t)),
    }
