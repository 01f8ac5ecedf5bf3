"""Regenerate shared/ats/extraction/countries.csv: every country's name in the languages the
corpus's CVs are written in, from the names phonenumbers ships for its geocoder
(phonenumbers/geodata/locale.py, Apache-2.0).

Run: /opt/ats/venv/bin/python scripts/country_names.py > shared/ats/extraction/countries.csv
(tests/extraction/test_country_names.py fails when the file is out of date with the
installed phonenumbers.) The extractor reads the file, not phonenumbers' geodata package:
importing that package loads every geocoding table (~90 MB, ~0.8 s) into each worker.
"""

from __future__ import annotations

import sys

# tr, ru, zh, ja, ko: layout-30 (Turkish, Russian and East Asian CVs name their country in their language)
LANGUAGES = (
    "en",
    "de",
    "fr",
    "es",
    "it",
    "pt",
    "nl",
    "pl",
    "sv",
    "da",
    "fi",
    "cs",
    "ro",
    "hu",
    "tr",
    "ru",
    "zh",
    "ja",
    "ko",
)


def rows() -> list[tuple[str, str]]:
    """(region, name) for each distinct name, sorted."""
    from phonenumbers.geodata.locale import LOCALE_DATA

    out: set[tuple[str, str]] = set()
    for region, names in LOCALE_DATA.items():
        if len(region) != 2 or not region.isalpha():
            continue
        for language in LANGUAGES:
            name = names.get(language, "")
            for _ in range(3):  # "*aa": the same name as another language's
                if name.startswith("*"):
                    name = names.get(name[1:], "")
            if name and not any(ch in name for ch in ",()*"):
                out.add((region, name))
    return sorted(out)


def render() -> str:
    import phonenumbers

    lines = [
        "# Country names for place detection and phone regions (ats.extraction._lexicon).",
        f"# version: phonenumbers {phonenumbers.__version__} geodata/locale.py, languages {' '.join(LANGUAGES)}",
        "# licence: Apache-2.0 (phonenumbers); regenerate with scripts/country_names.py",
        "region,name",
    ]
    lines += [f"{region},{name}" for region, name in rows()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
