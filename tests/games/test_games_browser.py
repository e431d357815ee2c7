"""Each game's page in headless Chromium at phone size (390x844): the table chooses the game at New game,
score entry updates the page without a reload, a second phone follows live, nothing overflows sideways.
Screenshots go to tmp/screenshots/ (git-ignored; COMPANION_SCREENSHOTS elsewhere) to be looked at.

Needs Debian's Chromium (/usr/bin/chromium) and the playwright package. Under CI=true a missing browser
is a failure; elsewhere the test skips with the reason.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
PHONE = {"width": 390, "height": 844}
SHOTS = Path(os.environ.get("COMPANION_SCREENSHOTS", Path(__file__).resolve().parents[2] / "tmp" / "screenshots"))


def _browser_or_skip():
    problem = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        problem, sync_playwright = "the playwright package is not installed", None
    if problem is None and not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        problem = "Chromium is not installed (apt-get install chromium)"
    if problem:
        if os.environ.get("CI") == "true":
            pytest.fail(f"browser test cannot run under CI: {problem}")
        pytest.skip(problem)
    return sync_playwright


@pytest.fixture
def browser():
    sync_playwright = _browser_or_skip()
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM if os.path.exists(CHROMIUM)
                                      else shutil.which("chromium"), args=ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def phone(browser):
    page = browser.new_page(viewport=PHONE, device_scale_factor=1)
    page.on("dialog", lambda dialog: dialog.accept())
    return page


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def no_sideways_scroll(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide on a {PHONE['width']} px phone"


def new_game(page, url: str, pin: str, game: str, names: list[str]) -> None:
    page.goto(url + "/setup")
    page.select_option("select[name=game]", game)
    for i, name in enumerate(names):
        page.fill(f"input[name=player{i}]", name)
    page.fill("#setup-form input[name=pin]", pin)
    page.click("#setup-form button")
    page.wait_for_url("**/play/*")


def wait_text(locator, text: str) -> None:
    # the page's CSP forbids eval, so wait on the element, not on a JS predicate
    locator.filter(has_text=text).wait_for(timeout=10_000)


def test_castles_of_tuscany_page_on_a_phone(browser, live_server, service):
    page = phone(browser)
    new_game(page, live_server, service.pin, "castles-of-tuscany", ["Anna", "Benno"])
    no_sideways_scroll(page)
    shot(page, "castles_of_tuscany_start")
    game_url = page.url
    other = phone(browser)  # a second phone at the table, only watching
    other.goto(game_url)
    for p in (page, other):
        p.evaluate("window.__notReloaded = true")
    # the PIN was given at New game on this phone: not asked again; the other phone is asked
    assert page.locator("#pin-label").is_hidden() and other.locator("#pin-label").is_visible()

    anna = page.locator(".g-player[data-player='0']")
    orange = anna.locator("[data-track=orange]")
    green = anna.locator("[data-track=green]")
    # the rulebook's Anna: two trade cards (+2 orange each), green 9, then the first scoring phase
    anna.locator("button.g-add-orange", has_text="+2").click()
    wait_text(orange, "2")
    anna.locator("button.g-add-orange", has_text="+2").click()
    wait_text(orange, "4")
    anna.locator("input[name=points]").fill("9")
    anna.locator("button[value=green]").click()
    wait_text(green, "9")
    page.locator("button.g-score").click()
    wait_text(orange, "13")
    wait_text(other.locator(".g-player[data-player='0'] [data-track=orange]"), "13")  # the other phone, live
    # round 2: a trade card +2 orange, green up to 22, the second phase: 13 + 2 + 22 = 37
    anna.locator("button.g-add-orange", has_text="+2").click()
    wait_text(orange, "15")
    anna.locator("input[name=points]").fill("13")
    anna.locator("button[value=green]").click()
    wait_text(green, "22")
    page.locator("button.g-score").click()
    wait_text(orange, "37")
    assert "13" in page.locator(".g-rounds").inner_text() and "37" in page.locator(".g-rounds").inner_text()
    # undo takes the second phase back, and it is scored again
    page.click("#undo")
    wait_text(orange, "15")
    page.locator("button.g-score").click()
    wait_text(orange, "37")
    benno = page.locator(".g-player[data-player='1']")
    for _ in range(3):
        benno.locator("button.g-add-green", has_text="+6").click()
    wait_text(benno.locator("[data-track=green]"), "18")
    shot(page, "castles_of_tuscany_round3")
    no_sideways_scroll(page)
    # on the other phone: no PIN, then a wrong one, are refused in one line and nothing changes; the right one
    # goes through and is not asked again
    other_benno = other.locator(".g-player[data-player='1']")
    other_benno.locator("button.g-add-green", has_text="+1").click()
    wait_text(other.locator("#game-msg"), "needs the table PIN")
    other.fill("#table-pin", "000000" if service.pin != "000000" else "111111")
    other_benno.locator("button.g-add-green", has_text="+1").click()
    wait_text(other.locator("#game-msg"), "Wrong table PIN")
    assert other_benno.locator("[data-track=green]").inner_text() == "18"
    other.fill("#table-pin", service.pin)
    other_benno.locator("button.g-add-green", has_text="+1").click()
    wait_text(benno.locator("[data-track=green]"), "19")  # and this phone sees it live
    other.locator("#pin-label").wait_for(state="hidden")
    other_benno.locator("button.g-add-green", has_text="+1").click()
    wait_text(other_benno.locator("[data-track=green]"), "20")
    page.click("#undo")
    page.click("#undo")
    wait_text(benno.locator("[data-track=green]"), "18")
    page.locator("button.g-score").click()
    wait_text(page.locator(".g-panel-end"), "Waiting for")
    def fill_final(on, index, values):
        form = on.locator(f".g-final >> nth={index}")
        for key, value in values.items():
            name = key if key == "empty_spaces" else f"leftovers.{key}"
            form.locator(f"input[name='{name}']").fill(value)
        return form

    # this phone starts typing Benno's count while the other phone saves Anna's: the panel updates when the
    # field is left, and what was typed stays
    fill_final(page, 1, {"wooden_hexes": "1", "cards_in_hand": "10"})
    other_form = fill_final(other, 0, {"hex_tiles": "1", "marble": "2", "workers": "1", "cards_in_hand": "7",
                                       "empty_spaces": "6"})
    other_form.locator("button").click()
    wait_text(other.locator(".g-final >> nth=0").locator(".g-badge"), "5 VP")
    page.locator(".g-panel-end h2").click()  # the field is left
    wait_text(page.locator(".g-final >> nth=0").locator(".g-badge"), "5 VP")
    benno_form = page.locator(".g-final >> nth=1")
    assert benno_form.locator("input[name='leftovers.cards_in_hand']").input_value() == "10"
    assert benno_form.locator("input[name='leftovers.wooden_hexes']").input_value() == "1"
    benno_form.locator("input[name=empty_spaces]").fill("2")
    benno_form.locator("button").click()
    wait_text(page.locator("#why"), "wins")
    # Anna: phase 3 adds her green 22 again: 37 + 22 = 59, + 1 tile + 2 marble + 1 worker + 1 (7 cards) = 64
    assert page.locator("td[data-total=Anna]").inner_text() == "64"
    assert page.locator("td[data-total=Benno]").inner_text() == str(18 + 1 + 2)  # green 18 scored once
    assert "Anna wins" in page.locator("#why").inner_text()
    wait_text(other.locator("#why"), "Anna wins")
    for p in (page, other):
        assert p.evaluate("window.__notReloaded === true"), "an update came by reloading the page"
    no_sideways_scroll(page)
    shot(page, "castles_of_tuscany_final")


def test_dice_settlers_page_on_a_phone(browser, live_server, service):
    page = phone(browser)
    new_game(page, live_server, service.pin, "dice-settlers", ["Nero", "Blu"])
    no_sideways_scroll(page)
    shot(page, "dice_settlers_start")
    page.evaluate("window.__notReloaded = true")
    pad = page.locator(".g-pad")
    # the rulebook's first example: tile 25, Black 3 tents, Blue 1 -> Black 5, Blue 2
    add = page.locator("form.g-add-tile")
    add.locator("select[name=tile]").select_option("25")
    add.locator("input[name='tents[]'] >> nth=0").fill("3")
    add.locator("input[name='tents[]'] >> nth=1").fill("1")
    add.locator("button").click()
    wait_text(page.locator(".g-tile .g-why"), "Nero controls, 5")
    assert pad.locator("td[data-row=map_tiles] >> nth=0").inner_text() == "5"
    assert pad.locator("td[data-row=map_tiles] >> nth=1").inner_text() == "2"
    # a technology card with both markers, then dice and tokens for Nero
    tech = page.locator("form.g-add-tech")
    tech.locator("input[name=name]").fill("Prosperità")
    tech.locator("input[name=vp]").fill("4")
    tech.locator("input[name='markers[]'] >> nth=0").check()
    tech.locator("input[name='markers[]'] >> nth=1").check()
    tech.locator("button").click()
    wait_text(page.locator("form.g-tech h3"), "Prosperità")
    nero = page.locator("form.g-settler >> nth=0")
    nero.locator("input[name=dice_owned]").fill("9")
    nero.locator("input[name=vp_tokens]").fill("17")
    nero.locator("button").click()
    wait_text(pad.locator("td[data-total=Nero]"), "38")  # 5 + 4 + 12 + 0 + 17
    assert pad.locator("td[data-total=Blu]").inner_text() == str(2 + 4 + 6)  # 5 starting dice -> 6
    no_sideways_scroll(page)
    shot(page, "dice_settlers_entries")
    page.locator("button.g-score").click()  # the game is over
    wait_text(page.locator("#why"), "Nero wins with 38 VP")
    assert page.locator("form.g-add-tile").count() == 0
    assert page.evaluate("window.__notReloaded === true"), "an update came by reloading the page"
    no_sideways_scroll(page)
    shot(page, "dice_settlers_final")
