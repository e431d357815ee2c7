"""Abusive requests (issue 15): each answered with a 4xx and one sentence, never a 500; double submits of
undo and corrections are refused (409) instead of applied twice."""

from __future__ import annotations

import pytest

MOVE = {"player": 0, "dice": ["wall", "wall", "log", "head", "swords"], "symbol": "wall", "turned": 0,
        "place": "B1=W C1=W", "logs": 0}


def json_post(table, path: str, body: str, *, pin: bool = True):
    headers = {"Content-Type": "application/json", "X-CSRF-Token": table.token}
    if pin:
        headers["X-Table-Pin"] = table.pin
    return table.client.post(path, data=body, headers=headers)


@pytest.mark.parametrize("body, words", [
    ("[" * 5000 + "]" * 5000, "nested more than"),
    ('{"player": 0, "turned": Infinity}', "not a number JSON allows"),
    ('{"player": 0, "turned": NaN}', "not a number JSON allows"),
    ('{"player": ' + "9" * 5000 + "}", "a number of 5000 characters"),
    ('{"player": 1e999}', "too large a number"),
])
def test_hostile_json_is_a_400_without_pin(game, body: str, words: str):
    for pin in (False, True):
        response = json_post(game, "/move", body, pin=pin)
        assert response.status_code == 400, response.text
        assert words in response.get_json()["error"]


def test_a_byte_order_mark_is_read(game, service):
    response = json_post(game, "/move", "\ufeff" + '{"player": 0, "dice": ["wall", "wall", "log", "head", '
                         '"swords"], "symbol": "wall", "place": "B1=W C1=W"}')
    assert response.status_code == 200, response.text
    assert service.tracker.state.players[0].city[0] == "#WW...#"


def test_a_game_number_beyond_sqlite_is_a_404(game):
    for path in ("/games/99999999999999999999999999", "/games/9223372036854775808", "/games/0"):
        response = game.client.get(path, headers={"Accept": "application/json"})
        assert response.status_code == 404, path


def test_two_undos_of_one_move_take_back_one(game, service):
    tracker = service.tracker
    assert game.post("/move", dict(MOVE), as_json=True).status_code == 200
    second = dict(MOVE, player=1, place="B7=W C7=W")
    assert game.post("/move", second, as_json=True).status_code == 200
    last = tracker.last_move_seq
    first = game.post("/undo", {"event": last}, as_json=True)
    again = game.post("/undo", {"event": last}, as_json=True)  # the same page, the button pressed twice
    assert first.status_code == 200 and again.status_code == 409
    assert "already been taken back" in again.get_json()["error"]
    assert tracker.state.current_player == 1 and tracker.state.players[0].city[0] == "#WW...#"
    assert len(tracker.move_seqs) == 1  # one move taken back, not two


def test_two_corrections_made_on_one_log_the_second_is_refused(game, service):
    tracker = service.tracker
    assert game.post("/move", dict(MOVE), as_json=True).status_code == 200
    seen = tracker.event_count
    one = game.post("/correct", {"player": 0, "cell": "C1", "item": "G", "after": seen}, as_json=True)
    two = game.post("/correct", {"player": 0, "cell": "C1", "item": "c", "after": seen}, as_json=True)
    assert one.status_code == 200, one.text
    assert two.status_code == 409 and "changed since" in two.get_json()["error"]
    corrections = [e for e in service.store.events(tracker.game_id) if e.get("type") == "correction"]
    assert [c["item"] for c in corrections] == ["G"]


def test_the_forms_carry_what_they_change(game, service):
    assert game.post("/move", dict(MOVE), as_json=True).status_code == 200
    page = game.client.get("/").text
    assert f'name="event" value="{service.tracker.last_move_seq}"' in page
    assert f'name="after" value="{service.tracker.event_count}"' in page


def test_wrong_pins_from_many_addresses_hit_a_global_limit(game):
    """400 guesses from 50 loopback addresses used to pass the per-address limit; now the table pauses."""
    from web.security import MAX_FAILURES, MAX_FAILURES_ALL

    statuses = []
    for k in range(50):
        address = f"127.0.{k // 250}.{k % 250 + 1}"
        for _ in range(MAX_FAILURES - 1):  # just under each address's own limit
            response = game.client.post("/undo", json={}, headers={"X-CSRF-Token": game.token,
                                        "X-Table-Pin": "000000"}, environ_base={"REMOTE_ADDR": address})
            statuses.append(response.status_code)
    assert statuses[:MAX_FAILURES_ALL] == [403] * MAX_FAILURES_ALL
    assert set(statuses[MAX_FAILURES_ALL:]) == {429}
    paused = game.client.post("/undo", json={}, headers={"X-CSRF-Token": game.token, "X-Table-Pin": "000000"},
                              environ_base={"REMOTE_ADDR": "10.9.9.9"})
    assert paused.status_code == 429 and "paused" in paused.get_json()["error"]


def test_a_full_disk_is_a_507_and_the_game_is_unchanged(game, service):
    tracker = service.tracker
    db = service.store._db
    db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")
    import random

    from companion.rules import FACES, random_action

    rng = random.Random(5)
    answers = []
    for _ in range(60):  # legal moves until the page is full (each adds a row)
        action = random_action(tracker.state, rng.choices(FACES, k=5), rng).to_json()
        action["place"] = " ".join(f"{p['cell']}={p['item']}" for p in action["place"])
        answers.append(game.post("/move", action, as_json=True))
        if answers[-1].status_code == 507:
            break
    full = [a for a in answers if a.status_code == 507]
    assert full and all(a.status_code in (200, 507) for a in answers)
    message = full[0].get_json()["error"]
    assert "companion.sqlite3: the disk is full" in message and "free some space" in message
    assert tracker.event_count == len(service.store.events(tracker.game_id))  # nothing half-written
    db.execute("PRAGMA max_page_count = 1000000")
    action = random_action(tracker.state, rng.choices(FACES, k=5), rng).to_json()
    action["place"] = " ".join(f"{p['cell']}={p['item']}" for p in action["place"])
    assert game.post("/move", action, as_json=True).status_code == 200
