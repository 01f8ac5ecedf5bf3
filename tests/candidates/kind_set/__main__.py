"""`python -m tests.candidates.kind_set [--thirdparty] [--heldout] [--write-heldout-hash]`:
document kind on the development half (or, once, the held-out half)."""

from __future__ import annotations

import argparse
import json

from tests.candidates import kind_set


def main() -> None:
    import django

    django.setup()
    parser = argparse.ArgumentParser()
    parser.add_argument("--thirdparty", action="store_true", help="include the third-party items (sdist cache)")
    parser.add_argument("--heldout", action="store_true", help="measure the held-out half (once; see __init__)")
    parser.add_argument("--write-heldout-hash", action="store_true")
    opts = parser.parse_args()
    items = [*kind_set.own_items(), *kind_set.cv_items()]
    if opts.thirdparty:
        items += kind_set.thirdparty_items()
    if opts.write_heldout_hash:
        (kind_set.HERE / "HELDOUT.sha256").write_text(kind_set.heldout_ids_sha256(kind_set.all_ids()) + "\n")
    half = "heldout" if opts.heldout else "development"
    chosen = [i for i in items if i.half == half]
    out = {"half": half, "by_source": {}, "all": kind_set.measure(chosen)}
    for source in sorted({i.source for i in chosen}):
        out["by_source"][source] = kind_set.measure([i for i in chosen if i.source == source])
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
