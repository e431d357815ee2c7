"""A close call on the dashboard: "which did you draw?" with two buttons, answered through /api/question
(PIN and CSRF like every change), live on an open page without a reload."""

from __future__ import annotations

from companion.layout import ALL_CELLS, LAYOUT, empty_city
from vision.observation import BoardReading, DieReading, Observation

from .live_server import CHROMIUM_ARGS, PHONE, LiveServer, chromium_or_skip, executable, overflow, shoot

TWO_HEADS = ("head", "head", "wall", "crate", "swords")
ONES = tuple(tuple(1.0 for _ in range(7)) for _ in range(7))


def board(seat: int, doubt: dict[str, float] | None = None) -> BoardReading:
    """An empty city; with ``doubt`` D4 holds a person the camera is unsure of."""
    city = [list(r) for r in empty_city()]
    alternatives = {c: {city[int(c[1]) - 1]["ABCDEFG".index(c[0])]: 1.0} for c in ALL_CELLS
                    if c not in LAYOUT.towers and c not in LAYOUT.printed_crates}
    if doubt:
        alternatives["D4"] = dict(doubt)
        city[3][3] = max(doubt, key=doubt.__getitem__)
    return BoardReading(seat, tuple("".join(r) for r in city), ONES, alternatives=alternatives)


def ask_soldier_or_priest(tracker) -> None:
    dice = tuple(DieReading(f, 1.0) for f in TWO_HEADS)
    tracker.observe(Observation(boards=(board(0), board(1), board(2)), dice=dice))
    tracker.observe(Observation(boards=(board(0, {"s": 0.5, "p": 0.45, ".": 0.02}), board(1), board(2)), dice=dice))
    assert tracker.question is not None


def test_question_route(game, stranger, service):
    assert game.post("/api/question", {"choice": 0}, as_json=True).status_code == 400  # nothing asked
    ask_soldier_or_priest(service.tracker)
    page = game.client.get("/")
    assert 'id="question"' in page.text and "Which did Anke draw?" in page.text
    assert "Soldier (S) D4" in page.text and "Priest (P) D4" in page.text
    seq = service.tracker.question.seq
    # another phone that has not given the PIN, and a post without this page's CSRF token: refused
    assert stranger.post("/api/question", {"choice": 1}, as_json=True, pin=None).status_code == 403
    assert game.post("/api/question", {"choice": 1}, as_json=True, token=None).status_code == 403
    assert game.post("/api/question", {"choice": 2}, as_json=True).status_code == 400
    assert game.post("/api/question", {"choice": 1, "question": seq + 1}, as_json=True).status_code == 409
    assert service.tracker.question is not None and service.tracker.current_player() == 0
    response = game.post("/api/question", {"choice": 1, "question": seq}, as_json=True)
    assert response.status_code == 200, response.json
    assert response.json["message"] == "Recorded: Anke: head ×2 — priest (P) D4"
    assert service.tracker.question is None and service.tracker.current_player() == 1
    assert service.tracker.state.players[0].city[3][3] == "p"
    # a double tap: the question it answered is gone
    assert game.post("/api/question", {"choice": 1, "question": seq}, as_json=True).status_code == 409
    assert 'id="question"' not in game.client.get("/").text


def test_question_answered_live_in_chromium(tmp_path):
    """A close call reaches an open phone page live; a tap without the PIN is refused inline, with it the
    reading is recorded and the question goes away, all without a reload."""
    sync_playwright = chromium_or_skip()
    server = LiveServer(tmp_path / "data")
    try:
        server.service.new_game(["Anke", "Ben", "Carla"])
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=executable(), args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport=PHONE)
                page.set_default_timeout(15_000)
                page.goto(server.url + "/")
                page.locator("#live-state", has_text="live").wait_for()
                page.evaluate("window.__notReloaded = true")
                ask_soldier_or_priest(server.tracker)
                question = page.locator("#question")
                question.wait_for()
                assert question.locator("button.choice").all_inner_texts() == ["Soldier (S) D4", "Priest (P) D4"]
                assert "Which did Anke draw?" in question.inner_text()
                # the cell in doubt is marked on Anke's city
                assert page.locator('svg.city[data-player="0"] g.cell.m-pending[data-cell="D4"]').count() == 1
                assert overflow(page) == 0
                shoot(page, "question-390")
                question.locator("button.choice").nth(1).click()  # no PIN yet: refused inline
                page.locator("#question-form-1 .form-msg.error", has_text="PIN").wait_for()
                assert server.tracker.question is not None
                page.locator("#pin-input").fill(server.pin)
                question.locator("button.choice").nth(1).click()
                page.locator("#question").wait_for(state="detached")
                page.locator("li.ev-move").first.wait_for()
                assert page.evaluate("window.__notReloaded === true"), "the answer came by reloading the page"
                assert server.tracker.state.players[0].city[3][3] == "p"
                assert "Ben" in page.locator("#current-player").inner_text()
            finally:
                browser.close()
    finally:
        server.stop()
