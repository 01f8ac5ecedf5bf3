"""Subject access (GDPR art. 15): everything held about a person, as JSON plus the
original files. Built from the same per-module row functions erasure deletes by, so the
export holds every row an erasure would remove (tests/retention check both ways)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder

from ats.ai import api as ai_api
from ats.audit import api as audit_api
from ats.candidates import api as candidates_api
from ats.channels import api as channels_api
from ats.iam import api as iam_api
from ats.intake import api as intake_api
from ats.jobs import api as jobs_api
from ats.scoring import api as scoring_api
from ats.search import api as search_api
from ats.selfid import api as selfid_api


def subject_rows(*, candidate_id: int) -> dict[str, Any]:
    """{"subject": {...ids}, "tables": {table: [row, ...]}} for one person (across merges)."""
    subject = candidates_api.candidate_subject(candidate_id=candidate_id)
    if subject is None:
        raise LookupError(f"candidate {candidate_id} does not exist")
    cids = subject.candidate_ids
    atts = sorted(set(subject.attachment_ids) | set(intake_api.subject_attachment_ids(candidate_ids=cids)))
    tables: dict[str, list[dict[str, Any]]] = {}
    tables.update(candidates_api.candidate_personal_rows(candidate_ids=cids))
    tables.update(intake_api.attachment_personal_rows(attachment_ids=atts))
    scoring = scoring_api.application_personal_rows(candidate_ids=cids)
    tables.update(scoring)
    app_ids = [a["id"] for a in scoring["scoring_application"]]
    tables.update(ai_api.ai_personal_rows(candidate_ids=cids, application_ids=app_ids))
    tables.update(search_api.search_personal_rows(candidate_ids=cids, attachment_ids=atts))
    raw_ids = [r["id"] for r in tables["intake_raw_intake"]]
    tables.update(channels_api.ledger_personal_rows(raw_intake_ids=raw_ids))
    # Voluntary self-identification is the person's data too (art. 15 covers special categories).
    tables.update(selfid_api.selfid_personal_rows(candidate_ids=cids))
    objects = [("candidate", c) for c in cids] + [("attachment", a) for a in atts]
    objects += [("application", a) for a in app_ids]
    tables.update(audit_api.audit_subject_rows(objects=objects))
    tables.update(
        jobs_api.jobs_referencing(refs={"candidate_id": cids, "attachment_id": atts, "application_id": app_ids})
    )
    return {
        "subject": {
            "candidate_id": subject.candidate_id,
            "candidate_ids": cids,
            "attachment_ids": atts,
            "application_ids": app_ids,
            "status": subject.status,
        },
        "tables": tables,
    }


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:120] or "document"


def subject_export(*, candidate_id: int, out_dir: Path, actor: Any) -> dict[str, Any]:
    """Write `subject.json` and `documents/<attachment id>-<file name>` under `out_dir`."""
    if not iam_api.can(actor, "candidate.export"):
        raise PermissionError(f"{iam_api.actor_label(actor)} may not export a person's data (admins only)")
    data = subject_rows(candidate_id=candidate_id)
    out_dir.mkdir(parents=True, exist_ok=True)
    docs = out_dir / "documents"
    docs.mkdir(exist_ok=True)
    files = []
    for att in data["tables"]["intake_attachment"]:
        blob = intake_api.attachment_original_bytes(attachment_id=att["id"])
        if blob is None:
            continue
        path = docs / f"{att['id']}-{_safe(att['filename'])}"
        path.write_bytes(blob)
        files.append(str(path.relative_to(out_dir)))
    data["files"] = files
    (out_dir / "subject.json").write_text(json.dumps(data, cls=DjangoJSONEncoder, indent=1, sort_keys=True))
    audit_api.audit_event_record(
        actor=iam_api.actor_label(actor),
        action="retention.exported",
        object_type="candidate",
        object_id=data["subject"]["candidate_id"],
        payload={"rows": sum(len(v) for v in data["tables"].values()), "files": len(files)},
    )
    return {
        "candidate_id": data["subject"]["candidate_id"],
        "out": str(out_dir),
        "tables": {k: len(v) for k, v in data["tables"].items()},
        "files": files,
    }
