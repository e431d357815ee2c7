"""Every route of the dashboard through Flask's test client, with good and bad input."""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest

from companion.layout import empty_city
from vision.observation import BoardReading, DieReading, Observation
from web import create_app
from web.service import TableService

from .conftest import WALL_MOVE, form_move, play_to_the_end


def test_without_a_game_the_table_sends_to_setup(table):
    response = table.client.get("/")
    assert response.status_code == 302 and response.location.endswith("/setup")
    assert table.client.get("/api/state").status_code == 400
    assert "set one up" in table.client.get("/api/state").json["error"]


def test_setup_needs_pin_and_csrf(table, service):
    names = {"player0": "Anke", "player1": "Ben"}
    assert table.post("/setup", names, pin=None).status_code == 403
    assert table.post("/setup", names, pin="000000" if service.pin != "000000" else "111111").status_code == 403
    assert table.post("/setup", names, token=None).status_code == 403
    assert table.post("/setup", names, token="forged").status_code == 403
    assert service.tracker is None
    response = table.post("/setup", {**names, "start_player": "2", "language": "it", "seat0": "3", "seat1": "1"})
    assert response.status_code == 303
    tracker = service.tracker
    assert tracker.names == ["Anke", "Ben"] and tracker.seats == [3, 1] and tracker.language == "it"
    assert tracker.current_player() == 1


@pytest.mark.parametrize(("fields", "words"), [
    ({"player0": "Solo"}, "2 to 5 players"),
    ({"player0": "A", "player1": "A"}, "different"),
    ({"player0": "A", "player1": "B", "start_player": "3"}, "tart player must be between 1 and 2"),
    ({"player0": "A", "player1": "B", "start_player": "x"}, "whole number"),
    ({"player0": "A", "player1": "B", "language": "de"}, "language"),
    ({"player0": "A", "player1": "B", "camera": "/etc/passwd"}, "camera"),
    ({"player0": "A", "player1": "B", "seat0": "1", "seat1": "1"}, "eats must be different"),
    ({"player0": "A" * 40, "player1": "B"}, "too long"),
])
def test_setup_bad_input_is_a_400_naming_the_problem(table, service, fields, words):
    response = table.post("/setup", fields)
    assert response.status_code == 400
    assert words.lower() in response.text.lower()
    assert "Traceback" not in response.text
    assert service.tracker is None


def test_dashboard_draws_every_city_and_the_panels(game, service):
    page = game.client.get("/")
    assert page.status_code == 200
    assert page.text.count('<svg class="city') == 3
    for panel in ("status", "table", "pirates", "dice", "log", "tally"):
        assert f'data-panel="{panel}"' in page.text
    assert "Turn: <span id=\"current-player\">Anke" in page.text
    assert page.text.count('class="box') == 6 * 10  # six rows of ten boxes, as on the main board
    assert page.text.count('class="box unused"') == 6 * 4  # 2 x 3 players in use per row
    for header in ("Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy"):
        assert header in page.headers


def test_move_by_hand_form_and_json(game, service):
    response = game.post("/move", form_move())
    assert response.status_code == 303
    assert service.tracker.state.players[0].city[0] == "#WW...#"
    page = game.client.get("/")
    assert "Move recorded." in page.text and "wall ×2" in page.text
    move = {"player": 1, "dice": ["crate", "crate", "log", "head", "swords"], "symbol": "crate",
            "place": [{"cell": "D4", "item": "G"}, {"cell": "D5", "item": "G"}]}
    response = game.post("/move", move, as_json=True)
    assert response.status_code == 200 and response.json["legal"] is True
    state = game.client.get("/api/state").json
    assert state["current_player"] == 2 and state["pirate_boxes"] == 2
    assert [e["kind"] for e in state["log"]][-2:] == ["move", "move"]


@pytest.mark.parametrize(("change", "status", "words"), [
    ({"symbol": "wall", "place": "D4=W"}, 400, "outer"),
    ({"die0": "dragon"}, 400, "unknown die face"),
    ({"symbol": "gold"}, 400, "unknown symbol"),
    ({"place": "B1 is a wall"}, 400, "CELL=ITEM"),
    ({"place": "B1=Q"}, 400, "item"),
    ({"place": "Z9=W"}, 400, "CELL=ITEM"),
    ({"turned": "9"}, 400, "turned"),
    ({"player": "2"}, 400, "turn"),
])
def test_move_bad_input(game, service, change, status, words):
    response = game.post("/move", form_move(**change))
    assert response.status_code == status, response.text
    assert words.lower() in response.text.lower()
    assert service.tracker.current_player() == 0


def test_move_refused_without_pin_or_token(game, service, stranger):
    data = form_move()
    assert stranger.post("/move", data, pin=None).status_code == 403
    assert game.post("/move", data, token=None).status_code == 403
    assert stranger.post("/move", {**WALL_MOVE, "dice": WALL_MOVE["dice"]}, as_json=True, pin=None).status_code == 403
    assert service.tracker.current_player() == 0 and service.tracker.log[-1].kind == "start"


def test_illegal_move_overridden_with_a_reason(game, service):
    response = game.post("/move", form_move(place="D4=W", override_reason="house rule"))
    assert response.status_code == 303
    assert service.tracker.log[-1].kind == "override"


def test_correction_route(game, service, stranger):
    game.post("/move", form_move(symbol="head", place="D4=c",
                                 **{f"die{i}": d for i, d in enumerate(["head", "head", "log", "cross", "swords"])}))
    assert service.tracker.state.players[0].vp == 1
    assert stranger.post("/correct", {"player": "0", "cell": "D4", "item": "s"}, pin=None).status_code == 403
    response = game.post("/correct", {"player": "0", "cell": "d4", "item": "s", "reason": "a soldier"})
    assert response.status_code == 303
    assert service.tracker.state.players[0].vp == 0 and service.tracker.state.players[0].defence == 1
    for bad in ({"player": "0", "cell": "", "item": "s"}, {"player": "0", "cell": "A1", "item": "s"},
                {"player": "0", "cell": "D4", "item": "zz"}, {"player": "9", "cell": "D4", "item": "s"}):
        assert game.post("/correct", bad).status_code == 400


def test_dispute_and_override_route(game, service, stranger):
    assert game.post("/override", {"reason": "x"}).status_code == 400  # nothing to override
    start = empty_city()
    bad = list(start)
    bad[3] = bad[3][:3] + "W" + bad[3][4:]
    ones = tuple(tuple(1.0 for _ in range(7)) for _ in range(7))
    dice = tuple(DieReading(f, 1.0) for f in ("wall", "log", "log", "head", "swords"))
    service.tracker.observe(Observation(boards=(BoardReading(0, tuple(start), ones),), dice=dice))
    service.tracker.observe(Observation(boards=(BoardReading(0, tuple(bad), ones),), dice=dice))
    page = game.client.get("/")
    assert "This drawing breaks a rule" in page.text and 'id="override-form"' in page.text
    assert "walls go only in the outer (dark) spaces" in page.text  # the plain words ...
    assert '<details class="rule-ids">' in page.text and "wall.outer_only" in page.text  # ... the id in details
    assert game.post("/override", {"reason": ""}).status_code == 400
    assert stranger.post("/override", {"reason": "agreed"}, pin=None).status_code == 403
    assert game.post("/override", {"reason": "agreed"}).status_code == 303
    assert service.tracker.dispute is None and service.tracker.current_player() == 1


def test_undo_route(game, service, stranger):
    assert game.post("/undo").status_code == 400
    game.post("/move", form_move())
    assert stranger.post("/undo", pin=None).status_code == 403
    assert game.post("/undo").status_code == 303
    assert service.tracker.current_player() == 0 and service.tracker.log[-1].kind == "undo"


def test_finished_game_shows_the_tally_and_is_listed(game, service):
    tracker = service.tracker
    play_to_the_end(tracker)
    page = game.client.get("/")
    assert "Final tally" in page.text and "Winner" in page.text
    for name in tracker.tally["winners"]:
        assert name in page.text
    listing = game.client.get("/games")
    assert listing.status_code == 200 and f"Game {tracker.game_id}" in listing.text
    assert "Winner" in listing.text
    detail = game.client.get(f"/games/{tracker.game_id}")
    assert detail.status_code == 200 and "Final tally" in detail.text
    assert str(tracker.tally["players"][0]["total"]) in detail.text
    assert game.client.get("/games/999").status_code == 404
    assert game.client.get("/games/abc").status_code == 404
    # a move after the end is refused
    assert game.post("/move", {**WALL_MOVE, "dice": WALL_MOVE["dice"]}, as_json=True).status_code == 400


def test_new_game_sets_the_old_one_aside(game, service):
    first = service.tracker.game_id
    assert game.new_game(["Dora", "Emil"]).status_code == 303
    assert service.tracker.game_id != first
    listing = game.client.get("/games").text
    assert "set aside" in listing and "in progress" in listing


def test_sse_stream_sends_the_panels_and_every_change(game, service):
    response = game.client.get("/events?limit=2", buffered=False)
    assert response.mimetype == "text/event-stream"
    chunks = response.response
    assert next(chunks).startswith(b"retry:")
    first = json.loads(next(chunks).decode().split("data: ", 1)[1])
    assert set(first["html"]) >= {"status", "table", "pirates", "dice", "log", "tally"}
    threading.Timer(0.2, lambda: service.tracker.enter_move(
        {**WALL_MOVE, "place": [{"cell": "B1", "item": "W"}]})).start()
    started = time.monotonic()
    second = next(c for c in chunks if c.startswith(b"event: state"))
    assert time.monotonic() - started < 5
    data = json.loads(second.decode().split("data: ", 1)[1])
    assert data["version"] > first["version"] and data["turn"] == 1
    assert "wall ×1" in data["html"]["log"]
    response.close()


def test_camera_view(game, service):
    assert game.client.get("/camera").status_code == 200
    assert game.client.get("/camera.jpg").status_code == 503
    frame = np.full((480, 640, 3), 200, np.uint8)
    city = list(empty_city())
    board = BoardReading(0, tuple(city), tuple(tuple(1.0 for _ in range(7)) for _ in range(7)), ("D4",),
                         ((100.0, 50.0), (400.0, 60.0), (390.0, 360.0), (90.0, 350.0)))
    service.last_frame = frame
    dice = (DieReading("head", 0.9, (50.0, 40.0), in_frame=(520.0, 400.0)),
            DieReading("cross", 0.4, (90.0, 40.0), in_frame=(580.0, 400.0)))
    service.last_observation = Observation(boards=(board,), dice=dice, pirate_boxes=3)
    service.frame_counter += 1
    response = game.client.get("/camera.jpg")
    assert response.status_code == 200 and response.mimetype == "image/jpeg"
    assert response.data[:2] == b"\xff\xd8"
    import cv2

    image = cv2.imdecode(np.frombuffer(response.data, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape == frame.shape
    assert (np.abs(image.astype(int) - 200).sum(axis=2) > 60).sum() > 500  # the overlay is drawn
    # Each die ringed where it lies in the picture: the sure one in blue, the doubtful one in orange.
    sure, doubtful = image[400, 520 - 26], image[400, 580 + 26]
    assert sure[0] > 150 and sure[2] < 120, sure
    assert doubtful[2] > 150 and doubtful[0] < 120, doubtful


def test_errors_are_one_sentence_and_nothing_outside_the_app_is_served(game):
    c = game.client
    for path in ("/nope", "/static/../serve.py", "/static/%2e%2e/serve.py", "/static/../../companion/store.py"):
        response = c.get(path)
        assert response.status_code == 404, path
        assert "Traceback" not in response.text
    assert c.get("/move").status_code == 405
    assert c.post("/move", data="x" * 100_000, content_type="text/plain").status_code == 413
    response = c.post("/move", data="[1, 2]", content_type="application/json",
                      headers={"X-CSRF-Token": game.token, "X-Table-Pin": game.pin})
    assert response.status_code == 400 and response.json == {"error": "The request body must be a JSON object."}
    assert c.get("/static/app.css").status_code == 200
    assert c.get("/healthz").json["ok"] is True


def test_wrong_pins_are_limited(game, service):
    wrong = "000000" if service.pin != "000000" else "111111"
    codes = [game.post("/undo", pin=wrong).status_code for _ in range(10)]
    assert codes[:8] == [403] * 8 and codes[8:] == [429, 429]
    assert game.post("/undo").status_code == 429  # even the right PIN waits


def test_pin_and_game_survive_a_restart(tmp_path):
    first = TableService(str(tmp_path))
    first.new_game(["Anke", "Ben"])
    first.tracker.enter_move({**WALL_MOVE, "place": [{"cell": "B1", "item": "W"}]})
    pin, state = first.pin, first.tracker.state.to_json()
    first.close()
    app = create_app({"DATA_DIR": str(tmp_path)})
    again = app.extensions["table"]
    assert again.pin == pin and len(pin) == 6 and pin.isdigit()
    assert again.tracker.state.to_json() == state
    again.close()


def test_setup_switches_the_camera(table, service):
    response = table.new_game(["Anke", "Ben"], camera="opencv:9")
    assert response.status_code == 303
    loop = service.camera_loop
    assert loop is not None and loop.is_alive() and service.camera_spec == "opencv:9"
    assert service.tracker.settle_seconds > 0  # with a camera, drawings settle before they are judged
    deadline = time.monotonic() + 10
    while service.camera_status not in ("missing", "reconnecting") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert service.camera_status in ("missing", "reconnecting")  # no such device here
    assert "Camera: " + service.camera_status in table.client.get("/").text
    assert table.new_game(["Anke", "Ben"], camera="none").status_code == 303
    assert service.camera_loop is None and not loop.is_alive() and service.camera_status == "off"


def test_a_finished_game_is_shown_after_a_restart(game, service, tmp_path):
    play_to_the_end(service.tracker)
    finished = service.tracker.game_id
    data_dir = service.store.path.parent
    again = TableService(str(data_dir))
    try:
        assert again.tracker is not None and again.tracker.game_id == finished and again.tracker.finished
        assert again.tracker.tally == service.tracker.tally
    finally:
        again.close()


def test_live_pages_are_capped(game, app, service):
    app.config["MAX_LIVE_PAGES"] = 1
    first = game.client.get("/events?limit=3", buffered=False)
    next(first.response)  # the stream is open
    next(first.response)
    assert service.hub.clients == 1
    refused = game.client.get("/events?limit=1")
    assert refused.status_code == 503 and "Too many live pages" in refused.text
    first.close()


@pytest.mark.parametrize("path", ["/setup", "/move", "/correct", "/override", "/undo"])
@pytest.mark.parametrize("body", [
    {"players": "Anke"}, {"players": [1, None]}, {"player": [0]}, {"dice": "wall"}, {"dice": [1, 2, 3, 4, 5]},
    {"place": [{"cell": 5, "item": None}]}, {"place": [[1]]}, {"symbol": 7}, {"cell": ["D4"]}, {"reason": {"a": 1}},
    {"turned": -1}, {"logs": "many"}, {"seats": ["x", "y"]}, {"start_player": None},
])
def test_garbage_json_is_a_4xx_never_a_crash(game, service, path, body):
    response = game.post(path, body, as_json=True)
    assert 400 <= response.status_code < 500, (path, body, response.json)
    assert set(response.json) in ({"error"}, {"ok", "message", "game"}, {"ok", "message", "legal"}, {"ok", "message"})
