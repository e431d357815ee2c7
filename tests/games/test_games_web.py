"""The games' pages through Flask's test client: New game chooses the game, entries are events in the
store (a restarted service shows the same score), changes need the PIN and token, bad entries get a 4xx
with one line, Saint Malo's dashboard still works beside them."""

from __future__ import annotations

import json

from web import create_app

from .conftest import Table


def test_new_game_chooses_the_game_and_the_table_page_follows(table):
    response = table.new_game("castles-of-tuscany", ["Anna", "Benno"])
    assert response.status_code == 303
    game_id = int(response.headers["Location"].rsplit("/", 1)[1])
    home = table.client.get("/")
    assert home.status_code == 302 and home.headers["Location"].endswith(f"/play/{game_id}")
    page = table.client.get(f"/play/{game_id}")
    assert page.status_code == 200
    assert "Castles of Tuscany" in page.text and "Score phase 1 of 3" in page.text
    setup = table.client.get("/setup").text
    for name in ("Saint Malo", "Castles of Tuscany", "Dice Settlers"):
        assert name in setup
    games = table.client.get("/games").text
    assert "Castles of Tuscany" in games
    assert table.client.get(f"/games/{game_id}").headers["Location"].endswith(f"/play/{game_id}")


def test_entries_are_kept_in_the_store_and_survive_a_restart(table, tmp_path):
    game_id = table.start("castles-of-tuscany", ["Anna", "Benno"])
    for event in ({"type": "points", "player": 0, "track": "orange", "points": 4},
                  {"type": "points", "player": 0, "track": "green", "points": 9}, {"type": "scoring"}):
        answer = table.ok(game_id, event)
        assert answer["ok"] and "tracks" in answer["html"]
    before = table.state(game_id)["view"]["players"]
    assert (before[0]["green"], before[0]["orange"]) == (9, 13)
    # a second service over the same data directory (a power cut and a restart) replays the same score
    again = create_app({"DATA_DIR": str(tmp_path / "data")})
    try:
        client = again.test_client()
        assert client.get("/").headers["Location"].endswith(f"/play/{game_id}")
        after = client.get(f"/play/{game_id}/state").json["view"]["players"]
        assert after == before
        assert again.extensions["table"].tracker is None  # no Saint Malo tracker on this table
    finally:
        again.extensions["table"].close()


def test_undo_and_its_limits(table):
    game_id = table.start("dice-settlers", ["Anna", "Bruno"])
    assert table.undo(game_id).status_code == 400  # nothing entered yet
    table.ok(game_id, {"type": "tile", "tile": 25, "tents": [3, 1], "house": None})
    table.ok(game_id, {"type": "tile", "tile": 25, "tents": [1, 3], "house": None})
    assert [p["map_tiles"] for p in table.state(game_id)["view"]["score"]["players"]] == [2, 5]
    answer = table.undo(game_id)
    assert answer.status_code == 200 and answer.json["message"] == "Last entry taken back."
    assert [p["map_tiles"] for p in table.state(game_id)["view"]["score"]["players"]] == [5, 2]


def test_the_end_is_stored_as_the_games_tally_and_undo_reopens_it(table, service):
    game_id = table.start("dice-settlers", ["Anna", "Bruno"])
    table.ok(game_id, {"type": "player", "player": 1, "dice_owned": 9})
    answer = table.ok(game_id, {"type": "finish"})
    assert answer["finished"] and "over" in answer["message"]
    stored = {g["id"]: g for g in service.store.list_games()}[game_id]
    assert stored["finished"] and stored["tally"]["winners"] == ["Bruno"]
    assert "Bruno" in table.client.get("/games").text
    table.undo(game_id)
    stored = {g["id"]: g for g in service.store.list_games()}[game_id]
    assert not stored["finished"] and stored["tally"] is None


def test_changes_need_the_pin_and_the_token(table, app, service):
    game_id = table.start("castles-of-tuscany", ["Anna", "Benno"])
    event = {"type": "points", "player": 0, "track": "green", "points": 3}
    phone = Table(app.test_client(), service.pin)  # another phone: it has not given the PIN yet
    assert phone.enter(game_id, event, pin=None).status_code == 403
    assert phone.enter(game_id, event, pin="not-the-pin").status_code == 403
    assert phone.enter(game_id, event, token=None).status_code == 403
    assert table.enter(game_id, event, pin="not-the-pin").status_code == 403  # a PIN sent is always checked
    assert table.enter(game_id, event, token=None).status_code == 403
    assert table.state(game_id)["view"]["players"][0]["green"] == 0
    assert phone.client.post(f"/play/{game_id}/undo", json={}).status_code == 403
    assert "hidden" not in phone.client.get(f"/play/{game_id}").text.split('id="pin-label"')[1][:20]
    # the PIN once per phone session, as on the dashboard: the phone that gave it at New game goes on without
    assert table.enter(game_id, event, pin=None).status_code == 200
    assert phone.enter(game_id, event).status_code == 200
    assert phone.enter(game_id, event, pin=None).status_code == 200
    assert table.state(game_id)["view"]["players"][0]["green"] == 9


def test_bad_entries_answer_4xx_with_one_line(table):
    game_id = table.start("castles-of-tuscany", ["Anna", "Benno"])
    cases = [
        ({"type": "points", "player": 0, "track": "green", "points": "lots"}, 400, "whole number"),
        ({"type": "points", "player": 7, "track": "green", "points": 1}, 400, "player"),
        ({"type": "final", "player": 0, "empty_spaces": 3}, 400, "third scoring phase"),
        ({"type": "start", "players": ["X", "Y"]}, 400, "New game"),
        ({"type": "nonsense"}, 400, "nonsense"),
    ]
    for event, status, words in cases:
        response = table.enter(game_id, event)
        assert response.status_code == status, event
        message = response.json["error"]
        assert words in message and "\n" not in message and "Traceback" not in message
    response = table.client.post(f"/play/{game_id}/event", data="[1, 2]", headers={**table.headers(),
                                 "Content-Type": "application/json"})
    assert response.status_code == 400 and "JSON object" in response.json["error"]
    response = table.client.post(f"/play/{game_id}/event", data='{"type": "points", "player": 0, "track": "green", '
                                 '"points": NaN}', headers={**table.headers(), "Content-Type": "application/json"})
    assert response.status_code == 400 and "\n" not in response.json["error"]
    response = table.client.post(f"/play/{game_id}/event", data="[" * 5000 + "]" * 5000,
                                 headers={**table.headers(), "Content-Type": "application/json"})
    assert response.status_code == 400 and "nested" in response.json["error"]
    response = table.client.post(f"/play/{game_id}/event", data={"type": "scoring"}, headers=table.headers())
    assert response.status_code == 400 and "JSON" in response.get_data(as_text=True)
    assert table.client.get("/play/999").status_code == 404
    assert table.client.get("/play/999/state", headers={"Accept": "application/json"}).status_code == 404
    assert len(table.client.get(f"/play/{game_id}/state").json["view"]["log"]) == 0  # nothing got in


def test_setup_refuses_a_wrong_number_of_players(table):
    response = table.new_game("castles-of-tuscany", ["A", "B", "C", "D", "E"])
    assert response.status_code == 400 and "2 to 4 players" in response.get_data(as_text=True)
    response = table.new_game("go", ["A", "B"])
    assert response.status_code == 400 and "unknown game" in response.get_data(as_text=True).lower()
    response = table.new_game("dice-settlers", ["Anna", "anna"])
    assert response.status_code == 400 and "appears twice" in response.get_data(as_text=True)


def test_a_past_game_is_read_only_and_saint_malo_works_after(table, service):
    first = table.start("castles-of-tuscany", ["Anna", "Benno"])
    table.ok(first, {"type": "points", "player": 1, "track": "green", "points": 6})
    second = table.start("dice-settlers", ["Anna", "Bruno"])
    meta = service.store.meta(first)
    assert meta.get("abandoned") is True
    page = table.client.get(f"/play/{first}")
    assert page.status_code == 200 and "no longer on the table" in page.text
    response = table.enter(first, {"type": "points", "player": 0, "track": "green", "points": 1})
    assert response.status_code == 400 and "no longer the table's game" in response.json["error"]
    # a Saint Malo game: the dashboard is Saint Malo's again, the settlers game set aside
    response = table.client.post("/setup", data={"game": "saint-malo", "player0": "Anke", "player1": "Ben",
                                                 "pin": table.pin, "csrf_token": table.token})
    assert response.status_code == 303
    assert service.tracker is not None and service.tracker.names == ["Anke", "Ben"]
    assert table.client.get("/").status_code == 200
    assert service.store.meta(second).get("abandoned") is True
    assert table.client.get(f"/games/{service.tracker.game_id}").status_code == 200
    # the settlers page still open on a phone hears that the table moved on (its script goes to "/")
    body = table.client.get("/play/events?limit=1").get_data(as_text=True)
    assert json.loads(body.split("data: ", 1)[1].split("\n", 1)[0])["game"] is None


def test_a_saint_malo_game_set_aside_by_another_game(table, service):
    table.client.post("/setup", data={"player0": "Anke", "player1": "Ben", "pin": table.pin,
                                      "csrf_token": table.token})
    malo = service.tracker.game_id
    game_id = table.start("dice-settlers", ["Anna", "Bruno"])
    assert service.tracker is None
    assert service.store.meta(malo).get("abandoned") is True
    response = table.client.post("/undo", data={"pin": table.pin, "csrf_token": table.token})
    assert response.status_code == 400  # no Saint Malo game is running
    assert table.client.get("/").headers["Location"].endswith(f"/play/{game_id}")


def test_server_sent_events_carry_the_panels(table, app):
    game_id = table.start("castles-of-tuscany", ["Anna", "Benno"])
    table.ok(game_id, {"type": "points", "player": 0, "track": "green", "points": 6, "note": "area of 3"})
    response = app.test_client().get("/play/events?limit=1")
    body = response.get_data(as_text=True)
    data = json.loads(body.split("data: ", 1)[1].split("\n", 1)[0])
    assert data["game"] == game_id
    assert set(data["html"]) == {"tracks", "rounds", "end", "log"}
    assert "Anna +6 green (area of 3)" in data["html"]["log"]


def test_a_power_cut_between_the_last_entry_and_the_finished_mark(table, service, tmp_path):
    game_id = table.start("dice-settlers", ["Anna", "Bruno"])
    table.ok(game_id, {"type": "player", "player": 0, "dice_owned": 9})
    service.store.append_event(game_id, {"type": "finish"})  # on disk; the service died before marking the end
    again = create_app({"DATA_DIR": str(tmp_path / "data")})
    try:
        stored = {g["id"]: g for g in again.extensions["table"].store.list_games()}[game_id]
        assert stored["finished"] and stored["tally"]["winners"] == ["Anna"]
    finally:
        again.extensions["table"].close()


def test_resume_a_set_aside_game_from_the_games_list(table, service, tmp_path):
    tuscany = table.start("castles-of-tuscany", ["Anna", "Benno"])
    table.ok(tuscany, {"type": "points", "player": 0, "track": "green", "points": 6})
    settlers = table.start("dice-settlers", ["Anna", "Bruno"])
    assert "Resume this game" in table.client.get("/games").text
    response = table.client.post("/resume", data={"game": str(tuscany), "pin": table.pin, "csrf_token": table.token})
    assert response.status_code == 303 and response.headers["Location"].endswith(f"/play/{tuscany}")
    assert table.client.get("/").headers["Location"].endswith(f"/play/{tuscany}")
    assert service.store.meta(settlers).get("abandoned") is True
    assert not service.store.meta(tuscany).get("abandoned")
    assert table.ok(tuscany, {"type": "points", "player": 0, "track": "green", "points": 3})["ok"]
    assert table.enter(settlers, {"type": "finish"}).status_code == 400  # set aside: read-only
    # Saint Malo resumed over it, then the Tuscan game again: the tracker goes and comes
    table.client.post("/setup", data={"game": "saint-malo", "player0": "Anke", "player1": "Ben",
                                      "pin": table.pin, "csrf_token": table.token})
    malo = service.tracker.game_id
    assert table.client.get("/").status_code == 200
    table.client.post("/resume", data={"game": str(tuscany), "pin": table.pin, "csrf_token": table.token})
    assert service.tracker is None and service.store.meta(malo).get("abandoned") is True
    # a restart keeps the resumed game on the table
    again = create_app({"DATA_DIR": str(tmp_path / "data")})
    try:
        assert again.extensions["table"].tracker is None
        assert again.test_client().get("/").headers["Location"].endswith(f"/play/{tuscany}")
        assert again.test_client().get(f"/play/{tuscany}/state").json["view"]["players"][0]["green"] == 9
    finally:
        again.extensions["table"].close()
    response = table.client.post("/resume", data={"game": str(malo), "pin": table.pin, "csrf_token": table.token})
    assert response.status_code in (200, 303) and service.tracker is not None and service.tracker.game_id == malo
    assert table.client.get("/").status_code == 200
    assert service.store.meta(tuscany).get("abandoned") is True
