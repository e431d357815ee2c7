"""Final tally parts and the tie-break."""

import pytest

from companion.rules import church_series_points, final_tally


@pytest.mark.parametrize(("sizes", "points"), [
    ([], 0), ([2, 3, 4], 0), ([1], 1), ([1, 2], 4), ([1, 2, 3], 8), ([1, 2, 3, 4], 13), ([1, 2, 3, 4, 5], 20),
    ([1, 1, 2, 2], 8), ([1, 2, 2, 3], 8), ([1, 1, 1], 3), ([1, 2, 3, 4, 5, 1, 2, 3, 4, 5], 40),
    ({1: 2, 2: 1}, 5),
])
def test_church_series(sizes, points):
    assert church_series_points(sizes) == points


def test_parts_of_a_tally(h):
    full = ["#WWWWW#"] + ["WGGGGGW"] * 5 + ["#WWWWW#"]
    state = h.state_of({"city": full, "coins": 5, "logs": 3, "vp": 20, "cannons_lost": 2})
    t = final_tally(state).to_json()["players"][0]
    assert t == {"name": "P0", "vp": 20, "full_city": 5, "coins": 2, "logs": 3, "churches": 0, "cannons": -10,
                 "total": 20, "empty_spaces": 0}


def test_winner_is_most_points(h):
    state = h.state_of({"vp": 10}, {"vp": 12})
    assert final_tally(state).to_json()["winners"] == ["P1"]


def test_tie_on_points_goes_to_most_empty_spaces(h):
    state = h.state_of({"vp": 10, "city": {"D4": "c"}}, {"vp": 10})
    t = final_tally(state)
    assert t.players[0].total == t.players[1].total
    assert t.to_json()["winners"] == ["P1"]


def test_still_tied_all_win(h):
    state = h.state_of({"vp": 10, "city": {"D4": "c"}}, {"vp": 10, "city": {"E5": "s"}}, {"vp": 3})
    assert final_tally(state).to_json()["winners"] == ["P0", "P1"]
