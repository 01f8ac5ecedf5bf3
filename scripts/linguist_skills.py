"""Add GitHub Linguist's programming languages (and a few file formats) to the skills taxonomy.

    python scripts/linguist_skills.py LANGUAGES_YML WORDS [--check]

LANGUAGES_YML is lib/linguist/languages.yml of github-linguist/linguist (MIT; commit and
sha256 pinned below): every language GitHub recognises, with its aliases. Get it with

    git clone https://github.com/github-linguist/linguist && git -C linguist show \\
        b45dbe9b2825a43285bcd035861be91cc0a7299e:lib/linguist/languages.yml > languages.yml

WORDS is Debian's English word list (package wamerican 2020.12.07-2,
/usr/share/dict/american-english; `apt-get download wamerican`), used here only to decide,
not shipped: a one-word language name that is also an English word ("Red", "Clean", "Self",
"Ring", "Just") would turn a skills section's prose into false skills, so such names are
left out unless listed in WORD_NAMES_KEPT (languages CVs do list: Ada, Clojure, OCaml...).

Rows written (category `language`, or `format` for FORMATS): every Linguist language of type
`programming` and the FORMATS of types markup/data that no row names yet, minus DROPPED; its
Linguist aliases of three or more characters that are no English word and no other row's
spelling. All of them are strict (they count only inside a skills section): the vocabulary
grows for the CV's own skills list without new guesses in running text. Rows this script
wrote before (column `source` = linguist) are replaced; every other row is kept as it is.
`--check` exits 1 when skills.csv is not what this script would write. Bump `# version:`
in skills.csv when its content changes.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
from pathlib import Path

import yaml
from esco_skills import render_csv, write_or_check  # scripts/ is sys.path[0] when run as a script

LANGUAGES_SHA256 = "ab0dc079dc392c85957985ebbad391ef24118d81dce103e4832d8b3abdb11982"
LINGUIST_COMMIT = "b45dbe9b2825a43285bcd035861be91cc0a7299e"
WORDS_SHA256 = "9f513f1ceadb6a01c5485b7dbdfd5118dc66cd70b59cae2851292112d4066a32"
SKILLS = Path(__file__).resolve().parents[1] / "shared" / "ats" / "extraction" / "skills.csv"

# One-word names that are English words but name the language in a CV's skills list.
WORD_NAMES_KEPT = frozenset(
    {"ada", "algol", "apex", "clojure", "ocaml", "racket", "elm", "eiffel", "forth", "dylan", "gherkin",
     "nix", "thrift", "yacc", "swig", "bicep", "chapel", "ballerina", "gleam", "fennel", "oberon", "luau", "janet",
     "ceylon", "scheme", "groovy", "elixir", "crystal", "fortran", "pascal"}
)  # fmt: skip
# Not English words, but names CVs use for something else, or too short to tell apart.
DROPPED = frozenset(
    {"eq", "uno", "lex", "roc", "jac", "gno", "noir", "toit", "tolk", "quint", "flix", "golo", "opa", "imba", "muf",
     "rez", "rpc", "smt", "tla", "pep8", "sas", "4d", "dm", "hy", "p4", "xc", "ecl", "kit", "pic", "tea", "edge",
     "mask", "star", "slim", "riot", "blade", "eagle", "desktop", "formatted", "e-mail", "http", "diff", "checksums",
     "shellsession", "julia repl", "python console", "python traceback"}
)  # fmt: skip
# Markup and data languages a CV lists as skills (the rest of those types are file kinds).
FORMATS = frozenset(
    {"json", "yaml", "toml", "xml", "tex", "bibtex", "svg", "protocol buffer", "avro idl", "flatbuffers", "jinja",
     "handlebars", "mustache", "liquid", "twig", "pug", "haml", "stylus", "postcss", "plantuml", "mermaid",
     "openapi specification v3", "raml", "jsonld", "turtle", "web ontology language", "regular expression",
     "velocity template language", "nunjucks", "ejs", "astro", "maven pom", "gradle kotlin dsl", "kusto", "hocon",
     "ini", "csv", "postscript", "prisma", "graphviz (dot)", "yang", "asn.1", "ebnf", "abnf", "marko", "haproxy"}
)  # fmt: skip


def _read(path: Path, sha256: str) -> bytes:
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != sha256:
        raise SystemExit(f"{path}: sha256 is not the pinned {sha256}")
    return data


def _key(text: str) -> str:
    return " ".join(text.split()).casefold()


def build(languages: dict[str, dict[str, object]], words: frozenset[str]) -> str:
    text = SKILLS.read_text(encoding="utf-8")
    comments = [ln for ln in text.splitlines() if ln.startswith("#")]
    rows = [
        row
        for row in csv.DictReader([ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")])
        if row.get("source") != "linguist"
    ]
    taken = {_key(s) for row in rows for s in [row["canonical"], *(row["aliases"] or "").split("|")] if s.strip()}

    def english(key: str) -> bool:
        return all(w in words for w in key.split())

    for name, info in sorted(languages.items(), key=lambda kv: kv[0].casefold()):
        key = _key(name)
        kind = info.get("type")
        if kind != "programming" and key not in FORMATS:
            continue
        if key in taken or key in DROPPED or ("(" in name and key not in FORMATS):
            continue
        if " " not in key and english(key) and key not in WORD_NAMES_KEPT:
            continue
        canonical = name.replace(" (DOT)", "") if key == "graphviz (dot)" else name
        if _key(canonical) in taken:
            continue
        taken.add(_key(canonical))
        aliases = []
        for alias in info.get("aliases") or []:  # type: ignore[attr-defined]
            akey = _key(str(alias))
            if len(akey) >= 3 and not english(akey) and akey not in taken and akey not in DROPPED:
                taken.add(akey)
                aliases.append(str(alias))
        rows.append({"canonical": canonical, "category": "language" if kind == "programming" else "format",
                     "strict": "1", "aliases": "|".join(aliases), "esco": "", "source": "linguist"})  # fmt: skip
    return render_csv(comments, rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("languages", type=Path, help=f"lib/linguist/languages.yml at {LINGUIST_COMMIT}")
    ap.add_argument("words", type=Path, help="/usr/share/dict/american-english (Debian wamerican 2020.12.07-2)")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    languages = yaml.safe_load(_read(args.languages, LANGUAGES_SHA256))
    words = frozenset(_key(w) for w in _read(args.words, WORDS_SHA256).decode("utf-8").splitlines())
    new = build(languages, words)
    return write_or_check(new, check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
