"""Illegal drawings become disputes naming the broken rule; the board fixed, an override or a hand
correction settles them; a misread cell corrected by hand replays the game correctly."""

from __future__ import annotations

import pytest

from companion.errors import UserError
from companion.layout import empty_city
from companion.tracker import Tracker

from .conftest import draw, observation

START = empty_city()
WALLS = ["wall", "wall", "crate", "head", "swords"]


def new_tracker(store, **kw):
    return Tracker.start_game(store, ["Anke", "Ben"], start_player=0, **kw)


def test_illegal_drawing_becomes_dispute_then_fixed_on_the_board(store):
    t = new_tracker(store)
    t.observe(observation([START, START], WALLS))
    bad = draw(START, [{"cell": "B1", "item": "W"}, {"cell": "D4", "item": "W"}])
    t.observe(observation([bad, START], WALLS))
    assert t.dispute is not None
    assert [e["rule"] for e in t.dispute.errors] == ["wall.outer_only"]
    assert "D4" in t.dispute.cells and "B1" not in t.dispute.cells
    assert t.current_player() == 0 and t.state.players[0].city == START  # nothing applied
    snap = t.snapshot()
    assert snap["dispute"]["errors"][0]["rule"] == "wall.outer_only"
    # the player erases D4 and draws the wall on C1: legal, applied, dispute closed
    fixed = draw(START, [{"cell": "B1", "item": "W"}, {"cell": "C1", "item": "W"}])
    t.observe(observation([fixed, START], WALLS))
    assert t.dispute is None
    assert t.state.players[0].city == fixed
    assert t.current_player() == 1 and t.state.pirate_boxes == 1
    kinds = [e["type"] for e in store.events(t.game_id)]
    assert kinds == ["start", "dispute", "resolved", "move"]
    assert [e.kind for e in t.log][-3:] == ["dispute", "resolved", "move"]
    # the dispute survives in the log of a restarted tracker, closed
    again = Tracker(store, t.game_id)
    assert again.dispute is None and again.state == t.state


def test_open_dispute_survives_restart_and_override_applies_it(store):
    t = new_tracker(store)
    t.observe(observation([START, START], ["crate", "crate", "log", "head", "swords"]))
    apart = draw(START, [{"cell": "E5", "item": "G"}, {"cell": "A5", "item": "G"}])
    t.observe(observation([apart, START], ["crate", "crate", "log", "head", "swords"]))
    assert [e["rule"] for e in t.dispute.errors] == ["crate.connected"]
    again = Tracker(store, t.game_id)
    assert again.dispute is not None and again.dispute.errors == t.dispute.errors
    with pytest.raises(UserError):
        again.override_dispute("   ")
    again.override_dispute("we play it as drawn")
    assert again.dispute is None
    assert again.state.players[0].city == apart and again.current_player() == 1
    assert again.log[-1].kind == "override" and "we play it as drawn" in again.log[-1].text
    assert [r["rule"] for r in again.log[-1].reasons] == ["crate.connected"]


def test_misread_cell_corrected_by_hand_replays_correctly(store):
    t = new_tracker(store)
    dice = ["head", "head", "cross", "cross", "log"]
    t.observe(observation([START, START], dice))
    soldier = draw(START, [{"cell": "D4", "item": "s"}])
    misread = draw(START, [{"cell": "D4", "item": "c"}])
    t.observe(observation([misread, START], dice))
    # the camera saw a citizen: legal, +1 VP
    assert t.dispute is None and t.state.players[0].vp == 1 and t.state.players[0].defence == 0
    # Ben's turn follows on the camera
    t.observe(observation([misread, START], []))
    ben_dice = ["crate", "crate", "crate", "wall", "head"]
    t.observe(observation([misread, START], ben_dice))
    ben = draw(START, [{"cell": "C3", "item": "G"}, {"cell": "C4", "item": "G"}, {"cell": "D3", "item": "G"}])
    t.observe(observation([misread, ben], ben_dice))
    assert t.state.players[1].city == ben and t.current_player() == 0
    # the players correct D4: it is a soldier. The first move is rewritten, the game replayed.
    t.correct_cell(0, "d4", "s")
    assert t.state.players[0].city == soldier
    assert t.state.players[0].vp == 0 and t.state.players[0].defence == 1
    assert t.state.players[1].city == ben and t.current_player() == 0
    assert any(e.kind == "correction" for e in t.log)
    assert "corrected by hand" in next(e.text for e in t.log if e.kind == "move")
    # the camera keeps misreading D4: no phantom move, only a note on the mismatch
    t.observe(observation([misread, ben], ["wall", "wall", "wall", "log", "log"]))
    assert t.current_player() == 0 and t.pending is None and t.dispute is None
    # a restart replays the correction
    again = Tracker(store, t.game_id)
    assert again.state == t.state


def test_misread_cell_in_a_dispute_is_corrected_and_the_move_judged_again(store):
    t = new_tracker(store)
    t.observe(observation([START, START], WALLS))
    misread = draw(START, [{"cell": "B1", "item": "W"}, {"cell": "C1", "item": "H"}])
    t.observe(observation([misread, START], WALLS))
    assert "house.no_architect" in {e["rule"] for e in t.dispute.errors}
    t.correct_cell(0, "C1", "W")
    assert t.dispute is None
    assert t.state.players[0].city == draw(START, [{"cell": "B1", "item": "W"}, {"cell": "C1", "item": "W"}])
    # the camera still reads a house at C1: the alias keeps it a wall, nothing new for Ben
    t.observe(observation([misread, START], ["log", "log", "crate", "head", "swords"]))
    assert t.current_player() == 1 and t.pending is None


def test_log_turn_is_seen_when_the_tray_empties_without_a_drawing(store):
    t = new_tracker(store)
    dice = ["log", "log", "crate", "head", "swords"]
    t.observe(observation([START, START], dice))
    t.observe(observation([START, START], []))
    p = t.state.players[0]
    assert (p.logs, p.coins) == (4, 1)
    assert t.current_player() == 1 and t.log[-1].kind == "move" and "2 log(s)" in t.log[-1].text


def test_dice_not_seen_is_a_dispute_until_entered_by_hand(store):
    t = new_tracker(store)
    t.observe(observation([START, START], None))
    walls = draw(START, [{"cell": "B1", "item": "W"}])
    t.observe(observation([walls, START], None))
    assert t.dispute is not None and t.dispute.errors[0]["rule"] == "dice-unseen"
    verdict = t.enter_move({"player": 0, "dice": WALLS, "symbol": "wall", "turned": 0,
                            "place": [{"cell": "B1", "item": "W"}], "logs": 0})
    assert verdict.legal and t.dispute is None and t.state.players[0].city == walls
    assert [e["type"] for e in store.events(t.game_id)][-2:] == ["resolved", "move"]


def test_hand_entry_illegal_is_refused_unless_overridden(store):
    t = new_tracker(store)
    bad = {"player": 0, "dice": WALLS, "symbol": "wall", "turned": 0,
           "place": [{"cell": "D4", "item": "W"}], "logs": 0}
    verdict = t.enter_move(bad)
    assert not verdict.legal and verdict.errors[0].rule == "wall.outer_only"
    assert [e["type"] for e in store.events(t.game_id)] == ["start"]
    with pytest.raises(UserError):
        t.enter_move({**bad, "player": 1})
    t.enter_move(bad, override_reason="house rule")
    assert t.current_player() == 1 and store.events(t.game_id)[-1]["type"] == "override"


# Two walls on B1 and C1, and the same turn redrawn with the second wall on E1 instead.
TWO_WALLS = draw(START, [{"cell": "B1", "item": "W"}, {"cell": "C1", "item": "W"}])
REDRAWN = draw(START, [{"cell": "B1", "item": "W"}, {"cell": "E1", "item": "W"}])


def two_walls_recorded(t: Tracker) -> list[str]:
    """Anke rolls WALLS and draws TWO_WALLS, recorded as her move: Ben's turn. Returns her city."""
    t.observe(observation([START, START], WALLS))
    t.observe(observation([TWO_WALLS, START], WALLS))
    assert t.current_player() == 1
    return TWO_WALLS


def test_undo_takes_back_and_does_not_retake_the_same_drawing(store):
    t = new_tracker(store)
    walls = two_walls_recorded(t)
    t.undo()
    assert t.current_player() == 0 and t.state.players[0].city == START
    t.observe(observation([walls, START], []))
    assert t.current_player() == 0 and t.pending is None  # still the same drawing: not taken again
    with pytest.raises(UserError):
        t.undo()  # nothing left to take back


def test_drawing_is_judged_only_once_it_has_settled(store):
    now = [100.0]
    t = new_tracker(store, settle_seconds=4.0, clock=lambda: now[0])
    t.observe(observation([START, START], WALLS))
    one = draw(START, [{"cell": "B1", "item": "W"}])
    two = draw(one, [{"cell": "C1", "item": "W"}])
    t.observe(observation([one, START], WALLS))
    assert t.pending is not None and t.current_player() == 0
    now[0] += 2
    t.observe(observation([two, START], WALLS))
    now[0] += 3
    t.tick()
    assert t.current_player() == 0  # the second wall restarted the wait
    now[0] += 1.5
    t.tick()
    assert t.current_player() == 1 and t.state.players[0].city == two


def test_bad_cells_and_items_are_refused(store):
    t = new_tracker(store)
    for cell, item in (("Z9", "W"), ("A1", "W"), ("D4", "Q")):
        with pytest.raises(UserError):
            t.correct_cell(0, cell, item)
    with pytest.raises(UserError):
        t.correct_cell(7, "D4", "W")
    with pytest.raises(UserError):
        Tracker.start_game(store, ["A", "A"])
    with pytest.raises(UserError):
        Tracker.start_game(store, ["Solo"])


def test_a_drawing_before_the_roll_waits_for_the_dice_and_dice_order_does_not_matter(store):
    t = new_tracker(store)
    t.observe(observation([START, START], []))  # tray in view, empty
    walls = draw(START, [{"cell": "B1", "item": "W"}])
    t.observe(observation([walls, START], []))
    assert t.pending is not None and t.dispute is None and t.current_player() == 0
    t.observe(observation([walls, START], WALLS))
    assert t.current_player() == 1 and t.state.players[0].city == walls
    # the same dice lying in another order are still the spent roll, not Ben's
    t.observe(observation([walls, START], list(reversed(WALLS))))
    assert t.turn_dice is None
    ben = draw(START, [{"cell": "G2", "item": "W"}])
    t.observe(observation([walls, ben], list(reversed(WALLS))))
    assert t.current_player() == 1 and t.pending is not None  # waits for Ben's own roll


def test_after_an_undo_the_dice_still_in_the_tray_are_the_turns_again(store):
    """A move taken back while its dice still lie in the tray: the drawing the player makes instead is
    that turn's move (the tracker had set the dice aside as spent and waited for a roll that never came)."""
    t = new_tracker(store)
    two_walls_recorded(t)
    t.undo()
    fixed = REDRAWN
    t.observe(observation([fixed, START], WALLS))
    assert t.pending is None and t.current_player() == 1
    assert t.state.players[0].city == fixed and t.last_action["dice"] == sorted(WALLS)


def test_an_undo_after_the_dice_were_taken_keeps_the_turns_dice(store):
    """The move taken back once the tray was emptied: what the player draws instead is judged with the dice
    that turn rolled (before, it waited for dice that never came back and was never recorded)."""
    t = new_tracker(store)
    walls = two_walls_recorded(t)
    t.observe(observation([walls, START], []))  # the dice taken out of the tray
    assert t.current_player() == 1
    t.undo()
    fixed = REDRAWN
    t.observe(observation([fixed, START], []))
    assert t.pending is None and t.current_player() == 1
    assert t.state.players[0].city == fixed and t.last_action["dice"] == sorted(WALLS)


def test_an_undo_after_the_next_roll_judges_the_redrawing_with_its_own_dice(store):
    """The next player has rolled when the move is taken back: the redrawing is judged with the dice of the
    move taken back, not with the roll in the tray, which stays the next player's."""
    t = new_tracker(store)
    walls = two_walls_recorded(t)
    t.observe(observation([walls, START], []))
    heads = ["head", "head", "crate", "log", "swords"]
    t.observe(observation([walls, START], heads))  # Ben's roll
    t.undo()
    assert t.current_player() == 0
    fixed = REDRAWN
    t.observe(observation([fixed, START], heads))
    assert t.current_player() == 1 and t.state.players[0].city == fixed
    assert t.last_action["dice"] == sorted(WALLS)
    soldier = draw(START, [{"cell": "D4", "item": "s"}])
    t.observe(observation([fixed, soldier], heads))  # Ben draws with the roll still in the tray
    assert t.current_player() == 0 and t.last_action["dice"] == sorted(heads)


def test_an_undo_with_the_tray_empty_waits_for_the_redrawing_to_settle(store):
    """With a settling time, as at a real table: after the undo the board first still shows the drawing taken
    back (not taken again), the tray stays empty (no turn ends: no dice were taken), and the drawing made
    instead is recorded once it has settled, with the turn's dice."""
    now = [100.0]
    t = new_tracker(store, settle_seconds=4.0, clock=lambda: now[0])
    t.observe(observation([START, START], WALLS))
    walls = TWO_WALLS
    t.observe(observation([walls, START], WALLS))
    t.observe(observation([walls, START], []))
    assert t.current_player() == 1
    t.undo()
    for _ in range(3):
        now[0] += 5
        t.observe(observation([walls, START], []))
        assert t.current_player() == 0 and t.pending is None and t.turn_dice == sorted(WALLS)
    one = draw(START, [{"cell": "B1", "item": "W"}])
    t.observe(observation([one, START], []))  # erasing C1 first: half the redrawing, not a move
    now[0] += 1
    fixed = REDRAWN
    t.observe(observation([fixed, START], []))
    assert t.current_player() == 0
    now[0] += 5
    t.tick()
    assert t.current_player() == 1 and t.state.players[0].city == fixed
    assert t.last_action["dice"] == sorted(WALLS)
