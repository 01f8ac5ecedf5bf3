"""ats.extraction.data: a source's dict is the dataclass's fields, less the optional keys
that are unset (values stored before those keys existed keep their exact shape)."""

from __future__ import annotations

import dataclasses
import json

from hypothesis import given
from hypothesis import strategies as st

from ats.extraction.data import Source

_text = st.text(max_size=20)
_opt_text = st.none() | st.text(max_size=10)
_bbox = st.none() | st.tuples(*[st.floats(allow_nan=False, allow_infinity=False, width=32)] * 4)
sources = st.builds(
    Source,
    text=_text,
    rule=_text,
    page=st.none() | st.integers(1, 20),
    bbox=_bbox,
    part=_opt_text,
    index=st.none() | st.integers(0, 500),
    taxonomy_id=_opt_text,
    taxonomy_label=_opt_text,
    placeholder=st.booleans(),
    region=_opt_text,
    region_from=_opt_text,
)


def _reference(s: Source) -> dict:
    """The definition: dataclasses.asdict, bbox as a list, unset optional keys dropped."""
    d = dataclasses.asdict(s)
    d["bbox"] = list(s.bbox) if s.bbox is not None else None
    for key in ("taxonomy_id", "taxonomy_label", "placeholder", "region", "region_from"):
        if not d[key]:
            del d[key]
    return d


@given(sources)
def test_to_dict_is_the_dataclass_less_unset_optional_keys(s: Source) -> None:
    d = s.to_dict()
    assert d == _reference(s)
    assert list(d) == list(_reference(s))  # same key order: stored JSON text unchanged
    assert json.dumps(d) == json.dumps(_reference(s))
    if "" not in (s.taxonomy_id, s.taxonomy_label, s.region, s.region_from):  # "" is stored as unset
        assert Source.from_dict(d) == s


def test_a_skill_source_keeps_its_taxonomy_keys_and_a_plain_one_has_none() -> None:
    skill = Source("k8s", "skills.section", page=1, bbox=(1.0, 2.0, 3.0, 4.0), taxonomy_id="ats:kubernetes",
                   taxonomy_label="Kubernetes")  # fmt: skip
    assert skill.to_dict() == {
        "text": "k8s", "rule": "skills.section", "page": 1, "bbox": [1.0, 2.0, 3.0, 4.0], "part": None,
        "index": None, "taxonomy_id": "ats:kubernetes", "taxonomy_label": "Kubernetes",
    }  # fmt: skip
    assert set(Source("x", "name.top_block").to_dict()) == {"text", "rule", "page", "bbox", "part", "index"}
