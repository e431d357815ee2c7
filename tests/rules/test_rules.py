"""Legal and illegal cases for every rule, with stable rule ids and messages naming the cells."""

import pytest

from companion.rules import ActionError, GameState, IllegalMove, apply, apply_forced, judge

OUTER_TOP = ("B1", "C1", "D1", "E1", "F1")
OUTER_BOTTOM = ("B7", "C7", "D7", "E7", "F7")
OUTER_RIGHT = ("G2", "G3", "G4", "G5", "G6")


# ---------------------------------------------------------------------------------------------- dice

def test_turning_a_die_to_swords_is_illegal(h):
    v = judge(h.state_of({}), h.act("swords", {"D4": "G"}, dice=["crate"] * 4 + ["swords"], turned=1))
    assert not v.legal
    assert "dice.turn_swords" in h.rules_of(v)


def test_turning_a_swords_die_is_illegal(h):
    dice = ["crate", "crate", "swords", "swords", "swords"]
    v = judge(h.state_of({"coins": 10}), h.act("crate", {"D4": "G", "D5": "G", "D6": "G"}, dice=dice, turned=1))
    assert h.rules_of(v) == {"dice.turn_swords"}
    assert "swords" in v.errors[0].message


def test_turning_costs_two_coins_each(h):
    dice = ["crate", "crate", "head", "wall", "log"]
    ok = judge(h.state_of({"coins": 4}), h.act("crate", {"D4": "G", "D5": "G", "D6": "G", "D3": "G"}, dice=dice,
                                                  turned=2))
    assert ok.legal, ok.errors
    assert ok.effects.coins == -4
    broke = judge(h.state_of({"coins": 3}), h.act("crate", {"D4": "G", "D5": "G", "D6": "G", "D3": "G"},
                                                     dice=dice, turned=2))
    assert h.rules_of(broke) == {"dice.turn_coins"}
    assert "4 coins" in broke.errors[0].message


def test_more_items_than_dice(h):
    v = judge(h.state_of({}), h.act("crate", {"D4": "G", "D5": "G", "D6": "G"},
                                    dice=["crate", "crate", "head", "head", "head"]))
    assert h.rules_of(v) == {"dice.too_few"}


def test_fewer_dice_used_than_rolled_is_fine(h):
    v = judge(h.state_of({}), h.act("head", {"D4": "s"}, dice=["head"] * 4 + ["swords"]))
    assert v.legal, v.errors
    assert v.state.players[0].defence == 1


def test_turned_die_not_used_is_flagged(h):
    v = judge(h.state_of({"coins": 6}), h.act("crate", {"D4": "G"}, dice=["crate", "crate", "head", "log", "log"],
                                                turned=1))
    assert h.rules_of(v) == {"dice.turn_unused"}


def test_nothing_used_when_an_action_is_possible_is_illegal(h):
    v = judge(h.state_of({}), h.act("crate", {}, dice=["crate"] * 5))
    assert h.rules_of(v) == {"action.must_use"}


def test_all_swords_is_a_forced_pass(h):
    state = h.state_of({}, {})
    v = judge(state, h.act(None, {}, dice=["swords"] * 5))
    assert v.legal, v.errors
    assert v.effects.pirate_boxes == 5
    assert v.effects.attacks == [{"row": 1, "strength": 1, "lost_cannon": [0, 1]}]  # 4 boxes per row
    assert v.state.current_player == 1


def test_logs_without_coins_and_no_outer_space_is_a_forced_pass(h):
    full_ring = {c: "W" for c in OUTER_TOP + OUTER_BOTTOM + OUTER_RIGHT + ("A2", "A3", "A4", "A5", "A6")}
    state = h.state_of({"city": full_ring, "coins": 1})
    dice = ["log", "log", "wall", "wall", "swords"]
    assert judge(state, h.act(None, {}, dice=dice)).legal
    assert judge(state, h.act("log", {}, dice=dice, logs=2)).errors[0].rule == "log.coins"


def test_not_your_turn(h):
    state = h.state_of({}, {}, current_player=1)
    v = judge(state, h.act("crate", {"D4": "G"}, player=0))
    assert h.rules_of(v) == {"turn.not_current"}


# --------------------------------------------------------------------------------------------- cells

def test_placing_on_a_filled_cell(h):
    v = judge(h.state_of({"city": {"D4": "3"}}), h.act("crate", {"D4": "G", "D5": "G"}))
    assert h.rules_of(v) == {"place.filled"}
    assert "D4" in v.errors[0].message and "church of size 3" in v.errors[0].message


def test_placing_on_a_printed_crate(h):
    v = judge(h.state_of({}), h.act("cross", {"B2": "1"}))
    assert h.rules_of(v) == {"place.filled"}


def test_placing_on_a_tower_and_twice_on_one_cell(h):
    v = judge(h.state_of({}), h.act("wall", [("A1", "W"), ("B1", "W"), ("B1", "W")]))
    assert {"place.tower", "place.duplicate"} <= h.rules_of(v)


def test_wrong_item_for_the_symbol(h):
    v = judge(h.state_of({}), h.act("crate", {"D4": "G", "D5": "W"}))
    assert "place.wrong_item" in h.rules_of(v)


# -------------------------------------------------------------------------------------------- crates

def test_crates_connected_legal(h):
    v = judge(h.state_of({}), h.act("crate", {"C5": "G", "D5": "G", "D6": "G"}))
    assert v.legal
    assert v.state.players[0].city[4][2:4] == "GG"


def test_crates_not_connected(h):
    v = judge(h.state_of({}), h.act("crate", {"C5": "G", "E5": "G"}))
    assert h.rules_of(v) == {"crate.connected"}
    assert v.errors[0].message.startswith("Crates C5 and E5 are not connected to each other")


def test_crates_diagonal_is_not_connected(h):
    v = judge(h.state_of({}), h.act("crate", {"C5": "G", "D6": "G"}))
    assert h.rules_of(v) == {"crate.connected"}


def test_crates_connected_only_through_an_old_crate_are_not_connected(h):
    # C3 and C5 both touch nothing of this turn; the old crate at C4 does not join them
    v = judge(h.state_of({"city": {"C4": "G"}}), h.act("crate", {"C3": "G", "C5": "G"}))
    assert h.rules_of(v) == {"crate.connected"}


# --------------------------------------------------------------------------------------------- walls

def test_wall_on_an_inner_cell(h):
    v = judge(h.state_of({}), h.act("wall", {"D4": "W", "B1": "W"}))
    assert h.rules_of(v) == {"wall.outer_only"}
    assert "D4" in v.errors[0].message


def test_walls_anywhere_on_the_ring_need_not_touch(h):
    v = judge(h.state_of({}), h.act("wall", {"B1": "W", "G5": "W", "A3": "W"}))
    assert v.legal, v.errors


def test_completing_right_side_gives_two_coins_and_two_defence(h):
    state = h.state_of({"city": {c: "W" for c in OUTER_RIGHT[:3]}, "coins": 0})
    v = judge(state, h.act("wall", {"G5": "W", "G6": "W"}))
    assert v.legal, v.errors
    assert v.effects.coins == 2
    assert v.state.players[0].defence == 2


def test_completing_bottom_side_gives_three_vp(h):
    state = h.state_of({"city": {c: "W" for c in OUTER_BOTTOM[1:]}})
    v = judge(state, h.act("wall", {"B7": "W"}))
    assert v.effects.vp == 3 and v.state.players[0].defence == 2


def test_destroyed_side_filled_with_walls_gives_no_bonus_no_defence(h):
    state = h.state_of({"city": {"G2": "G", "G3": "W", "G4": "W"}, "coins": 0})
    v = judge(state, h.act("wall", {"G5": "W", "G6": "W"}))
    assert v.legal
    assert v.effects.coins == 0 and v.effects.vp == 0
    assert v.state.players[0].defence == 0


def test_top_side_bonus_person_with_full_effect(h):
    # completing B1-F1 brings a person of level 1-3: here a merchant next to the printed crates B2 C2 B3
    state = h.state_of({"city": {c: "W" for c in OUTER_TOP[:3]}, "coins": 0})
    v = judge(state, h.act("wall", {"E1": "W", "F1": "W", "C3": "m"}))
    assert v.legal, v.errors
    assert v.effects.coins == 4  # B2, C2, B3, B4 around C3
    assert v.state.players[0].defence == 2


def test_top_side_bonus_architect_builds_houses_with_logs(h):
    state = h.state_of({"city": {c: "W" for c in OUTER_TOP[:4]}, "logs": 3})
    v = judge(state, h.act("wall", {"F1": "W", "E3": "a", "E4": "H", "F4": "H"}))
    assert v.legal, v.errors
    assert v.effects.vp == 6 and v.effects.logs == -2


def test_bonus_person_without_completing_the_top_side(h):
    v = judge(h.state_of({}), h.act("wall", {"B1": "W", "D4": "c"}))
    assert h.rules_of(v) == {"bonus.not_earned"}


def test_bonus_person_of_level_4_is_illegal(h):
    state = h.state_of({"city": {c: "W" for c in OUTER_TOP[:4]}})
    v = judge(state, h.act("wall", {"F1": "W", "D4": "j"}))
    assert h.rules_of(v) == {"bonus.level"}


def test_bonus_declined_is_legal(h):
    state = h.state_of({"city": {c: "W" for c in OUTER_TOP[:4]}})
    assert judge(state, h.act("wall", {"F1": "W"})).legal


# ------------------------------------------------------------------------------------------ churches

def test_church_of_size_n_uses_n_crosses(h):
    dice = ["cross", "cross", "cross", "head", "head"]
    assert judge(h.state_of({}), h.act("cross", {"D4": "3"}, dice=dice)).legal
    assert judge(h.state_of({}), h.act("cross", {"D4": "2"}, dice=dice)).legal
    assert h.rules_of(judge(h.state_of({}), h.act("cross", {"D4": "4"}, dice=dice))) == {"dice.too_few"}


def test_crosses_never_split_into_two_churches(h):
    v = judge(h.state_of({}), h.act("cross", {"D4": "1", "D5": "2"}, dice=["cross"] * 3 + ["head"] * 2))
    assert "cross.one_church" in h.rules_of(v)


# ------------------------------------------------------------------------------------------- persons

@pytest.mark.parametrize(("item", "n", "vp"), [("c", 1, 1), ("s", 2, 0), ("n", 5, 7)])
def test_person_levels(h, item, n, vp):
    v = judge(h.state_of({}), h.act("head", {"D4": item}, dice=["head"] * n + ["log"] * (5 - n)))
    assert v.legal and v.effects.vp == vp


def test_priest_counts_adjacent_churches_diagonals_too(h):
    state = h.state_of({"city": {"C3": "1", "E5": "2", "D6": "3"}})
    v = judge(state, h.act("head", {"D4": "p"}, dice=["head"] * 2 + ["log"] * 3))
    assert v.effects.vp == 2  # C3 and E5; D6 is two rows away


def test_heads_make_one_person_only(h):
    v = judge(h.state_of({}), h.act("head", {"D4": "c", "D5": "a"}, dice=["head"] * 4 + ["log"]))
    assert "head.one_person" in h.rules_of(v)


def test_architect_houses_not_adjacent(h):
    v = judge(h.state_of({}), h.act("head", {"D4": "a", "F6": "H"}, dice=["head"] * 3 + ["log"] * 2))
    assert h.rules_of(v) == {"architect.adjacent"}
    assert "D4" in v.errors[0].message and "F6" in v.errors[0].message


def test_architect_houses_diagonal_ok_but_must_be_connected(h):
    ok = judge(h.state_of({}), h.act("head", {"D4": "a", "E5": "H", "F5": "H"}, dice=["head"] * 3 + ["log"] * 2))
    assert ok.legal
    bad = judge(h.state_of({}), h.act("head", {"D4": "a", "E5": "H", "C5": "H"}, dice=["head"] * 3 + ["log"] * 2))
    assert h.rules_of(bad) == {"house.connected"}


def test_architect_needs_a_log_per_house(h):
    v = judge(h.state_of({"logs": 1}), h.act("head", {"D4": "a", "E4": "H", "E5": "H"}, dice=["head"] * 5))
    assert h.rules_of(v) == {"architect.logs"}


def test_architect_at_most_three_houses(h):
    place = {"D4": "a", "E4": "H", "E5": "H", "E6": "H", "D6": "H"}
    v = judge(h.state_of({"logs": 5}), h.act("head", place, dice=["head"] * 5))
    assert h.rules_of(v) == {"architect.max_houses"}


def test_architect_with_no_houses_and_houses_without_architect(h):
    assert judge(h.state_of({}), h.act("head", {"D4": "a"}, dice=["head"] * 3 + ["log"] * 2)).legal
    v = judge(h.state_of({}), h.act("head", {"D4": "m", "E4": "H"}, dice=["head"] * 3 + ["log"] * 2))
    assert "house.no_architect" in h.rules_of(v)


# ---------------------------------------------------------------------------------------------- logs

def test_logs_cost_two_coins_per_delivery(h):
    v = judge(h.state_of({"coins": 2}), h.act("log", {}, dice=["log"] * 3 + ["head"] * 2, logs=3))
    assert v.legal and v.effects.coins == -2 and v.effects.logs == 3


def test_logs_without_two_coins(h):
    v = judge(h.state_of({"coins": 1}), h.act("log", {}, dice=["log"] * 5, logs=2))
    assert h.rules_of(v) == {"log.coins"}


def test_logs_after_turning_need_two_more_coins(h):
    v = judge(h.state_of({"coins": 3}), h.act("log", {}, dice=["log", "head", "head", "head", "head"], logs=2,
                                              turned=1))
    assert h.rules_of(v) == {"log.coins"}


def test_every_broken_rule_is_listed(h):
    dice = ["crate", "swords", "swords", "swords", "swords"]
    v = judge(h.state_of({"coins": 0, "city": {"D4": "1"}}),
              h.act("crate", {"D4": "G", "F6": "G"}, dice=dice, turned=1))
    assert {"place.filled", "crate.connected", "dice.turn_swords", "dice.turn_coins"} <= h.rules_of(v)
    assert v.state.to_json() == h.state_of({"coins": 0, "city": {"D4": "1"}}).to_json()


# ------------------------------------------------------------------------------------------- pirates

def test_a_turn_that_triggers_two_attacks(h):
    # 2 players: rows of 4 boxes; 3 marked, 5 swords -> 8: rows 1 and 2 attack (strength 1 and 3)
    state = h.state_of({"city": {"D4": "s", "D5": "s"}}, {}, pirate_boxes=3)
    v = judge(state, h.act(None, {}, dice=["swords"] * 5))
    assert v.effects.attacks == [{"row": 1, "strength": 1, "lost_cannon": [1]},
                                 {"row": 2, "strength": 3, "lost_cannon": [0, 1]}]
    assert [p.cannons_lost for p in v.state.players] == [1, 2]


def test_defence_equal_to_strength_holds(h):
    state = h.state_of({"city": {c: "W" for c in OUTER_RIGHT} | {"D4": "s"}}, {}, pirate_boxes=6)
    v = judge(state, h.act(None, {}, dice=["swords"] * 5))  # completes row 2 (8 boxes): strength 3
    assert v.effects.attacks[0]["strength"] == 3
    assert v.effects.attacks[0]["lost_cannon"] == [1]


def test_soldier_placed_this_turn_defends(h):
    state = h.state_of({"city": {"D4": "s", "D5": "s"}}, {}, pirate_boxes=7)
    v = judge(state, h.act("head", {"D6": "s"}, dice=["head", "head", "swords", "log", "log"]))
    assert v.effects.attacks == [{"row": 2, "strength": 3, "lost_cannon": [1]}]


def test_swords_after_the_sixth_attack_are_ignored(h):
    state = h.state_of({}, {}, pirate_boxes=23)  # 2 players: 24 boxes in all
    v = judge(state, h.act("crate", {"D4": "G"}, dice=["crate", "swords", "swords", "swords", "log"]))
    assert v.legal
    assert v.effects.pirate_boxes == 1
    assert v.effects.attacks == [{"row": 6, "strength": 12, "lost_cannon": [0, 1]}]
    after = v.state
    again = judge(after, h.act("crate", {"D4": "G"}, dice=["crate", "swords", "swords", "swords", "log"], player=1))
    assert again.legal and again.effects.pirate_boxes == 0 and again.effects.attacks == []
    assert again.state.pirate_boxes == 24


def test_swords_still_cannot_be_turned_after_the_sixth_attack(h):
    state = h.state_of({}, {}, pirate_boxes=24)
    v = judge(state, h.act("crate", {"D4": "G", "D5": "G"}, dice=["crate", "swords", "log", "log", "log"], turned=2))
    assert "dice.turn_swords" not in h.rules_of(v)  # 3 logs can be turned
    v = judge(state, h.act("crate", {"D4": "G", "D5": "G"}, dice=["crate", "swords", "swords", "swords", "swords"],
                           turned=1))
    assert "dice.turn_swords" in h.rules_of(v)


# -------------------------------------------------------------------------------------- end of game

def _nearly_full(last_empty: str) -> list[str]:
    rows = [list("#WWWWW#")] + [list("WGGGGGW") for _ in range(5)] + [list("#WWWWW#")]
    from companion.layout import cell_index

    c, r = cell_index(last_empty)
    rows[r][c] = "."
    return ["".join(x) for x in rows]


def test_end_of_round_rule(h):
    # 3 players, start player 0; player 1 fills the city: player 2 still plays, then the game ends
    state = h.state_of({}, {"city": _nearly_full("D4")}, {}, current_player=1)
    assert not state.final_round
    s1 = apply(state, h.act("crate", {"D4": "G"}, player=1))
    assert s1.final_round and not s1.finished and s1.current_player == 2
    s2 = apply(s1, h.act("crate", {"D4": "G"}, player=2))
    assert s2.finished
    v = judge(s2, h.act("crate", {"D5": "G"}, player=0))
    assert "game.over" in h.rules_of(v)


def test_last_player_of_the_round_filling_ends_at_once(h):
    state = h.state_of({}, {"city": _nearly_full("D4")}, current_player=1, start_player=0)
    s1 = apply(state, h.act("crate", {"D4": "G"}, player=1))
    assert s1.finished


def test_from_json_without_extras_infers_the_final_round(h):
    state = h.state_of({"city": _nearly_full("D4")}, {"city": _nearly_full("D4")}, current_player=1)
    assert not state.finished and not state.final_round
    full = [row.replace(".", "G") for row in _nearly_full("D4")]
    mid = h.state_of({"city": full}, {}, current_player=1)
    assert mid.final_round and not mid.finished
    over = h.state_of({"city": full}, {}, current_player=0)
    assert over.finished


# ------------------------------------------------------------------------------------- apply variants

def test_apply_raises_with_every_error(h):
    with pytest.raises(IllegalMove) as info:
        apply(h.state_of({}), h.act("crate", {"C5": "G", "E5": "G"}))
    assert [e.rule for e in info.value.errors] == ["crate.connected"]


def test_apply_forced_applies_an_illegal_drawing_and_its_effects(h):
    state = h.state_of({"logs": 1})
    action = h.act("head", {"D4": "a", "F6": "H", "F7": "H"}, dice=["head"] * 3 + ["log"] * 2)
    assert not judge(state, action).legal
    after = apply_forced(state, action)
    assert after.players[0].city[5][5] == "H" and after.players[0].vp == 6 and after.players[0].logs == 0
    assert after.current_player == 0  # one player: back to them


# ------------------------------------------------------------------------------------ malformed input

@pytest.mark.parametrize(("patch", "needle"), [
    ({"place": [{"cell": "D4", "item": "G"}, {"cell": "H9", "item": "G"}]}, "place[1].cell: unknown cell 'H9'"),
    ({"place": [{"cell": "D4", "item": "X"}]}, "place[0].item: unknown item 'X'"),
    ({"symbol": "fish"}, "symbol: unknown symbol 'fish'"),
    ({"dice": ["crate"] * 4}, "dice: 4 dice"),
    ({"dice": ["crate"] * 4 + ["bomb"]}, "dice[4]: unknown face 'bomb'"),
    ({"player": "zero"}, "player:"),
    ({"turned": -1}, "turned:"),
])
def test_malformed_action_names_the_field(patch, needle):
    from companion.rules import Action

    raw = {"player": 0, "dice": ["crate"] * 5, "symbol": "crate", "turned": 0,
           "place": [{"cell": "D4", "item": "G"}], "logs": 0} | patch
    with pytest.raises(ActionError) as info:
        Action.from_json(raw)
    assert str(info.value).startswith("ACTION.json: ")
    assert needle in str(info.value)


def test_wrong_player_index_is_malformed(h):
    with pytest.raises(ActionError, match="player: 3 is not a player index"):
        judge(h.state_of({}, {}), h.act("crate", {"D4": "G"}, player=3))


@pytest.mark.parametrize(("patch", "needle"), [
    ({"players": "x"}, "players:"),
    ({"pirate_boxes": 99}, "pirate_boxes: 99 is out of range"),
    ({"current_player": 2}, "current_player: 2 is out of range"),
    ({"players": [{"name": "A", "city": ["#.....#"] * 7}]}, "players[0].city[1]: A2 is not a corner"),
    ({"players": [{"name": "A", "city": ["#.....#", ".GG....", ".G.....", ".G.W...", ".......", ".......",
                                         "#.....#"]}]}, "wall at D4"),
    ({"players": [{"name": "A", "city": ["#.....#", ".GG.?..", ".G.....", ".G.....", ".......", ".......",
                                         "#.....#"]}]}, "unknown character '?' at E2"),
    ({"players": [{"name": "A", "city": ["#.....#"], "coins": 1}]}, "players[0].city:"),
    ({"players": [{"name": "A", "city": GameState.new(["A"]).players[0].city, "coins": -1}]},
     "players[0].coins: -1"),
])
def test_malformed_state_names_the_field(patch, needle):
    from companion.rules import StateError

    raw = GameState.new(["A", "B"]).to_json() | patch
    with pytest.raises(StateError) as info:
        GameState.from_json(raw)
    assert needle in str(info.value)


def test_logs_field_outside_a_log_action(h):
    v = judge(h.state_of({}), h.act("crate", {"D4": "G"}, logs=2))
    assert h.rules_of(v) == {"log.not_log_action"}


def test_drawing_without_a_symbol(h):
    v = judge(h.state_of({}), h.act(None, {"D4": "G"}, dice=["crate"] * 5))
    assert "place.wrong_item" in h.rules_of(v)


def test_two_bonus_persons(h):
    state = h.state_of({"city": {c: "W" for c in OUTER_TOP[:4]}})
    v = judge(state, h.act("wall", {"F1": "W", "D4": "c", "E5": "s"}))
    assert h.rules_of(v) == {"bonus.one_person"}


def test_turning_more_dice_than_there_are(h):
    v = judge(h.state_of({"coins": 20}), h.act("crate", {c: "G" for c in ("C5", "D5", "E5", "F5", "F6")},
                                                 dice=["crate", "crate", "head", "head", "head"], turned=4))
    assert "dice.turn_count" in h.rules_of(v)


def test_messages_are_sentences_naming_cells(h):
    v = judge(h.state_of({"city": {"D4": "s"}}), h.act("crate", {"D4": "G", "F6": "G"}))
    for e in v.errors:
        assert e.message.endswith(".") and e.message[0].isupper()
    assert any("D4" in e.message for e in v.errors) and any("F6" in e.message for e in v.errors)
