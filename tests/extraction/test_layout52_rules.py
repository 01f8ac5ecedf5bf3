"""Change set layout-52 (stop 62), from held-out v21's documents as development: a heading
with a rule typed on its own line, and a labelled skills list that ends with a full stop
(docs/extraction.md, "Change set layout-52"). Invented text in the showing documents'
geometry; each test but the guards fails on the layout before it."""

from __future__ import annotations

from ats.extraction._layout import heading_kind
from ats.extraction._rules import _list_items
from ats.extraction.api import extract
from tests.extraction.answers import Row, styled_answer
from tests.extraction.corpus import AS_OF


def test_a_heading_with_a_rule_typed_after_it_opens_its_section() -> None:
    # yassila (Canva): "Technical Skills -------...-------" on one line, 120 characters
    assert heading_kind("Technical Skills " + "-" * 97) == "skills"
    assert heading_kind("Compétences Techniques " + "-" * 82) == "skills"
    # guard: a long line with a dash in it is no heading
    assert heading_kind("Skills I have used every day at work - " + "and more words " * 5) is None


def test_a_labelled_list_ending_with_a_full_stop_is_still_a_list() -> None:
    # yassila: "Networking: VLAN, VPN, NAT, ACL, OSPF, RIP, firewall configuration, LAN/WAN troubleshooting."
    assert _list_items("Networking: VPN, NAT, OSPF, firewall configuration.") == [
        "VPN",
        "NAT",
        "OSPF",
        "firewall configuration",
    ]
    # guards: a sentence with commas, unlabelled, and a label over two items, stay prose
    assert _list_items("I like Python, Docker, and long walks in the park.") == []
    assert _list_items("Hobbies: hiking, and reading about the sea.") == []


def test_a_canva_cvs_skills_under_a_ruled_heading() -> None:
    rows: list[Row] = [
        ((40, 40, 300, 60), "Amal Benali", 20.0),
        ((40, 70, 560, 82), "Rabat, Morocco | amal.benali@example.org", 10.0),
        ((40, 100, 560, 114), "Technical Skills " + "-" * 97, 12.0),
        ((40, 120, 560, 132), "Networking: VPN, NAT, OSPF, firewall configuration.", 10.0),
        ((40, 136, 560, 148), "IT Support Tools: Jira, Microsoft Office.", 10.0),
    ]
    skills = extract(styled_answer(rows), as_of=AS_OF).values("skills")
    assert {"VPN", "NAT", "OSPF", "firewall configuration", "Jira", "Microsoft Office"} <= set(skills)
