"""Dice Settlers: the rulebook's PUNTEGGIO FINALE examples and other-games.md's, through the scoring code
and through the sheet the dashboard keeps."""

from __future__ import annotations

import copy

import pytest

from companion.errors import UserError
from companion.games import get_game, standing_events
from companion.games.dice_settlers.scoring import dice_vp, houses_vp, parse_state, score_tile
from companion.games.dice_settlers.tiles import TILES, tiles_in_play

from .examples import SETTLERS_EXAMPLE

SETTLERS = get_game("dice-settlers")
BLACK, BLUE, RED = 0, 1, 2


def three_players(**extra):
    return [{"name": n, "color": c, "dice_owned": 0, **extra} for n, c in
            (("Nero", "black"), ("Blu", "blue"), ("Rosso", "red"))]


def test_il_nero_segna_5_punti_il_blu_fa_2_punti():
    # tile 25 (5/2): Black has the most tents, Blue fewer -> "Il Nero segna 5 punti, il Blu fa 2 punti."
    assert score_tile(TILES[25], [3, 1, 0], None).points == (5, 2, 0)


def test_il_blu_segna_7_il_nero_ed_il_rosso_fanno_entrambi_3():
    # tile 18 (7/3): Blue has a house; Black and Red tie on the most tents among the others
    result = score_tile(TILES[18], [2, 0, 2], BLUE)
    assert result.controllers == (BLUE,)
    assert result.points == (3, 7, 3)


def test_il_rosso_ed_il_nero_fanno_entrambi_4_il_blu_segna_1():
    # tile 13 (4/1): Red and Black tie on the most tents (both control), Blue has fewer
    assert score_tile(TILES[13], [2, 1, 2], None).points == (4, 1, 4)


def test_the_three_map_examples_through_the_tally():
    state = {"players": three_players(), "map": [
        {"id": 25, "tents": {"black": 3, "blue": 1}},
        {"id": 18, "tents": {"black": 2, "red": 2}, "house": "blue"},
        {"id": 13, "tents": {"red": 2, "black": 2, "blue": 1}},
    ]}
    rows = SETTLERS.tally(state, "x")["players"]
    assert [r["map_tiles"] for r in rows] == [5 + 3 + 4, 2 + 7 + 1, 0 + 3 + 4]


def test_nobody_there_and_no_vp_tiles():
    assert score_tile(TILES[20], [0, 0, 0], None).points == (0, 0, 0)
    assert score_tile(TILES[17], [3, 1, 0], None).points == (0, 0, 0)  # "No"
    assert score_tile(TILES[8], [3, 1, 0], None).points == (4, 0, 0)   # 4/0
    # with a house, a player with more tents than the owner is not a controller: the lower value
    assert score_tile(TILES[24], [5, 0, 1], BLUE).points == (3, 6, 0)


def test_dice_three_per_two_nine_dice_twelve():
    # "se avete 9 dadi, ottenete 12 PV"
    assert dice_vp(9) == 12
    assert [dice_vp(n) for n in (0, 1, 2, 3, 11)] == [0, 0, 3, 3, 15]


def test_houses_1_4_9_16_25():
    assert [houses_vp(n) for n in range(6)] == [0, 1, 4, 9, 16, 25]


def test_two_player_game_anna_72_bruno_62():
    result = SETTLERS.tally(SETTLERS_EXAMPLE, "STATE.json")
    anna, bruno = result["players"]
    assert {k: anna[k] for k in ("map_tiles", "technology", "dice", "houses", "vp_tokens", "total")} == \
        {"map_tiles": 32, "technology": 7, "dice": 12, "houses": 4, "vp_tokens": 17, "total": 72}
    assert {k: bruno[k] for k in ("map_tiles", "technology", "dice", "houses", "vp_tokens", "total")} == \
        {"map_tiles": 26, "technology": 4, "dice": 15, "houses": 9, "vp_tokens": 8, "total": 62}
    assert result["winners"] == ["Anna"]
    # the rulebook uses tiles 27-40 only with 3-4 players; other-games.md's example puts tile 36 in a
    # two-player game: it is scored and flagged
    assert result["warnings"] == ["tile 36 is used only with 4 or more players"]


def test_the_bot_56():
    # other-games.md B.3 example 6: map 15, technology 6, 6 dice -> 9, 1 house -> 1, tokens 20, +5 extras
    state = {"players": [
        {"name": "Me", "dice_owned": 8},
        {"name": "Diceoneer", "bot": True, "dice_owned": 6, "houses_on_map": 1, "vp_tokens": 20, "resources_left": 3},
    ], "map": [{"id": 20, "tents": {"Diceoneer": 2}}, {"id": 24, "tents": {"Diceoneer": 1}}],
       "technologies": [{"name": "Stabilità", "vp": 4, "markers": ["Diceoneer"]},
                        {"name": "Prosperità", "vp": 2, "markers": ["diceoneer", "Me"]}]}
    bot = SETTLERS.tally(state, "x")["players"][1]
    assert (bot["map_tiles"], bot["technology"], bot["dice"], bot["houses"], bot["bot_extra"]) == (15, 6, 9, 1, 5)
    assert bot["total"] == 56


def test_technology_cards_every_marker_scores_and_universita_counts():
    state = {"players": three_players(), "technologies": [
        {"name": "Prosperità", "vp": 4, "markers": ["black", "blue"]},
        {"name": "Costruttore", "vp": 3, "markers": ["black"]},
        # exploded by Red: its marker is gone, so no VP for Red (and it no longer counts for Università)
        {"name": "Boom", "vp": 5, "markers": ["blue"], "exploding": True},
        {"name": "Università", "vp_per_technology": 1, "markers": ["black", "blue"]},
    ]}
    rows = SETTLERS.tally(state, "x")["players"]
    # Black: 4 + 3 + Università (3 technologies) = 10; Blue: 4 + 5 + 3 = 12; Red: 0
    assert [r["technology"] for r in rows] == [10, 12, 0]


def test_ties_share_the_win():
    state = {"players": [{"name": "A", "dice_owned": 4}, {"name": "B", "dice_owned": 5}, {"name": "C", "dice_owned": 1}]}
    assert SETTLERS.tally(state, "x")["winners"] == ["A", "B"]


def test_houses_counted_from_the_map_when_not_given():
    state = {"players": three_players(), "map": [{"id": 7, "house": "black"}, {"id": 18, "house": "black"}]}
    assert SETTLERS.tally(state, "x")["players"][0]["houses"] == 4


def test_tiles_in_play_by_player_count():
    assert [len(tiles_in_play(n)) for n in (1, 2, 3, 4)] == [26, 26, 34, 40]


@pytest.mark.parametrize("change, field", [
    (lambda s: s["map"][0].__setitem__("id", 41), "map[0].id"),
    (lambda s: s["map"][1].__setitem__("id", 20), "on the map twice"),
    (lambda s: s["map"][0]["tents"].__setitem__("green", 1), "map[0].tents.green"),
    (lambda s: s["map"][0].__setitem__("house", "nobody"), "map[0].house"),
    (lambda s: s["map"][0]["tents"].__setitem__("red", -1), "map[0].tents.red"),
    (lambda s: s["players"][0].__setitem__("houses_on_map", 0), "players[0].houses_on_map"),
    (lambda s: s["players"][0].__setitem__("houses_on_map", 6), "players[0].houses_on_map"),
    (lambda s: s["players"][0].__setitem__("dice_owned", 52), "players[0].dice_owned"),
    (lambda s: s["players"][0].pop("dice_owned"), "players[0].dice_owned"),
    (lambda s: s["players"][1].__setitem__("color", "red"), "same colour"),
    (lambda s: s["players"][1].__setitem__("bot", "yes"), "players[1].bot"),
    (lambda s: s["players"].__setitem__(slice(1, None), []), "players"),
    (lambda s: s.__setitem__("technologies", [{"name": "X", "markers": ["red", "red"]}]), "technologies[0].markers[1]"),
    (lambda s: s.__setitem__("map", {}), "map"),
])
def test_bad_states_are_named(change, field):
    state = copy.deepcopy(SETTLERS_EXAMPLE)
    change(state)
    with pytest.raises(UserError) as caught:
        parse_state(state, "STATE.json")
    message = str(caught.value)
    assert message.startswith("STATE.json") and field in message and "\n" not in message


def sheet_after(names, events):
    live = SETTLERS.live
    log = [live.start_event(names, {})]
    for event in events:
        log.append(live.check_event(live.replay(standing_events(log)), event))
    return live.replay(standing_events(log)), log


def test_the_two_player_example_entered_as_on_a_phone():
    events = [{"type": "tile", "tile": 20, "tents": [4, 2], "house": 1},
              {"type": "tile", "tile": 24, "tents": [3, 1], "house": None},
              {"type": "tile", "tile": 13, "tents": [2, 2], "house": None},
              {"type": "tile", "tile": 36, "tents": [1, 0], "house": None},
              {"type": "tile", "tile": 2, "tents": [0, 2], "house": None},
              {"type": "tile", "tile": 16, "tents": [0, 1], "house": 0},
              {"type": "tile", "tile": 22, "tents": [1, 1], "house": 1},
              {"type": "tech", "name": "Prosperità", "vp": 4, "markers": [0]},
              {"type": "tech", "name": "Costruttore", "vp": 3, "markers": [0]},
              {"type": "tech", "name": "Stabilità", "vp": 4, "markers": [1]},
              {"type": "player", "player": 0, "dice_owned": 9, "houses_on_map": 2, "vp_tokens": 17, "color": "red"},
              {"type": "player", "player": 1, "dice_owned": 11, "houses_on_map": 3, "vp_tokens": 8, "color": "blue"}]
    sheet, log = sheet_after(["Anna", "Bruno"], events)
    assert [p["total"] for p in sheet.score()["players"]] == [72, 62]
    assert sheet.tally() is None
    sheet, log = sheet_after(["Anna", "Bruno"], [*events, {"type": "finish"}])
    assert sheet.finished and sheet.tally()["winners"] == ["Anna"]
    # the same table through companion tally's JSON gives the same pad
    assert SETTLERS.tally(sheet.state_json(), "x")["players"] == sheet.tally()["players"]
    # a tile entered again replaces the first word on it
    sheet, _ = sheet_after(["Anna", "Bruno"], [*events, {"type": "tile", "tile": 24, "tents": [1, 3], "house": None}])
    assert [p["map_tiles"] for p in sheet.score()["players"]] == [32 - 6 + 3, 26 - 3 + 6]


@pytest.mark.parametrize("events, problem", [
    ([{"type": "tile", "tile": 99, "tents": [0, 0]}], "tile"),
    ([{"type": "tile", "tile": 20, "tents": [1]}], "one count per player"),
    ([{"type": "tile", "tile": 20, "tents": [1, 0], "house": 2}], "not a player"),
    ([{"type": "remove_tile", "tile": 20}], "not on the map"),
    ([{"type": "player", "player": 0, "dice_owned": 60}], "dice_owned"),
    ([{"type": "player", "player": 0}], "nothing to change"),
    ([{"type": "finish"}, {"type": "player", "player": 0, "vp_tokens": 1}], "the game is over"),
    ([{"type": "tech", "name": "", "vp": 1}], "name"),
    ([{"type": "bogus"}], "bogus"),
])
def test_entries_the_sheet_refuses(events, problem):
    with pytest.raises(UserError, match=problem):
        sheet_after(["Anna", "Bruno"], events)
