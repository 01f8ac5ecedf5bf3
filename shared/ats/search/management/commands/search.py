"""`ats search QUERY [--json] [--limit N]` | `ats search --sweep` - operators' view of the index.

(Recruiters search through `ats candidate list --search` and the web app, which call
`ats.search.api.search_candidates`.)
"""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from ats.search import api as search_api


class Command(BaseCommand):
    help = "Full-text search of candidates (ids, best first), or run the refresh sweep now."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("query", nargs="?", default="")
        parser.add_argument("--json", action="store_true")
        parser.add_argument("--limit", type=int, default=50)
        parser.add_argument("--sweep", action="store_true", help="index what no job covered, drop erased rows")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["sweep"]:
            sys.stdout.write(json.dumps(search_api.search_sweep()) + "\n")
            return
        if not opts["query"].strip():
            raise CommandError("give a query (or --sweep)")
        ids = search_api.search_candidates(opts["query"], limit=opts["limit"])
        if opts["json"]:
            sys.stdout.write(json.dumps({"query": opts["query"], "candidate_ids": ids}) + "\n")
        else:
            sys.stdout.write("\n".join(map(str, ids)) + ("\n" if ids else "no match\n"))
