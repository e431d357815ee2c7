"""End to end in headless Chromium: the demo table plays, a move appears live on the open page, a
correction without the PIN is refused and with it goes through.

Needs Debian's Chromium (/usr/bin/chromium) and the playwright package. Under CI=true a missing browser
is a failure; elsewhere the test skips with the reason.
"""

from __future__ import annotations

import os
import shutil

import pytest

from .service_process import ServiceProcess

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


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


def _a_drawn_cell(state):
    """A cell some player has drawn (to correct it to what it is), else an empty one of player 0."""
    printed = {"B2", "C2", "B3", "B4"}
    for p in state["players"]:
        for r, row in enumerate(p["city"]):
            for c, ch in enumerate(row):
                cell = f"{'ABCDEFG'[c]}{r + 1}"
                if ch not in ".#" and cell not in printed:
                    return p["index"], cell, ch
    return 0, "D4", "."


def test_demo_live_update_and_pin_protected_correction(tmp_path):
    sync_playwright = _browser_or_skip()
    service = ServiceProcess(tmp_path / "data", demo=True,
                             env={"COMPANION_DEMO_PACE": "0.2", "COMPANION_DEMO_SEED": "7"})
    try:
        import time

        deadline = time.monotonic() + 60
        while service.get_json("/healthz")["game"] is None:
            assert time.monotonic() < deadline, "the demo did not start a game"
            time.sleep(0.2)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM if os.path.exists(CHROMIUM)
                                         else shutil.which("chromium"), args=ARGS)
            try:
                page = browser.new_page(viewport={"width": 412, "height": 900})  # a phone
                page.goto(service.url + "/")
                page.evaluate("window.__notReloaded = true")
                moves_at_load = page.locator("li.ev-move").count()
                # the page's own CSP forbids eval, so wait on a locator, not a JS predicate
                page.locator("li.ev-move").nth(moves_at_load).wait_for(timeout=90_000)
                assert page.evaluate("window.__notReloaded === true"), "the move came by reloading the page"
                assert "live" in page.locator("#live-state").inner_text()
                assert page.locator("svg.city").count() == 3

                player, cell, item = _a_drawn_cell(service.get_json("/api/state"))
                form = page.locator("#correct-form")
                form.locator("select[name=player]").select_option(str(player))
                form.locator("input[name=cell]").fill(cell)
                form.locator("input[name=item]").fill(item)
                form.locator("button").click()
                page.wait_for_load_state()
                assert "needs the table PIN" in page.content()
                corrections = [e for e in service.get_json("/api/state")["log"] if e["kind"] in ("correction", "note")
                               and cell in e["text"]]
                assert corrections == []

                page.goto(service.url + "/")
                form = page.locator("#correct-form")
                form.locator("select[name=player]").select_option(str(player))
                form.locator("input[name=cell]").fill(cell)
                form.locator("input[name=item]").fill(item)
                form.locator("input[name=pin]").fill(service.pin)
                form.locator("button").click()
                page.wait_for_load_state()
                assert f"Cell {cell} corrected." in page.content()
                log = service.get_json("/api/state")["log"]
                assert any(e["kind"] in ("correction", "note") and cell in e["text"] for e in log)
            finally:
                browser.close()
    finally:
        service.stop()
