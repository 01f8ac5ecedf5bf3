"""Issue 27 items 3 and 4 in a real browser (Debian's chromium via Playwright, gunicorn):

- a candidate, signed in as nobody, opens the self-identification link `ats selfid link`
  prints, finds "Prefer not to say" chosen, answers, sends, reads a plain confirmation; the
  same link again says the answers are in and that sending again replaces them (without
  showing them: the link may have been forwarded);
- the admin reads `/fairness/` on seeded decisions: per stage, groups in words, the
  four-fifths rule in words, and why small groups are not shown; types in a paper survey
  (confirmed by the person's name; an unknown number records nothing);
- recruiter, hiring manager and operator get the "not allowed" page, not a 500;
- every page: axe finds nothing serious or critical, and nothing scrolls sideways at 390 px
  (nor at 1280).
"""

from __future__ import annotations

import io
from typing import Any

from django.core.management import call_command
from playwright.sync_api import expect

from ats.candidates import api as candidates_api
from ats.devtools import browser as harness
from ats.scoring import api as scoring_api
from ats.selfid.models import SelfIdentification
from tests.selfid.test_fairness import ADMIN, _seed
from tests.web.browser import DESKTOP, MARKS, PHONE, SHOTS, WAIT_MS, follow, login

pytestmark = MARKS


def _fits(page: Any, name: str, width: int) -> None:
    overflow = page.evaluate("document.documentElement.scrollWidth")
    assert overflow <= width, f"{name}: {overflow} px wide at {width} px"


def _open_form(page: Any, link: str) -> None:
    """The candidate's link opened. The page is rendered whole on the server: with its
    heading shown, a refused link would show now - said at once, with what the page says
    (a run once waited 90 s for a form that never came)."""
    page.goto(link)
    expect(page.locator("h1")).to_have_text("Voluntary self-identification")
    assert page.locator("#selfid-invalid").count() == 0, (link, page.locator("main").inner_text())


def _row(section: Any, group: str) -> Any:
    """The report row whose Group cell is exactly `group`."""
    return section.locator("tr", has=section.page.get_by_role("cell", name=group, exact=True))


def _check(page: Any, name: str, axe: dict[str, list[str]]) -> None:
    """axe at both widths and no sideways scrolling at either; a screenshot when asked."""
    for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(size)
        _fits(page, f"{name} ({label})", size["width"])
        axe[f"{name} ({label})"] = harness.axe_violations(page)
        if SHOTS is not None:
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / f"selfid-{name.replace(' ', '-')}-{label}.png"), full_page=True)
    page.set_viewport_size(DESKTOP)


def test_candidate_answers_through_the_link_and_only_the_admin_reads_the_report(
    web: str, chromium: Any, users: dict[str, Any]
) -> None:
    axe: dict[str, list[str]] = {}

    # --- The candidate: nobody signed in, only the signed link.
    out = io.StringIO()
    call_command("selfid", "link", "424242", stdout=out)
    link = out.getvalue().strip()
    assert link.startswith("/self-identification/"), link
    context = chromium.new_context(base_url=web, viewport=DESKTOP)
    context.set_default_timeout(WAIT_MS)
    cand = context.new_page()
    _open_form(cand, link)
    # "Prefer not to say" is what a person who touches nothing sends.
    for field in ("Sex", "Race / ethnicity"):
        select = cand.get_by_label(field)
        assert select.evaluate("s => s.options[s.selectedIndex].text") == "Prefer not to say", field
    expect(cand.locator("main")).to_contain_text("optional")
    _check(cand, "form", axe)
    cand.get_by_label("Sex").select_option(label="Female")
    cand.get_by_label("Race / ethnicity").select_option(label="Asian")
    cand.click("#selfid-submit")
    done = cand.locator("#selfid-done")
    expect(done).to_contain_text("Thank you")
    expect(cand.locator("form")).to_have_count(0)
    _check(cand, "confirmation", axe)

    # The same link again: says the answers are in, offers to change them, never shows them.
    _open_form(cand, link)
    again = cand.locator("#selfid-answered")
    expect(again).to_contain_text("already answered")
    expect(again).to_contain_text("replace")
    for field in ("Sex", "Race / ethnicity"):
        select = cand.get_by_label(field)
        assert select.evaluate("s => s.options[s.selectedIndex].text") == "Prefer not to say", field
    _check(cand, "form again", axe)
    # A link cut short or tampered with: a 404 that says so to the candidate, not a sign-in link.
    assert cand.goto(link[:-3] + "xyz").status == 404
    expect(cand.locator("#selfid-invalid")).to_contain_text("Ask whoever sent it to you for a new one")
    expect(cand.locator("form")).to_have_count(0)
    _check(cand, "bad link", axe)
    context.close()

    # --- The admin: seeded decisions (a four-fifths violation, one small group).
    req = scoring_api.requisition_create(title="Violation", must_have=["Python"], actor=ADMIN)
    _seed(req, "female", advanced=2, rejected=8, score=40)
    _seed(req, "male", advanced=8, rejected=2, score=70)
    _seed(req, "another", advanced=1, rejected=2)
    admin = login(chromium, web, "admin")
    follow(admin, "nav >> text=Fairness")
    expect(admin.locator("h1")).to_contain_text("Fairness")
    main = admin.locator("main")
    screening = admin.locator("section", has=admin.get_by_role("heading", name="Screening", exact=False)).first
    expect(screening).to_contain_text("Sex: Female")
    expect(screening).to_contain_text("Sex: Male")
    # The rule in words, not a boolean; the flagged group named.
    expect(_row(screening, "Sex: Female")).to_contain_text("below four-fifths")
    expect(_row(screening, "Sex: Male")).to_contain_text("meets four-fifths")
    expect(_row(screening, "Sex: Female")).to_contain_text("20%")
    # "Prefer not to say" is counted, never compared: said so, not left blank.
    expect(_row(screening, "Race / ethnicity: Prefer not to say")).to_contain_text("not compared")
    expect(admin.locator("#fairness-low")).to_contain_text("Sex: Female")
    # Why a group is missing.
    expect(screening).to_contain_text("fewer than 5 people")
    expect(screening).not_to_contain_text("Another sex or gender")
    # No raw keys anywhere on the page.
    assert "sex=" not in main.inner_text() and "race=" not in main.inner_text()
    # Later stages are listed with why they are empty.
    expect(main).to_contain_text("No decisions at the interview stage yet")
    _check(admin, "fairness", axe)

    # A paper survey typed in: the confirmation names the person; a wrong number records nothing.
    sam = candidates_api.Candidate.objects.create(display_name="Sam Survey", email="sam.survey@example.org")
    admin.fill("#e-cand", str(sam.pk))
    admin.select_option("#e-sex", label="Male")
    admin.click("text=Record the answers")
    expect(admin.locator(".messages")).to_contain_text("Survey answers recorded for Sam Survey.")
    assert SelfIdentification.objects.filter(candidate_id=sam.pk, source="admin_survey").exists()
    admin.fill("#e-cand", "987654")
    admin.click("text=Record the answers")
    expect(admin.locator(".messages")).to_contain_text("There is no candidate number 987654")
    assert not SelfIdentification.objects.filter(candidate_id=987654).exists()
    _check(admin, "fairness after an entry", axe)

    # --- Everyone else: refused with the ordinary page.
    for role in ("recruiter", "hiring_manager", "operator"):
        page = login(chromium, web, role)
        assert "Fairness" not in page.locator("nav[aria-label=Main]").inner_text(), role
        response = page.goto("/fairness/")
        assert response.status == 403, (role, response.status)
        expect(page.locator("main")).not_to_contain_text("Sex: Female")
        _check(page, f"refused {role}", axe)
        page.context.close()

    assert {k: v for k, v in axe.items() if v} == {}
