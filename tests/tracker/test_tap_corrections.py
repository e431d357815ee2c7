"""Corrections as the dashboard's tap-to-correct sends them: the cell changes in the game at once (no hidden
standing rule), an inner wall is refused with the rule, undo names the move and marks it taken back."""

from __future__ import annotations

import pytest

from companion.errors import UserError
from companion.layout import empty_city
from companion.tracker import Tracker, city_cell

from .conftest import draw, observation

START = empty_city()
HEADS = ["head", "head", "cross", "cross", "log"]


def played(store):
    t = Tracker.start_game(store, ["Anke", "Ben"], start_player=0)
    t.enter_move({"player": 0, "dice": HEADS, "symbol": "head", "turned": 0,
                  "place": [{"cell": "D4", "item": "s"}], "logs": 0})
    return t


def test_an_empty_cell_corrected_joins_the_players_last_move_and_changes_now(store):
    t = played(store)
    t.observe(observation([draw(START, [{"cell": "D4", "item": "s"}]), START], []))
    message = t.correct_cell(0, "E5", "c")  # the camera missed nothing: the players add it to the move
    assert city_cell(t.state.players[0].city, "E5") == "c"
    assert "E5" in message and "citizen" in message
    assert t.aliases == {}  # no hidden standing rule: the game itself changed
    assert Tracker(store, t.game_id).state == t.state  # a restart replays the correction


def test_an_inner_wall_is_refused_naming_the_rule_and_nothing_changes(store):
    t = played(store)
    before = t.state
    with pytest.raises(UserError, match="walls are drawn only on the outer spaces"):
        t.correct_cell(0, "D5", "W")
    assert t.state == before and len(store.events(t.game_id)) == 2


def test_a_standing_reading_only_when_asked_and_shown_as_such(store):
    t = played(store)
    misread = draw(START, [{"cell": "D4", "item": "c"}])
    t.observe(observation([misread, START], []))
    t.correct_cell(0, "D4", "s", remember=True)
    assert t.aliases[(0, "D4")] == ("c", "s")
    assert any(e.kind == "note" and "as the players asked" in e.text for e in t.log)
    assert t.snapshot()["players"][0]["readings"] == [{"cell": "D4", "read": "c", "as": "s"}]


def test_undo_names_the_move_and_the_undone_move_is_marked(store):
    t = played(store)
    t.undo()
    assert t.log[-1].kind == "undo" and t.log[-1].text.startswith("Taken back: Anke: head")
    move = next(e for e in t.log if e.kind == "move")
    assert move.undone is True and t.log[-1].action["place"] == [{"cell": "D4", "item": "s"}]
