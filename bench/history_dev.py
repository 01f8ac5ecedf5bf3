"""Work-history entries and years of experience on the DEVELOPMENT half of the corpus.

    python bench/history_dev.py [--cache DIR]

The committed corpus's truth has no work-history entries; its generator has them (each
generated CV's roles), so this script takes the truth from the generator for generated
development CVs only - it never renders, parses or reads a held-out CV. Parse answers are
cached in DIR (default ~/.cache/ats/history-dev) so a rule change re-runs in seconds.
Metric (issue 25): entry F1 on (employer, title, start year), case-insensitive.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.extraction import corpus  # noqa: E402

from ats.extraction.api import extract  # noqa: E402
from ats.extraction.eval import norm, parse_answer  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", default=str(Path.home() / ".cache" / "ats" / "history-dev"))
    ap.add_argument("--show", action="store_true", help="print each miss")
    args = ap.parse_args()
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    dev = {e.id: e for e in corpus.entries() if e.half == "development" and e.source == "generated"}
    cvs = [cv for cv in [*corpus.generated(), *corpus.extra_development()] if cv.id in dev]
    tp = fp = fn = 0
    years_ok = years_n = skills_tp = skills_fp = skills_fn = 0
    per_layout: dict[str, list[int]] = {}
    for cv in cvs:
        path = cache / f"{cv.id}.pickle"
        if path.exists():
            answer = pickle.loads(path.read_bytes())  # noqa: S301 - our own cache of our own parse
        else:
            kind, data = corpus.render(cv)
            answer = parse_answer(kind, data)
            path.write_bytes(pickle.dumps(answer))
        ex = extract(answer, as_of=corpus.AS_OF)
        truth = {(norm(r.employer), norm(r.title), r.start[0]) for r in cv.roles}
        pred = {
            (norm(v.get("employer") or ""), norm(v.get("title") or ""), int(str(v.get("start"))[:4]))
            for v in ex.values("work_history")
        }
        hit = len(truth & pred)
        tp, fp, fn = tp + hit, fp + len(pred) - hit, fn + len(truth) - hit
        row = per_layout.setdefault(cv.layout, [0, 0, 0])
        row[0] += hit
        row[1] += len(pred) - hit
        row[2] += len(truth) - hit
        if args.show and truth != pred:
            print(cv.id, "missed", sorted(truth - pred), "wrong", sorted(pred - truth))
        years_n += 1
        got = ex.first("years_experience")
        years_ok += got is not None and abs(float(got) - cv.years) <= 1
        ts, ps = {norm(s) for s in cv.skills}, {norm(s) for s in ex.values("skills")}
        skills_tp += len(ts & ps)
        skills_fp += len(ps - ts)
        skills_fn += len(ts - ps)

    # Hand-made development CVs: no roles in their truth, but skills and years are there.
    hand = {spec["id"]: spec for spec in corpus.hand_made()}
    for entry in corpus.entries():
        if entry.half != "development" or entry.source == "generated":
            continue
        path = cache / f"{entry.id}.pickle"
        if path.exists():
            answer = pickle.loads(path.read_bytes())  # noqa: S301 - our own cache of our own parse
        else:
            kind, data = corpus.render_hand(hand[entry.id])
            answer = parse_answer(kind, data)
            path.write_bytes(pickle.dumps(answer))
        ex = extract(answer, as_of=corpus.AS_OF)
        if entry.truth.get("years_experience") is not None:
            years_n += 1
            got = ex.first("years_experience")
            years_ok += got is not None and abs(float(got) - float(entry.truth["years_experience"])) <= 1
        ts, ps = {norm(s) for s in entry.truth.get("skills", [])}, {norm(s) for s in ex.values("skills")}
        skills_tp += len(ts & ps)
        skills_fp += len(ps - ts)
        skills_fn += len(ts - ps)
        if args.show and ts != ps:
            print(entry.id, "skills missed", sorted(ts - ps), "extra", sorted(ps - ts))

    def f1(t: int, p: int, n: int) -> float:
        return 2 * t / (2 * t + p + n) if t + p + n else 0.0

    print(
        json.dumps(
            {
                "cvs": len(cvs),
                "work_history_f1": round(f1(tp, fp, fn), 3),
                "work_history_tp_fp_fn": [tp, fp, fn],
                "per_layout_f1": {k: round(f1(*v), 3) for k, v in sorted(per_layout.items())},
                "years_within1": round(years_ok / years_n, 3),
                "years_cvs": years_n,
                "skills_f1": round(f1(skills_tp, skills_fp, skills_fn), 3),
            },
            indent=1,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
