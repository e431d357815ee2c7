"""Two boards carrying one seat's stickers: the players are told, and what the camera last read of the seat
stands until it is mended."""

from __future__ import annotations

from companion.layout import empty_city
from companion.tracker import Tracker
from vision.observation import BoardReading, Observation
from vision.stability import StabilityFilter

from .conftest import ONES, dice_readings

START = empty_city()
WALLS = ["wall", "wall", "crate", "head", "swords"]


def frame(seats: list[int], doubled: list[int] | None = None) -> Observation:
    extra = {"doubled_seats": doubled} if doubled else {}
    return Observation(boards=tuple(BoardReading(seat=s, city=tuple(START), confidence=ONES) for s in seats),
                       dice=dice_readings(WALLS), extra=extra)


def test_the_players_are_told_which_seat_is_on_two_boards_and_the_warning_goes(store):
    t = Tracker.start_game(store, ["Anke", "Ben"], start_player=0)
    t.observe(frame([0, 1]))
    t.observe(frame([0], doubled=[1]))
    told = [w for w in t.warnings if "Two boards carry" in w]
    assert told == ["Two boards carry the stickers of seat 1 (markers 4-7, Ben's seat), so the camera reads "
                    "neither: give each board its own seat's stickers."]
    assert t.seen_city(1) == START, "Ben's board as last read stands"
    t.observe(frame([0, 1]))
    assert not any("Two boards carry" in w for w in t.warnings)


def test_a_seat_no_player_has_is_named_without_a_player(store):
    t = Tracker.start_game(store, ["Anke", "Ben"], start_player=0)
    t.observe(frame([0, 1], doubled=[3]))
    assert any(w.startswith("Two boards carry the stickers of seat 3 (markers 12-15), so") for w in t.warnings)


def test_the_stability_filter_commits_a_seat_doubled_and_mended():
    f = StabilityFilter(hold_frames=2)
    for _ in range(2):
        committed = f.push(frame([0, 1]))
    assert committed is not None and "doubled_seats" not in committed.extra
    # Same cities (seat 1 kept from the last commit), only the doubled seat is new: still committed.
    for _ in range(2):
        committed = f.push(frame([0], doubled=[1]))
    assert committed is not None and committed.extra["doubled_seats"] == [1]
    assert [b.seat for b in committed.boards] == [0, 1]
    for _ in range(2):
        committed = f.push(frame([0, 1]))
    assert committed is not None and "doubled_seats" not in committed.extra
