"""Rules-aware move reading: the tracker weighs every legal action of the roll against the camera's cell
probabilities, takes the most probable, asks the players about a close call, and keeps a dispute for a
drawing no legal action fits."""

from __future__ import annotations

import math

import pytest

from companion.errors import UserError
from companion.layout import ALL_CELLS, LAYOUT, empty_city
from companion.reading import (
    ASK_WITHIN,
    DOUBT_BELOW,
    DOUBT_WITHIN,
    FIT_WITHIN,
    UNUSED_DOUBT_BELOW,
    describe_choice,
    leaves_dice_unused,
    read_move,
)
from companion.rules import GameState
from companion.tracker import Tracker, city_cell
from vision.observation import BoardReading, Observation

from .conftest import ONES, dice_readings, draw

START = empty_city()
TWO_HEADS = ["head", "head", "wall", "crate", "swords"]


def reading(seat: int, city: list[str], doubts: dict[str, dict[str, float]] | None = None,
            sure: dict[str, float] | None = None) -> BoardReading:
    """A board as the camera reads it: every drawable cell certain of what it shows, except ``doubts``
    (cell -> readings with probabilities), whose likeliest reading is what ``city`` shows there; ``sure``:
    how sure the reader is of some cells (``BoardReading.confidence``; the rest 1.0)."""
    doubts = doubts or {}
    alternatives: dict[str, dict[str, float]] = {}
    rows = [list(r) for r in city]
    for cell in ALL_CELLS:
        if cell in LAYOUT.towers or cell in LAYOUT.printed_crates:
            continue
        if cell in doubts:
            alternatives[cell] = dict(doubts[cell])
            best = max(doubts[cell], key=doubts[cell].__getitem__)
            col, row = "ABCDEFG".index(cell[0]), int(cell[1]) - 1
            rows[row][col] = best
        else:
            alternatives[cell] = {city_cell(city, cell): 1.0}
    confidence = [list(r) for r in ONES]
    for cell, value in (sure or {}).items():
        confidence[int(cell[1]) - 1]["ABCDEFG".index(cell[0])] = value
    return BoardReading(seat=seat, city=tuple("".join(r) for r in rows),
                        confidence=tuple(tuple(r) for r in confidence), alternatives=alternatives)


def seen(cities: list[list[str]], dice: list[str] | None, doubts: dict[str, dict[str, float]] | None = None,
         player: int = 0, sure: dict[str, float] | None = None) -> Observation:
    boards = tuple(reading(i, c, doubts if i == player else None, sure if i == player else None)
                   for i, c in enumerate(cities))
    return Observation(boards=boards, dice=None if dice is None else dice_readings(dice))


def new_tracker(store, **kw) -> Tracker:
    return Tracker.start_game(store, ["Anke", "Ben"], start_player=0, **kw)


def play_doubtful_person(tracker: Tracker, doubts: dict[str, dict[str, float]], dice: list[str] = TWO_HEADS) -> None:
    tracker.observe(seen([START, START], dice))
    tracker.observe(seen([START, START], dice, doubts))


def test_two_heads_never_make_a_juggler(store):
    """The camera likes a juggler best (55 %), but two heads and 3 coins cannot make one (it needs 4
    heads: 2 turned cost 4 coins); the soldier it saw at 35 % is the move."""
    t = new_tracker(store)
    play_doubtful_person(t, {"D4": {"j": 0.55, "s": 0.35, "c": 0.05, ".": 0.01}})
    assert t.dispute is None and t.question is None
    move = t.last_action
    assert move["place"] == [{"cell": "D4", "item": "s"}] and move["symbol"] == "head" and move["turned"] == 0
    assert city_cell(t.state.players[0].city, "D4") == "s"


def test_the_issues_example_citizen_55_juggler_40(store):
    """'c 55 % / j 40 %' with two heads rolled: never the juggler. (The citizen is legal: a player may use
    fewer of the dice showing the symbol, rules-reference.md, so it is the most probable legal move.)"""
    t = new_tracker(store)
    play_doubtful_person(t, {"D4": {"c": 0.55, "j": 0.40, "s": 0.02, ".": 0.01}})
    assert t.question is None and t.dispute is None
    assert t.last_action["place"] == [{"cell": "D4", "item": "c"}]
    # the same reading the other way round: the juggler is likelier, still impossible
    t2 = Tracker.start_game(store, ["Anke", "Ben"])
    play_doubtful_person(t2, {"D4": {"j": 0.55, "c": 0.40, "s": 0.02, ".": 0.01}})
    assert t2.last_action["place"] == [{"cell": "D4", "item": "c"}]


def test_without_the_rules_the_same_reading_is_a_dispute(store):
    t = new_tracker(store, rules_aware=False)
    play_doubtful_person(t, {"D4": {"j": 0.55, "s": 0.35, "c": 0.05, ".": 0.01}})
    assert t.dispute is not None and t.dispute.action["place"] == [{"cell": "D4", "item": "j"}]
    assert t.current_player() == 0


def test_a_close_call_is_asked_and_the_answer_is_the_move(store):
    t = new_tracker(store)
    play_doubtful_person(t, {"D4": {"s": 0.5, "p": 0.45, ".": 0.02}})
    assert t.question is not None and t.dispute is None
    assert t.current_player() == 0 and city_cell(t.state.players[0].city, "D4") == "."  # nothing applied yet
    q = t.snapshot()["question"]
    assert [c["place"] for c in q["choices"]] == [[{"cell": "D4", "item": "s"}], [{"cell": "D4", "item": "p"}]]
    assert q["texts"] == ["A soldier at D4", "A priest at D4"]
    # the same view again does not ask twice
    t.observe(seen([START, START], TWO_HEADS, {"D4": {"s": 0.5, "p": 0.45, ".": 0.02}}))
    assert [e["type"] for e in store.events(t.game_id)].count("question") == 1
    with pytest.raises(UserError):
        t.answer_question(2)
    t.answer_question(1)
    assert t.question is None
    assert t.last_action["place"] == [{"cell": "D4", "item": "p"}]
    assert city_cell(t.state.players[0].city, "D4") == "p" and t.current_player() == 1
    assert [e["type"] for e in store.events(t.game_id)][-3:] == ["question", "answered", "move"]
    assert [e.kind for e in t.log][-3:] == ["question", "answered", "move"]
    with pytest.raises(UserError):
        t.answer_question(0)  # nothing asked any more


def test_the_reading_the_players_choose_teaches_the_hand_as_their_word(store):
    """A close call answered is a person labelling a hard drawing: it teaches the seat's hand as a correction
    does (kind "answer"), not as a move the camera read, and taking the move back forgets it."""
    t = new_tracker(store)
    heard = []
    t.drawing_listeners.append(heard.append)
    play_doubtful_person(t, {"D4": {"s": 0.5, "p": 0.45, ".": 0.02}})
    assert heard == []  # asked: nothing confirmed yet
    t.answer_question(1)
    assert [(d.kind, d.seat, d.cells) for d in heard] == [("answer", 0, {"D4": "p"})]
    t.undo()
    assert (heard[-1].kind, heard[-1].cells) == ("undone", {"D4": "p"})


def test_a_question_survives_a_restart(store):
    t = new_tracker(store)
    play_doubtful_person(t, {"D4": {"s": 0.5, "p": 0.45, ".": 0.02}})
    asked = t.question
    again = Tracker(store, t.game_id)
    assert again.question is not None
    assert again.question.choices == asked.choices and again.question.texts == asked.texts
    assert again.snapshot()["question"]["texts"] == ["A soldier at D4", "A priest at D4"]
    again.answer_question(0)
    assert city_cell(again.state.players[0].city, "D4") == "s"
    assert Tracker(store, t.game_id).question is None


def test_no_legal_action_fits_a_confident_illegal_drawing(store):
    """A wall on an inner space read with confidence: calling it empty would explain away a drawing the
    camera is sure of, so it stays a dispute, as without the rules."""
    t = new_tracker(store)
    walls = ["wall", "wall", "crate", "head", "swords"]
    t.observe(seen([START, START], walls))
    t.observe(seen([START, START], walls, {"B1": {"W": 0.99, ".": 0.005}, "D4": {"W": 0.97, "G": 0.02, ".": 0.005}}))
    assert t.question is None
    assert t.dispute is not None and [e["rule"] for e in t.dispute.errors] == ["wall.outer_only"]
    assert t.dispute.action["place"] == [{"cell": "B1", "item": "W"}, {"cell": "D4", "item": "W"}]


def test_a_faint_phantom_is_not_part_of_the_move(store):
    """Two walls drawn on B1 and C1 and a smudge on D4 that reads as a wall at 60 %: a wall on an inner
    space is impossible, and the walls alone explain the board well enough."""
    t = new_tracker(store)
    walls = ["wall", "wall", "crate", "head", "swords"]
    t.observe(seen([START, START], walls))
    t.observe(seen([START, START], walls, {"B1": {"W": 0.99, ".": 0.005}, "C1": {"W": 0.98, ".": 0.01},
                                            "D4": {"W": 0.6, ".": 0.4}}))
    assert t.dispute is None and t.question is None
    assert t.last_action["place"] == [{"cell": "B1", "item": "W"}, {"cell": "C1", "item": "W"}]


def test_a_cell_corrected_by_hand_settles_the_question(store):
    t = new_tracker(store)
    play_doubtful_person(t, {"D4": {"s": 0.5, "p": 0.45, ".": 0.02}})
    assert t.question is not None
    t.correct_cell(0, "D4", "p")
    assert t.question is None and t.last_action["place"] == [{"cell": "D4", "item": "p"}]


def test_read_move_scores_and_margin():
    state = GameState.new(["Anke", "Ben"])
    cells = {c: {".": 1.0} for c in ALL_CELLS if c not in LAYOUT.towers and c not in LAYOUT.printed_crates}
    cells["D4"] = {"s": 0.5, "p": 0.3, "j": 0.15, ".": 0.05}
    result = read_move(state, TWO_HEADS, cells)
    assert [r.action["place"][0]["item"] for r in result.ranked[:2]] == ["s", "p"]
    assert result.margin == pytest.approx(math.log(0.5 / 0.3))
    assert result.close == (math.log(0.5 / 0.3) < ASK_WITHIN)
    assert all(result.raw_score - r.score <= FIT_WITHIN for r in result.ranked)
    assert "j" not in {r.action["place"][0]["item"] for r in result.ranked}  # never legal with 3 coins
    assert result.candidates == ("D4",)


def test_describe_choice_names_the_difference_first():
    a = {"place": [{"cell": "B1", "item": "W"}, {"cell": "C1", "item": "W"}, {"cell": "D2", "item": "s"}],
         "turned": 1}
    b = {"place": [{"cell": "B1", "item": "W"}, {"cell": "C1", "item": "W"}, {"cell": "D2", "item": "p"}]}
    assert describe_choice(a, b) == "A soldier at D2, 2 walls at B1, C1 (1 die turned)"
    assert describe_choice(b) == "2 walls at B1, C1, a priest at D2"
    assert draw(START, a["place"])[1][3] == "s"


def test_a_drawing_read_as_probably_empty_when_the_dice_oblige_one(store):
    """Crates rolled, no log: the player must draw. The camera reads the new crate as empty at 70 %, so
    nothing reads as drawn; when the tray empties, the crate (30 %) is the most probable legal move,
    where reading without the rules leaves an illegal pass to dispute."""
    crates = ["crate", "crate", "wall", "head", "swords"]
    for rules_aware in (True, False):
        t = Tracker.start_game(store, ["Anke", "Ben"], rules_aware=rules_aware)
        t.observe(seen([START, START], crates))
        faint = {"E5": {".": 0.7, "G": 0.28, "H": 0.01}}
        t.observe(seen([START, START], crates, faint))
        assert t.pending is None and t.current_player() == 0  # nothing read as drawn yet
        t.observe(seen([START, START], [], faint))
        if rules_aware:
            assert t.dispute is None and t.last_action["place"] == [{"cell": "E5", "item": "G"}]
        else:
            assert t.dispute is not None and t.dispute.action["symbol"] is None


def test_a_faint_drawing_the_camera_is_unsure_of_is_asked_about_when_the_tray_empties(store):
    """Two heads rolled, the new person read as empty at 60 %, a soldier at 38 %, a priest at 1.2 %: when the
    tray empties the soldier is the most probable legal move, but the camera is unsure of the cell and the
    priest is within DOUBT_WITHIN of what it saw: the players are asked, as for a drawing read as drawn."""
    t = new_tracker(store)
    t.observe(seen([START, START], TWO_HEADS))
    faint = {"E5": {".": 0.6, "s": 0.38, "p": 0.012, "c": 0.008}}
    t.observe(seen([START, START], TWO_HEADS, faint, sure={"E5": 0.6}))
    assert t.pending is None and t.question is None  # nothing read as drawn yet
    t.observe(seen([START, START], [], faint, sure={"E5": 0.6}))
    assert t.question is not None and t.current_player() == 0
    assert [c["place"] for c in t.question.choices] == [[{"cell": "E5", "item": "s"}], [{"cell": "E5", "item": "p"}]]
    t.answer_question(1)
    assert t.last_action["place"] == [{"cell": "E5", "item": "p"}] and t.current_player() == 1


def test_an_inner_wall_read_as_drawn_is_not_explained_away(store):
    """The cell reader weighs a wall on an inner space down (walls stand on the outer ring), so a real
    inner wall may read at only 80 %. Two walls rolled and two drawn, one of them inside: the wall on B1
    alone is legal, but it would call a cell the camera reads as drawn (4:1) empty. That is how an illegal
    drawing would be explained away, so it stays a dispute."""
    t = new_tracker(store)
    walls = ["wall", "wall", "crate", "head", "swords"]
    t.observe(seen([START, START], walls))
    t.observe(seen([START, START], walls, {"B1": {"W": 0.99, ".": 0.005}, "D4": {"W": 0.8, ".": 0.2}}))
    assert t.question is None and t.dispute is not None
    assert [e["rule"] for e in t.dispute.errors] == ["wall.outer_only"]
    # the same board read with the rules but no limit on what may be taken as empty: B1 alone
    cells = t.cell_readings(0)
    assert read_move(t.state, walls, cells, drop_within=40.0).best["place"] == [{"cell": "B1", "item": "W"}]
    assert read_move(t.state, walls, cells).ranked == []


@pytest.mark.parametrize("answer", [0, 1])
def test_an_illegal_drawing_half_read_as_a_legal_one_is_asked(store, answer):
    """One wall drawn on an inner space, read as a wall at 60 % and a crate at 25 % (crates rolled): the
    legal crate is hardly less probable than the wall as drawn. Recording the crate silently would score a
    move nobody made, so the players are asked; the button for the wall says why it is not allowed, and
    choosing it opens the dispute naming the rule."""
    t = new_tracker(store)
    roll = ["crate", "crate", "wall", "head", "swords"]
    t.observe(seen([START, START], roll))
    t.observe(seen([START, START], roll, {"D4": {"W": 0.6, "G": 0.25, ".": 0.05}}))
    assert t.dispute is None and t.question is not None
    legal, as_drawn = t.question.texts
    assert legal == "A crate at D4"
    assert as_drawn == ("A wall at D4 (not allowed: walls go only in the outer (dark) spaces, never in the inner "
                        "ones)"), as_drawn
    t.answer_question(answer)
    assert t.question is None
    if answer == 0:
        assert t.dispute is None and city_cell(t.state.players[0].city, "D4") == "G"
    else:
        assert t.dispute is not None and [e["rule"] for e in t.dispute.errors] == ["wall.outer_only"]
        assert city_cell(t.state.players[0].city, "D4") == "."
        # a restart reads the same dispute back from the log
        assert Tracker(store, t.game_id).dispute is not None


def test_an_illegal_drawing_clearly_read_so_is_asked_too(store):
    """The same drawing read as a wall at 95 % (crate 2 %): the legal crate still fits within FIT_WITHIN, so
    taking it silently would explain a clear inner wall away (bench_moves: a careless player's inner wall
    read at 85 %, recorded as a crate at 12 %). The players are asked; "as drawn" is the dispute."""
    t = new_tracker(store)
    roll = ["crate", "crate", "wall", "head", "swords"]
    t.observe(seen([START, START], roll))
    t.observe(seen([START, START], roll, {"D4": {"W": 0.95, "G": 0.02, ".": 0.01}}))
    assert t.question is not None and t.question.texts[0] == "A crate at D4"
    assert t.question.texts[1].startswith("A wall at D4 (not allowed")
    t.answer_question(1)
    assert t.dispute is not None and [e["rule"] for e in t.dispute.errors] == ["wall.outer_only"]


@pytest.mark.parametrize(("crate", "wall"), [(0.73, 0.23), (0.97, 0.02)])
def test_a_legal_reading_whose_other_reading_is_forbidden_there_is_asked_when_close(store, crate, wall):
    """The other way round: an inner drawing read as a crate at 73 %, a wall at 23 % (a network taught on tables,
    where walls stand on the outer ring only, so reads a careless player's inner wall). The wall is under
    ASK_WITHIN less probable: the players are asked, and "as drawn" is the dispute. At 97 % to 2 % the crate is
    the move, no question."""
    t = new_tracker(store)
    roll = ["crate", "crate", "wall", "head", "swords"]
    t.observe(seen([START, START], roll))
    t.observe(seen([START, START], roll, {"D4": {"G": crate, "W": wall, ".": 0.01}}))
    if math.log(crate / wall) >= ASK_WITHIN:
        assert t.question is None and t.dispute is None
        assert t.last_action["place"] == [{"cell": "D4", "item": "G"}] and t.current_player() == 1
        return
    assert t.dispute is None and t.question is not None
    assert t.question.texts == ["A crate at D4", "A wall at D4 (not allowed: walls go only in the outer (dark) spaces, "
                                "never in the inner ones)"]
    t.answer_question(1)
    assert t.dispute is not None and [e["rule"] for e in t.dispute.errors] == ["wall.outer_only"]
    assert city_cell(t.state.players[0].city, "D4") == "."


THREE_CROSSES = ["cross", "cross", "cross", "log", "swords"]


@pytest.mark.parametrize("sure", [0.99, 0.6])
def test_a_drawing_the_camera_is_unsure_of_is_asked_about_when_another_legal_reading_fits(store, sure):
    """A church read as a 3 at 99 %, a 1 at 0.8 %: too unlikely to fit (FIT_WITHIN), but within DOUBT_WITHIN.
    Taken as read when the reader is sure of the cell; when it is under DOUBT_BELOW sure, the players are
    asked, and the 1 they tap is the move."""
    t = new_tracker(store)
    t.observe(seen([START, START], THREE_CROSSES))
    doubts = {"D4": {"3": 0.99, "1": 0.008, ".": 0.002}}
    assert FIT_WITHIN < math.log(0.99 / 0.008) < DOUBT_WITHIN
    t.observe(seen([START, START], THREE_CROSSES, doubts, sure={"D4": sure}))
    if sure >= DOUBT_BELOW:
        assert t.question is None and t.last_action["place"] == [{"cell": "D4", "item": "3"}]
        return
    assert t.question is not None and t.current_player() == 0
    assert [c["place"] for c in t.question.choices] == [[{"cell": "D4", "item": "3"}], [{"cell": "D4", "item": "1"}]]
    t.answer_question(1)
    assert t.question is None and t.last_action["place"] == [{"cell": "D4", "item": "1"}]
    assert t.last_action["symbol"] == "cross" and t.current_player() == 1


def test_an_unsure_cell_without_a_legal_rival_near_enough_is_taken_as_read(store):
    """Unsure, but the only other legal reading is less likely than DOUBT_WITHIN allows (a 2 at 0.1 %), or
    the other reading is not legal (a juggler with two heads): nothing to ask."""
    assert math.log(0.9985 / 0.001) > DOUBT_WITHIN
    t = new_tracker(store)
    t.observe(seen([START, START], THREE_CROSSES))
    t.observe(seen([START, START], THREE_CROSSES, {"D4": {"3": 0.9985, "2": 0.001, ".": 0.0005}}, sure={"D4": 0.5}))
    assert t.question is None and t.last_action["place"] == [{"cell": "D4", "item": "3"}]
    t2 = Tracker.start_game(store, ["Anke", "Ben"], start_player=0)
    t2.observe(seen([START, START], TWO_HEADS))
    t2.observe(seen([START, START], TWO_HEADS, {"D4": {"s": 0.6, "j": 0.39, ".": 0.01}}, sure={"D4": 0.5}))
    assert t2.question is None and t2.last_action["place"] == [{"cell": "D4", "item": "s"}]


FOUR_CROSSES = ["cross", "cross", "cross", "cross", "log"]
FOUR_HEADS = ["head", "head", "head", "head", "crate"]


@pytest.mark.parametrize(("dice", "doubts", "read_as", "rival"), [
    # a church 4 of a new hand read as a 1, with four crosses rolled (bench_moves, seed 2026)
    (FOUR_CROSSES, {"D4": {"1": 0.93, "4": 0.05, ".": 0.02}}, "1", "4"),
    # a juggler read as a soldier, with four heads rolled (bench_moves, seed 6060)
    (FOUR_HEADS, {"D4": {"s": 0.93, "j": 0.05, ".": 0.02}}, "s", "j"),
])
def test_a_doubtful_reading_that_leaves_dice_unused_is_asked_about(store, dice, doubts, read_as, rival):
    """Read at 90 % sure (over DOUBT_BELOW, under UNUSED_DOUBT_BELOW), the drawing leaves dice of its symbol
    unused while a reading of the same cell that uses them is legal and within DOUBT_WITHIN: the players are
    asked. At 99 % sure it is taken as read."""
    assert DOUBT_BELOW <= 0.9 < UNUSED_DOUBT_BELOW <= 0.99
    for sure, asked in ((0.9, True), (0.99, False)):
        t = Tracker.start_game(store, ["Anke", "Ben"], start_player=0)
        t.observe(seen([START, START], dice))
        t.observe(seen([START, START], dice, doubts, sure={"D4": sure}))
        if not asked:
            assert t.question is None and t.last_action["place"] == [{"cell": "D4", "item": read_as}]
            continue
        assert t.question is not None
        assert [c["place"] for c in t.question.choices] == [[{"cell": "D4", "item": read_as}],
                                                            [{"cell": "D4", "item": rival}]]
        t.answer_question(1)
        assert t.last_action["place"] == [{"cell": "D4", "item": rival}]


def test_a_doubtful_reading_that_uses_every_die_of_its_symbol_is_taken_as_read(store):
    """The same 90 % sure church, read as the 3 that uses the three crosses rolled (a 1 at 5 %): not asked,
    as before UNUSED_DOUBT_BELOW (a player seldom leaves dice unused, so the reading that uses them stands)."""
    t = new_tracker(store)
    t.observe(seen([START, START], THREE_CROSSES))
    t.observe(seen([START, START], THREE_CROSSES, {"D4": {"3": 0.93, "1": 0.05, ".": 0.02}}, sure={"D4": 0.9}))
    assert t.question is None and t.last_action["place"] == [{"cell": "D4", "item": "3"}]


def test_which_moves_leave_dice_unused():
    church = {"symbol": "cross", "turned": 0, "place": [{"cell": "D4", "item": "2"}]}
    assert leaves_dice_unused(church, THREE_CROSSES)
    assert not leaves_dice_unused({**church, "place": [{"cell": "D4", "item": "3"}]}, THREE_CROSSES)
    assert not leaves_dice_unused({**church, "turned": 1}, THREE_CROSSES)  # paid to turn one: every cross used
    soldier = {"symbol": "head", "turned": 0, "place": [{"cell": "D4", "item": "s"}]}
    assert leaves_dice_unused(soldier, FOUR_HEADS) and not leaves_dice_unused(soldier, TWO_HEADS)


def test_the_rival_reads_a_doubted_cell_otherwise():
    """``read_move``'s rival: only for a doubted cell the best reading draws on, only within ``doubt_within``."""
    state = GameState.new(["Anke", "Ben"])
    cells = {c: {".": 1.0} for c in ALL_CELLS if c not in LAYOUT.towers and c not in LAYOUT.printed_crates}
    cells["D4"] = {"3": 0.99, "1": 0.008, ".": 0.002}
    assert read_move(state, THREE_CROSSES, cells).rival is None
    assert read_move(state, THREE_CROSSES, cells, doubted=["E5"]).rival is None
    rival = read_move(state, THREE_CROSSES, cells, doubted=["D4"]).rival
    assert rival is not None and rival.action["place"] == [{"cell": "D4", "item": "1"}]
    assert read_move(state, THREE_CROSSES, cells, doubted=["D4"], doubt_within=0.0).rival is None
    # ``unused_doubted`` counts only when the best reading leaves dice of its symbol unused: the 3 uses all three
    assert read_move(state, THREE_CROSSES, cells, unused_doubted=["D4"]).rival is None
    cells["D4"] = {"1": 0.99, "3": 0.008, ".": 0.002}
    rival = read_move(state, THREE_CROSSES, cells, unused_doubted=["D4"]).rival
    assert rival is not None and rival.action["place"] == [{"cell": "D4", "item": "3"}]
