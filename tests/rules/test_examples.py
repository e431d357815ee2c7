"""The worked examples of rules-reference.md (from the rulebooks)."""

from companion.rules import church_series_points, final_tally, judge


def test_churches_example_scores_25():
    assert church_series_points([1, 1, 1, 2, 2, 3, 4, 5, 5]) == 25


def test_churches_example_in_a_tally(h):
    churches = {"C4": "1", "D4": "1", "E4": "1", "C5": "2", "D5": "2", "E5": "3", "C6": "4", "D6": "5", "E6": "5"}
    state = h.state_of({"city": churches, "coins": 0, "logs": 0})
    assert final_tally(state).players[0].churches == 25


def test_architect_with_two_logs_scores_6(h):
    state = h.state_of({"logs": 2})
    action = h.act("head", {"D4": "a", "E5": "H", "E6": "H"}, dice=["head", "head", "wall", "head", "swords"])
    verdict = judge(state, action)
    assert verdict.legal, verdict.errors
    assert verdict.effects.vp == 6
    assert verdict.effects.logs == -2
    assert verdict.state.players[0].logs == 0
    assert verdict.state.players[0].city[4][4] == "H"


def test_merchant_next_to_7_crates_then_second_merchant_next_to_4(h):
    # crates around D4: C3 D3 E3 C4 E4 C5 D5 (7 of the 8 neighbours; E5 left empty)
    crates = {c: "G" for c in ("C3", "D3", "E3", "C4", "E4", "C5", "D5")}
    state = h.state_of({"city": crates, "coins": 0})
    first = judge(state, h.act("head", {"D4": "m"}, dice=["head"] * 3 + ["log", "log"]))
    assert first.legal, first.errors
    assert first.effects.coins == 7
    # second merchant at D6: neighbours C5, D5 crates, plus new crates at C7? use E6 side: C5 D5 E5 C6 E6 C7 D7 E7
    state2 = first.state
    state2.current_player = 0
    state2.players[0].cells[5 * 7 + 2] = ord("G")  # C6
    state2.players[0].cells[5 * 7 + 4] = ord("G")  # E6
    second = judge(state2, h.act("head", {"D6": "m"}, dice=["head"] * 3 + ["log", "log"]))
    assert second.legal, second.errors
    assert second.effects.coins == 4  # C5, D5, C6, E6: the crates were not used up by the first merchant
    assert second.state.players[0].coins == 11


def test_juggler_next_to_three_types_one_twice_scores_6(h):
    persons = {"C3": "a", "D3": "a", "E3": "s", "C4": "p"}
    state = h.state_of({"city": persons})
    verdict = judge(state, h.act("head", {"D4": "j"}, dice=["head"] * 4 + ["crate"]))
    assert verdict.legal, verdict.errors
    assert verdict.effects.vp == 6


def test_four_players_three_boxes_complete_row_3_strength_6(h):
    # rows hold 8 boxes with 4 players; 21 marked, 3 more complete row 3 (24)
    cities = [
        {"city": {}},  # defence 0
        {"city": {"C3": "s", "D3": "s", "E3": "s"}},  # 3
        {"city": {c: "W" for c in ("G2", "G3", "G4", "G5", "G6")} | {"D4": "s"}},  # 2 + 1 = 3
        {"city": {c: "W" for c in ("G2", "G3", "G4", "G5", "G6")} | {"C5": "s", "D5": "s", "E5": "s"}},  # 5
    ]
    state = h.state_of(*cities, pirate_boxes=21)
    assert [p.defence for p in state.players] == [0, 3, 3, 5]
    action = h.act("wall", {"B1": "W", "C1": "W"}, dice=["wall", "wall", "swords", "swords", "swords"])
    verdict = judge(state, action)
    assert verdict.legal, verdict.errors
    assert verdict.effects.attacks == [{"row": 3, "strength": 6, "lost_cannon": [0, 1, 2, 3]}]
    assert [p.cannons_lost for p in verdict.state.players] == [1, 1, 1, 1]
    assert verdict.state.pirate_boxes == 24
