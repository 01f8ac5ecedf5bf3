"""`ats candidate show|list|merge|unmerge|edit|accept|dismiss` - the candidates CLI (a contract).

    ats candidate show ID [--json]
    ats candidate list [--search Q] [--all] [--json]
    ats candidate merge A B [--json]          # B is merged into A; prints {merge_id}
    ats candidate unmerge MERGE_ID [--json]
    ats candidate edit ID --field F --value V [--json]
    ats candidate accept CHANGE_ID | dismiss CHANGE_ID
    ats candidate review-identity [--apply] [--json]   # no name or no contact (issue 28)

The CLI acts as the system actor `cli:system` (like `ats reparse`): whoever runs it holds
the database credentials already. The web views pass the signed-in user instead, and iam
decides (recruiters edit and merge, hiring managers read).
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ats.candidates import api as candidates_api
from ats.iam import api as iam_api

CLI_ACTOR = iam_api.SystemActor("cli:system")


class Command(BaseCommand):
    help = "Show, list, edit, merge and unmerge candidates."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        show = sub.add_parser("show", help="one candidate with provenance")
        show.add_argument("candidate_id", type=int)
        show.add_argument("--json", action="store_true")
        lst = sub.add_parser("list", help="active candidates")
        lst.add_argument("--search", default=None)
        lst.add_argument("--all", action="store_true", help="include merged and erased candidates")
        lst.add_argument("--json", action="store_true")
        merge = sub.add_parser("merge", help="merge B into A (A survives)")
        merge.add_argument("a", type=int)
        merge.add_argument("b", type=int)
        merge.add_argument("--json", action="store_true")
        unmerge = sub.add_parser("unmerge", help="undo a merge exactly")
        unmerge.add_argument("merge_id", type=int)
        unmerge.add_argument("--json", action="store_true")
        edit = sub.add_parser("edit", help="set a field by hand (marks it recruiter-edited)")
        edit.add_argument("candidate_id", type=int)
        edit.add_argument("--field", required=True)
        edit.add_argument("--value", required=True)
        edit.add_argument("--json", action="store_true")
        review = sub.add_parser("review-identity", help="active candidates with no name or no contact (e-mail/phone)")
        review.add_argument(
            "--apply",
            action="store_true",
            help="turn each one back into no_candidate_details documents (audited)",
        )
        review.add_argument("--json", action="store_true")
        for name in ("accept", "dismiss"):
            p = sub.add_parser(name, help=f"{name} a proposed change")
            p.add_argument("change_id", type=int)
            p.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            getattr(self, f"_{opts['action'].replace('-', '_')}")(opts)
        except (LookupError, ValueError, PermissionError) as exc:
            raise CommandError(str(exc)) from exc

    def _out(self, opts: dict[str, Any], data: Any, text: str) -> None:
        self.stdout.write(json.dumps(data, default=str) if opts.get("json") else text)

    def _review_identity(self, opts: dict[str, Any]) -> None:
        rows = candidates_api.candidates_without_identity()
        turned: list[dict[str, Any]] = []
        if opts["apply"]:
            for row in rows:
                try:
                    turned.append(candidates_api.candidate_turn_back(candidate_id=row["id"], actor=CLI_ACTOR))
                except (candidates_api.CandidateNotActive, ValueError) as exc:
                    # Merged, erased or given an identity since the listing: left alone.
                    row["skipped"] = str(exc)
        if opts["json"]:
            out: dict[str, Any] = {"candidates": rows, "count": len(rows)}
            if opts["apply"]:
                out["turned_back"] = turned
            self.stdout.write(json.dumps(out, default=str))
            return
        for r in rows:
            self.stdout.write(
                f"{r['id']}\t{r['name'] or '-'}\t{r['email'] or '-'}\tmissing {', '.join(r['missing'])}"
                f"\tdocuments {r['documents']}"
            )
        verb = "turned back" if opts["apply"] else "found"
        n = len(turned) if opts["apply"] else len(rows)
        self.stdout.write(f"{n} candidate(s) without a name or a contact {verb}")

    def _show(self, opts: dict[str, Any]) -> None:
        detail = candidates_api.candidate_detail(opts["candidate_id"], actor=CLI_ACTOR)
        if detail is None:
            raise CommandError(f"candidate {opts['candidate_id']} does not exist")
        if opts["json"]:
            self.stdout.write(json.dumps(detail, default=str))
            return
        lines = [f"candidate {detail['id']} ({detail['status']}), extraction version {detail['extraction_version']}"]
        if detail["merged_into"]:
            lines.append(f"  merged into {detail['merged_into']}")
        for name, prov in detail["provenance"].items():
            value = detail[name]
            if value in (None, []):
                continue
            edited = " [edited]" if name in detail["edited_fields"] else ""
            lines.append(f"  {name}{edited}: {value}")
            for src in prov:
                where = f"page {src['page']}" if src.get("page") else f"{src.get('part') or '-'}#{src.get('index')}"
                lines.append(
                    f"      <- doc {src['attachment_id']} attempt {src['parse_attempt']} {where} "
                    f"rule {src['rule']}: {src['text'][:80]!r}"
                )
        lines.append(f"  documents: {detail['documents']}")
        for d in detail["duplicates"]:
            lines.append(
                f"  {d['kind']} pair {d['pair_id']} with {d['other_candidate_id']} "
                f"({d['status']}, score {d['score']}): {d['reason']}"
            )
        for pc in detail["proposed_changes"]:
            lines.append(f"  proposed change {pc['change_id']}: {pc['field']} -> {pc['value']}")
        self.stdout.write("\n".join(lines))

    def _list(self, opts: dict[str, Any]) -> None:
        rows = candidates_api.candidate_list(actor=CLI_ACTOR, search=opts["search"], include_inactive=opts["all"])
        if opts["json"]:
            self.stdout.write(json.dumps(rows, default=str))
            return
        for r in rows:
            self.stdout.write(f"{r['id']}\t{r['status']}\t{r['name'] or '-'}\t{r['email'] or '-'}")

    def _merge(self, opts: dict[str, Any]) -> None:
        journal = candidates_api.candidate_merge(survivor_id=opts["a"], merged_id=opts["b"], actor=CLI_ACTOR)
        data = {"merge_id": journal.id, "survivor": journal.survivor_id, "merged": journal.merged_id}
        self._out(opts, data, f"merge {journal.id}: candidate {journal.merged_id} merged into {journal.survivor_id}")

    def _unmerge(self, opts: dict[str, Any]) -> None:
        journal = candidates_api.candidate_unmerge(merge_id=opts["merge_id"], actor=CLI_ACTOR)
        data = {"merge_id": journal.id, "survivor": journal.survivor_id, "restored": journal.merged_id}
        self._out(opts, data, f"merge {journal.id} undone: candidate {journal.merged_id} restored")

    def _edit(self, opts: dict[str, Any]) -> None:
        candidates_api.candidate_edit_field(
            candidate_id=opts["candidate_id"], field=opts["field"], value=opts["value"], actor=CLI_ACTOR
        )
        detail = candidates_api.candidate_detail(opts["candidate_id"], actor=CLI_ACTOR) or {}
        data = {"id": opts["candidate_id"], "field": opts["field"], "value": detail.get(opts["field"])}
        self._out(opts, data, f"candidate {opts['candidate_id']}: {opts['field']} = {data['value']!r} (edited)")

    def _accept(self, opts: dict[str, Any]) -> None:
        row = candidates_api.candidate_accept_change(change_id=opts["change_id"], actor=CLI_ACTOR)
        self._out(opts, {"change_id": opts["change_id"], "status": "accepted"}, f"accepted: {row.field}")

    def _dismiss(self, opts: dict[str, Any]) -> None:
        change = candidates_api.candidate_dismiss_change(change_id=opts["change_id"], actor=CLI_ACTOR)
        self._out(opts, {"change_id": change.change_id, "status": change.status}, f"dismissed: {change.field}")
