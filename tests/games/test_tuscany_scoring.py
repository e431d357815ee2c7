"""Castles of Tuscany: the rulebook's worked examples and other-games.md's, through the scoring code and
through the sheet the dashboard keeps (the same events a phone sends)."""

from __future__ import annotations

import copy

import pytest

from companion.errors import UserError
from companion.games import get_game, standing_events
from companion.games.castles_of_tuscany.scoring import (
    AREA_VP,
    COLLECTION_BONUS_GREEN,
    WOODEN_HEX_NO_SPACE_ORANGE,
    orange_after_each_scoring,
    parse_state,
    track_position,
)

from .examples import ANNA, BENNO

TUSCANY = get_game("castles-of-tuscany")


def sheet_after(names, events):
    live = TUSCANY.live
    log = [live.start_event(names, {})]
    for event in events:
        log.append(live.check_event(live.replay(standing_events(log)), event))
    return live.replay(standing_events(log)), log


def pts(player, track, points):
    return {"type": "points", "player": player, "track": track, "points": points}


def test_annas_tracks_9_13_37_rulebook_example():
    # "la pedina di Anna si trova sulla casella 9 del tracciato verde ... [arancione] si trova sulla casella 4
    # ... quindi ora viene spostata sulla casella 13. Dopo il 2° round ... verde è a 22 e ... arancione si è
    # mosso di 2 spazi ... = 37 punti vittoria in totale."
    assert orange_after_each_scoring((9, 22, 35), (4, 2, 0)) == [13, 37, 72]
    sheet, _ = sheet_after(["Anna", "Benno"], [
        pts(0, "orange", 2), pts(0, "orange", 2), pts(0, "green", 9), {"type": "scoring"},
    ])
    anna = sheet.view()["players"][0]
    assert (anna["green"], anna["orange"]) == (9, 13)  # the green marker stays on 9
    sheet, _ = sheet_after(["Anna", "Benno"], [
        pts(0, "orange", 4), pts(0, "green", 9), {"type": "scoring"},
        pts(0, "orange", 2), pts(0, "green", 13), {"type": "scoring"},
    ])
    anna = sheet.view()["players"][0]
    assert (anna["green"], anna["orange"]) == (22, 37)
    assert [r["orange"] for r in anna["rounds"]] == [13, 37]


def test_extended_anna_77_and_benno_wins_with_78():
    result = TUSCANY.tally({"game": "castles_of_tuscany", "options": {"cards_per_vp": 5},
                            "players": [ANNA, BENNO]}, "STATE.json")
    anna, benno = result["players"]
    assert anna["orange_after_scoring3"] == 72
    assert anna["leftovers"] == {"tiles": 1, "wooden_hexes": 0, "marble": 2, "workers": 1, "cards": 1}
    assert anna["total"] == 77
    assert benno["total"] == 78  # 75 + 1 wooden hexagon + 10 cards (2)
    assert result["winners"] == ["Benno"]


def test_the_whole_game_on_the_sheet_matches_the_tally():
    events = [pts(0, "orange", 4), pts(0, "green", 9), {"type": "scoring"},
              pts(0, "orange", 2), pts(0, "green", 13), {"type": "scoring"},
              pts(0, "green", 13), pts(1, "green", 40), {"type": "scoring"},
              {"type": "final", "player": 0, "empty_spaces": 6,
               "leftovers": {"hex_tiles": 1, "marble": 2, "workers": 1, "cards_in_hand": 7}}]
    sheet, _ = sheet_after(["Anna", "Benno"], events)
    assert not sheet.finished and sheet.tally() is None  # Benno's leftovers are missing
    sheet, _ = sheet_after(["Anna", "Benno"], [*events, {"type": "final", "player": 1, "empty_spaces": 2,
                                                         "leftovers": {"cards_in_hand": 4}}])
    assert sheet.finished
    result = sheet.tally()
    assert result == TUSCANY.tally({"players": [ANNA, {"name": "Benno", "green_at_scoring": [0, 0, 40],
                                                       "orange_direct": [0, 0, 0], "empty_spaces": 2,
                                                       "leftovers": {"cards_in_hand": 4}}]}, "x")
    assert [p["total"] for p in result["players"]] == [77, 40]


def test_tie_break_empty_spaces_then_green_dario_wins():
    # other-games.md A.3 example 6: Clara 70 + 1 marble (4 cards give 0) = 71, 5 empty, 36 green; Dario 69 + 2
    # = 71, 5 empty, 40 green; Elsa 71, 3 empty.
    state = {"players": [
        {"name": "Clara", "orange": 70, "green": 36, "empty_spaces": 5, "leftovers": {"marble": 1, "cards_in_hand": 4}},
        {"name": "Dario", "orange": 69, "green": 40, "empty_spaces": 5, "leftovers": {"workers": 2}},
        {"name": "Elsa", "orange": 71, "green": 45, "empty_spaces": 3},
    ]}
    result = TUSCANY.tally(state, "x")
    assert [p["total"] for p in result["players"]] == [71, 71, 71]
    assert result["winners"] == ["Dario"]
    from companion.games.castles_of_tuscany.scoring import explain
    assert "Dario wins with the most green points (40)" in explain(result)


def test_tie_on_empty_spaces_decides_before_green():
    state = {"players": [{"name": "A", "orange": 50, "green": 10, "empty_spaces": 7},
                         {"name": "B", "orange": 50, "green": 30, "empty_spaces": 4}]}
    assert TUSCANY.tally(state, "x")["winners"] == ["A"]


def test_a_complete_tie_is_a_shared_win():
    state = {"players": [{"name": "A", "orange": 50, "green": 10, "empty_spaces": 4},
                         {"name": "B", "orange": 49, "green": 10, "empty_spaces": 4, "leftovers": {"marble": 1}}]}
    result = TUSCANY.tally(state, "x")
    assert result["winners"] == ["A", "B"]


def test_cards_per_vp_is_a_setting():
    state = {"options": {"cards_per_vp": 3}, "players": [
        {"name": "A", "orange": 10, "green": 1, "empty_spaces": 0, "leftovers": {"cards_in_hand": 7}},
        {"name": "B", "orange": 10, "green": 1, "empty_spaces": 0}]}
    assert TUSCANY.tally(state, "x")["players"][0]["total"] == 12
    state["options"]["cards_per_vp"] = 5
    assert TUSCANY.tally(state, "x")["players"][0]["total"] == 11


def test_the_rulebooks_point_values_on_the_quick_buttons():
    # "Area da 1: 1 PV; area da 2: 3 PV; area da 3: 6 VP"; the bonus tile "+1 spazio di raccolta": 2 spaces
    # on the green track; a wooden hexagon with no free collection space: "due punti ... arancione".
    # (The yellow example: the second monastery of a 3-space area scores 0, the third 6.)
    assert AREA_VP == {1: 1, 2: 3, 3: 6}
    assert COLLECTION_BONUS_GREEN == 2 and WOODEN_HEX_NO_SPACE_ORANGE == 2


def test_the_50_100_marker():
    assert track_position(72) == (22, 50)
    assert track_position(104) == (4, 100)
    assert track_position(37) == (37, 0)


@pytest.mark.parametrize("change, field", [
    (lambda s: s["players"][0]["green_at_scoring"].__setitem__(1, 5), "green_at_scoring[1]"),
    (lambda s: s["players"][0].__setitem__("green", 36), "players[0].green"),
    (lambda s: s["players"][0].__setitem__("empty_spaces", 30), "empty_spaces"),
    (lambda s: s["players"][0]["leftovers"].__setitem__("marble", -1), "leftovers.marble"),
    (lambda s: s["players"][0]["leftovers"].__setitem__("tiles", 2), "leftovers.tiles"),
    (lambda s: s["players"][0].pop("orange_direct"), "orange_direct"),
    (lambda s: s["players"].append(copy.deepcopy(s["players"][0])), "appears twice"),
    (lambda s: s.__setitem__("players", s["players"][:1]), "players"),
    (lambda s: s.__setitem__("game", "dice-settlers"), "game"),
    (lambda s: s["players"][1].__setitem__("orange", "75"), "players[1].orange"),
    (lambda s: s["players"][1].__setitem__("orange", 7.5), "players[1].orange"),
    (lambda s: s["players"][1].__setitem__("orange", True), "players[1].orange"),
    (lambda s: s["players"][1].__setitem__("orange", float("inf")), "players[1].orange"),
    (lambda s: s["players"][1].__setitem__("orange", float("nan")), "players[1].orange"),
])
def test_bad_states_are_named(change, field):
    state = {"players": [copy.deepcopy(ANNA), copy.deepcopy(BENNO)]}
    change(state)
    with pytest.raises(UserError) as caught:
        parse_state(state, "STATE.json")
    message = str(caught.value)
    assert message.startswith("STATE.json") and field in message and "\n" not in message


@pytest.mark.parametrize("events, problem", [
    ([pts(0, "blue", 1)], "tracks are green and orange"),
    ([pts(2, "green", 1)], "player"),
    ([pts(0, "green", 0)], "changes nothing"),
    ([pts(0, "orange", -1)], "cannot go below 0"),
    ([{"type": "final", "player": 0, "empty_spaces": 1}], "after the third scoring phase"),
    ([{"type": "scoring"}] * 4, "all 3 scoring phases"),
    ([{"type": "scoring"}] * 3 + [pts(0, "green", 1)], "only the leftovers count"),
    ([{"type": "bogus"}], "bogus"),
])
def test_entries_the_sheet_refuses(events, problem):
    with pytest.raises(UserError, match=problem):
        sheet_after(["Anna", "Benno"], events)


def test_undo_takes_back_the_latest_entry_never_the_start():
    sheet, log = sheet_after(["Anna", "Benno"], [pts(0, "green", 6), pts(1, "green", 3), {"type": "scoring"}])
    log.append({"type": "undo"})
    sheet = TUSCANY.live.replay(standing_events(log))
    assert sheet.phases_done == 0 and [p.green for p in sheet.players] == [6, 3]
    log += [{"type": "undo"}, {"type": "undo"}]
    assert [p.green for p in TUSCANY.live.replay(standing_events(log)).players] == [0, 0]
    with pytest.raises(UserError, match="nothing to undo"):
        standing_events([*log, {"type": "undo"}])
