"""``python -m ats.sandbox.check [--json]``: which sandbox layers this host gives, verified.

Starts real zygotes (with the self-check probes of ats.sandbox.selfcheck, which only
this command and the tests enable), runs escape attempts inside real children and
prints one line per layer. Exit status 1 if a required layer is missing or an
attempt that must fail did not. Run it on every new host/image (``just sandbox-check``).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from ats.sandbox import oci
from ats.sandbox.api import Failure, ForkServerSandbox, ZygoteError, harden_worker_process, shipped_profile_hash
from ats.sandbox.data import Layer, SandboxResult, required_layers
from ats.sandbox.policy import load_policy
from ats.sandbox.zygote import PROBES_ENV

_PROBES = "ats.sandbox.selfcheck"


def _observed(result: SandboxResult) -> dict[str, Any]:
    return json.loads(result.document["text"]) if result.ok and result.document else {}


def _tiny_pdf() -> bytes:
    import pymupdf

    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Sandbox check: Jane Doe, engineer", fontsize=12)
    return bytes(doc.tobytes())


class _Checks:
    """The report's checks, in the order they ran."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def verify(self, layer: str, what: str, ok: Any, detail: Any = "") -> None:
        self.rows.append({"layer": layer, "check": what, "ok": bool(ok), "detail": str(detail)[:300]})


def run_checks() -> dict[str, Any]:
    # Like the real worker: nothing in this process may be readable by a same-uid child.
    harden_worker_process()
    os.environ[PROBES_ENV] = "1"  # only for the zygotes this command starts
    policy = load_policy()
    checks = _Checks()
    with ForkServerSandbox(policy=policy, probes=_PROBES) as sandbox:
        try:
            hello = sandbox.start()
        except ZygoteError as exc:
            # E.g. no file boundary (no uid change, no Landlock): a FAILURE of the check,
            # never a skipped layer - the worker would refuse every document here too.
            return _refused_report(policy, exc)
        _check_confinement(sandbox, hello, policy, checks)
    _check_limits(checks)
    container_profile, skipped = oci.load_profile(Path(policy.policy_dir) / "seccomp-container.json")
    del container_profile
    checks.verify("-", "seccomp-container.json compiles", True, f"names unknown to libseccomp: {skipped}")

    active = [Layer(v) for v in hello["layers"]]
    required = required_layers(set(active), root=hello["uid"] == 0)
    missing = sorted(layer.value for layer in required if layer not in active)
    return {
        "uid": hello["uid"],
        "mode": "root" if hello["uid"] == 0 else "non-root (container)",
        "layers": [layer.value for layer in active],
        "skipped": hello["skipped"],
        "required_missing": missing,
        "checks": checks.rows,
        "policy_hash": policy.policy_hash,
        "ok": not missing and all(c["ok"] for c in checks.rows),
    }


def _check_confinement(sandbox: ForkServerSandbox, hello: dict[str, Any], policy: Any, checks: _Checks) -> None:
    """The layers seen from inside children of the started zygote, then a real parse."""
    verify = checks.verify
    verify(
        "seccomp",
        "zygote compiled the shipped seccomp-child.json",
        hello.get("profile_hash") == shipped_profile_hash(Path(policy.policy_dir)),
        hello.get("profile_hash"),
    )
    identity = sandbox.run("probe:identity", b"")
    facts = _observed(identity)
    verify(
        "rlimits,capbset,setuid,no_new_privs,seccomp",
        "child confined (selfcheck.preflight)",
        identity.ok,
        identity.detail or facts.get("preflight"),
    )
    verify("setsid", "child leads its own session", facts.get("session_leader"), facts.get("session_leader"))
    expected_fds = [0, 1, 2, facts.get("result_fd")]
    verify(
        "close_fds",
        "only 0/1/2 and the result pipe open",
        facts.get("open_fds") == expected_fds,
        facts.get("open_fds"),
    )
    if Layer.NETNS in hello["layers"]:
        verify("netns", "only loopback visible", facts.get("interfaces") == ["lo"], facts.get("interfaces"))
    sock = _observed(sandbox.run("probe:socket", b""))
    verify("seccomp", "socket(AF_INET) refused", sock.get("refused") and sock.get("errno") == 1, sock)
    write = sandbox.run("probe:write_file", b"")
    verify(
        "seccomp",
        "open(O_WRONLY|O_CREAT) kills the child",
        write.failure == Failure.SECCOMP_VIOLATION,
        write.failure,
    )
    environ = _observed(sandbox.run("probe:environ", b""))
    for who in ("zygote_pid", "worker_pid"):
        verify(
            "setuid/nondumpable/landlock",
            f"/proc/<{who[:-4]}>/environ unreadable",
            environ.get(who, {}).get("refused"),
            environ.get(who),
        )
    if Layer.LANDLOCK in hello["layers"]:
        passwd = _observed(sandbox.run("probe:read_path", b"/etc/passwd"))
        verify("landlock", "/etc/passwd unreadable", passwd.get("refused"), passwd)
    tessdata = Path(policy.child.read_only_paths[0]) / "eng.traineddata" if policy.child.read_only_paths else None
    if tessdata and tessdata.exists():
        ocr = _observed(sandbox.run("probe:read_path", str(tessdata).encode()))
        verify("landlock", "tessdata readable (OCR works)", ocr.get("refused") is False, ocr)
    parsed = sandbox.run("pdf", _tiny_pdf())
    verify(
        "-",
        "a real PDF parses in the sandbox",
        parsed.document is not None and "Jane Doe" in parsed.document["text"],
        parsed.failure or f"{parsed.wall_ms:.1f} ms",
    )
    after = sandbox.run("probe:identity", b"")
    verify("-", "zygote survives a killed child", after.ok and sandbox.restarts == 0, after.failure)


def _check_limits(checks: _Checks) -> None:
    """CPU, memory and wall limits, each on its own short-capped zygote."""
    # The spin gets a wall cap far above its 1 s CPU cap: on a loaded host (the zygote's
    # spare warming up, other pods) it must still reach the CPU limit first.
    short = load_policy(cpu_soft_s=1, cpu_hard_s=2, wall_s=15, address_space_budget_mb=128)
    with ForkServerSandbox(policy=short, probes=_PROBES) as sandbox:
        spin = sandbox.run("probe:cpu_spin", b"")
        checks.verify("rlimits", "CPU spin ends as timeout_cpu", spin.failure == Failure.TIMEOUT_CPU, spin.failure)
        bomb = sandbox.run("probe:memory_bomb", b"")
        checks.verify("rlimits", "memory bomb ends as memory", bomb.failure == Failure.MEMORY, bomb.failure)
    quick = load_policy(cpu_soft_s=1, cpu_hard_s=2, wall_s=2, address_space_budget_mb=128)
    with ForkServerSandbox(policy=quick, probes=_PROBES) as sandbox:
        block = sandbox.run("probe:block", b"")
        checks.verify("-", "blocked child ends as timeout_wall", block.failure == Failure.TIMEOUT_WALL, block.failure)


def _refused_report(policy: Any, exc: ZygoteError) -> dict[str, Any]:
    hello = exc.hello
    uid = int(hello.get("uid", os.geteuid()))
    active = [Layer(v) for v in hello.get("layers", [])]
    required = required_layers(set(active), root=uid == 0)
    return {
        "uid": uid,
        "mode": "root" if uid == 0 else "non-root (container)",
        "layers": [layer.value for layer in active],
        "skipped": hello.get("skipped", {}),
        "required_missing": sorted(layer.value for layer in required if layer not in active),
        "checks": [{"layer": "-", "check": "zygote starts", "ok": False, "detail": str(exc)[:300]}],
        "policy_hash": policy.policy_hash,
        "ok": False,
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    report = run_checks()
    if "--json" in argv:
        print(json.dumps(report, indent=2))
        return 0 if report["ok"] else 1
    print(f"sandbox check: uid {report['uid']}, {report['mode']}, policy {report['policy_hash'][:16]}")
    print("\nlayers (in the order a child applies them):")
    for layer in Layer:
        skipped = report["skipped"].get(layer.value, "?")
        state = "active" if layer.value in report["layers"] else f"SKIPPED: {skipped}"
        print(f"  {layer.value:<13} {state}")
    print("\nverified inside real children:")
    for check in report["checks"]:
        mark = "ok  " if check["ok"] else "FAIL"
        print(f"  {mark} {check['check']:<45} [{check['layer']}] {check['detail'] if not check['ok'] else ''}")
    if report["required_missing"]:
        print(f"\nREQUIRED LAYERS MISSING: {', '.join(report['required_missing'])}")
    print("\nresult:", "OK" if report["ok"] else "NOT FIT for untrusted documents")
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
