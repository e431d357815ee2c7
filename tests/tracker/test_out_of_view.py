"""A board pushed partly out of the camera's view: the cells the camera does not see are neither new
drawings nor erasures, and the players are told to move the board back."""

from __future__ import annotations

from companion.layout import empty_city
from companion.tracker import Tracker
from vision.observation import BoardReading, Observation

from .conftest import ONES, dice_readings, draw

START = empty_city()
WALLS = ["wall", "wall", "crate", "head", "swords"]
# The right-hand column and a half of Anke's board past the frame's edge.
EDGE = tuple(f"{col}{row}" for col in "FG" for row in range(1, 8) if f"{col}{row}" not in ("G1", "G7"))


def seen(seat: int, city: list[str], unseen: tuple[str, ...] = ()) -> BoardReading:
    return BoardReading(seat=seat, city=tuple(city), confidence=ONES).with_unseen(unseen)


def frame(boards: list[BoardReading], dice: list[str] | None) -> Observation:
    return Observation(boards=tuple(boards), dice=None if dice is None else dice_readings(dice))


def _anke_drew_two_walls(store) -> tuple[Tracker, list[str]]:
    """A game where Anke has drawn walls on E1 and F1 and it is Ben's turn; the tracker and Anke's city."""
    t = Tracker.start_game(store, ["Anke", "Ben"], start_player=0)
    walls = draw(START, [{"cell": "F1", "item": "W"}, {"cell": "E1", "item": "W"}])
    t.observe(frame([seen(0, START), seen(1, START)], WALLS))
    t.observe(frame([seen(0, walls), seen(1, START)], WALLS))
    t.observe(frame([seen(0, walls), seen(1, START)], []))
    assert t.state.players[0].city == walls and t.current_player() == 1
    return t, walls


def test_cells_out_of_view_are_not_erasures_and_the_players_are_told(store):
    t, walls = _anke_drew_two_walls(store)
    # Anke's board slides right: F1's wall is out of view, read as nothing there.
    t.observe(frame([seen(0, walls, EDGE), seen(1, START)], None))
    assert "F1" in t.last_boards[0]["unseen"] and t.seen_city(0) == walls
    assert not any("reads differently" in w for w in t.warnings), t.warnings
    assert any("The camera cannot see 12 spaces of Anke's board (F1 among them)" in w for w in t.warnings), t.warnings
    # Back in view: the warning goes.
    t.observe(frame([seen(0, walls), seen(1, START)], None))
    assert not any("cannot see" in w for w in t.warnings)


def test_a_cell_out_of_view_is_never_a_new_drawing(store):
    t = Tracker.start_game(store, ["Anke", "Ben"], start_player=0)
    t.observe(frame([seen(0, START), seen(1, START)], WALLS))
    # Whatever the reading says of a cell it does not see (here a wall on G2), it is not the move.
    unseen_wall = draw(START, [{"cell": "G2", "item": "W"}])
    board = BoardReading(seat=0, city=tuple(unseen_wall), confidence=ONES, unseen=EDGE)
    t.observe(frame([board, seen(1, START)], WALLS))
    assert t.pending is None and t.dispute is None
    assert len(t.warnings) == 1 and "The camera cannot see 12 spaces of Anke's board" in t.warnings[0]
    assert t.current_player() == 0 and [e.kind for e in t.log] == ["start"]
    # The same wall in view is Anke's move.
    wall = draw(START, [{"cell": "G2", "item": "W"}, {"cell": "G3", "item": "W"}])
    t.observe(frame([seen(0, wall), seen(1, START)], WALLS))
    t.observe(frame([seen(0, wall), seen(1, START)], []))
    assert t.state.players[0].city == wall and t.current_player() == 1


def test_a_reading_with_cells_out_of_view_says_so_in_every_field():
    city = draw(START, [{"cell": "F3", "item": "c"}])
    reading = BoardReading(seat=2, city=tuple(city), confidence=ONES, uncertain=("B2",),
                           alternatives={"F3": {"c": 0.9, "s": 0.1}, "B2": {".": 0.6, "W": 0.4}})
    out = reading.with_unseen(("F3", "F4"))
    assert out.unseen == ("F3", "F4")
    assert out.city[2][5] == "." and out.confidence[2][5] == 0.0 and out.confidence[3][5] == 0.0
    assert set(out.uncertain) == {"B2", "F3", "F4"} and "F3" not in out.alternatives and "B2" in out.alternatives
    assert out.to_json()["uncertain"] == ["B2", "F3", "F4"]
    assert reading.with_unseen(()) is reading


def test_cells_under_something_lying_on_a_board_are_kept_and_the_players_are_asked_to_take_it_off(store):
    t, walls = _anke_drew_two_walls(store)
    # A pen put down across E1, E2 and F2 of Anke's board: E1's wall is not erased, the players are told what to do.
    pen = BoardReading(seat=0, city=tuple(walls), confidence=ONES).with_covered(("E1", "E2", "F2"))
    assert pen.covered == ("E1", "E2", "F2") and set(pen.covered) <= set(pen.unseen) and pen.city[0][4] == "."
    t.observe(frame([pen, seen(1, START)], None))
    assert t.seen_city(0) == walls and t.state.players[0].city == walls
    assert any("Something lies on Anke's board over E1, E2, F2: take it off" in w for w in t.warnings), t.warnings
    assert not any("cannot see" in w or "reads differently" in w for w in t.warnings), t.warnings
    # Taken off: the warning goes.
    t.observe(frame([seen(0, walls), seen(1, START)], None))
    assert not any("Something lies" in w for w in t.warnings), t.warnings
