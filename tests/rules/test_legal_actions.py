"""legal_actions: sound (every option judged legal), complete (equal to brute force on small cities),
canonical (no duplicates); random_action is always legal; option_value is consistent."""

import random
from itertools import combinations

import pytest

from companion.bots import RandomBot
from companion.rules import (
    FACES,
    Action,
    GameState,
    Placement,
    judge,
    legal_actions,
    option_value,
    random_action,
    resolve,
)
from companion.rules.board import CELL_NAMES, EMPTY, OUTER, SPACES


def _key(a: Action) -> tuple:
    return (a.symbol, a.turned, tuple(sorted(a.place)), a.logs)


def _midgame_state(seed: int, empties_left: int = 22) -> GameState:
    """Random bots play until the current player's city has about ``empties_left`` empty spaces."""
    rng = random.Random(seed)
    bot = RandomBot()
    state = GameState.new(["a", "b", "c", "d"], 0)
    while not state.finished and state.current.empty_spaces > empties_left:
        resolve(state, bot.choose_action(state, rng))
    return state


def _brute_force(state: GameState, dice: tuple[str, ...]) -> set[tuple]:
    """Every candidate drawing on the empty cells, judged one by one (small cities only)."""
    who = state.current_player
    cells = state.current.cells
    empties = [CELL_NAMES[i] for i in SPACES if cells[i] == EMPTY]
    outer = [c for c in empties if _index(c) in OUTER]
    found: set[tuple] = set()

    def try_action(symbol: str, place: list[tuple[str, str]], used: int, logs: int = 0) -> None:
        turned = max(0, used - dice.count(symbol))
        a = Action(who, dice, symbol, turned, tuple(Placement(c, i) for c, i in place), logs)
        if judge(state, a).legal:
            found.add(_key(a))

    for n in range(1, 6):
        try_action("log", [], n, logs=n)
        for combo in combinations(empties, n):
            try_action("crate", [(c, "G") for c in combo], n)
        for combo in combinations(outer, n):
            walls = [(c, "W") for c in combo]
            try_action("wall", walls, n)
            rest = [c for c in empties if c not in combo]
            for p in "cspm":
                for cell in rest:
                    try_action("wall", walls + [(cell, p)], n)
            for a_cell in rest:
                for h in range(0, 4):
                    for houses in combinations([c for c in rest if c != a_cell], h):
                        try_action("wall", walls + [(a_cell, "a")] + [(c, "H") for c in houses], n)
        for cell in empties:
            try_action("cross", [(cell, str(n))], n)
    for level, persons in {1: "c", 2: "sp", 3: "m", 4: "j", 5: "n"}.items():
        for p in persons:
            for cell in empties:
                try_action("head", [(cell, p)], level)
    for a_cell in empties:
        for h in range(0, 4):
            for houses in combinations([c for c in empties if c != a_cell], h):
                try_action("head", [(a_cell, "a")] + [(c, "H") for c in houses], 3)
    return found


def _index(name: str) -> int:
    return CELL_NAMES.index(name)


def _small_city_state(seed: int) -> GameState:
    """A city with 7 empty spaces, top side needing one wall (so bonus options exist)."""
    rng = random.Random(seed)
    state = GameState.new(["a", "b"], 0)
    cells = state.players[0].cells
    keep_empty = set(rng.sample([i for i in SPACES if cells[i] == EMPTY and i not in (1, 2, 3, 4, 5)], 6))
    keep_empty.add(5)  # F1
    for i in SPACES:
        if cells[i] == EMPTY and i not in keep_empty:
            cells[i] = ord("W") if i in (1, 2, 3, 4) else ord(rng.choice("GH12cs"))
            if i in OUTER and i not in (1, 2, 3, 4):
                cells[i] = ord("W") if rng.random() < 0.5 else ord("G")
    state.players[0].logs = 3
    state.players[0].coins = 4
    return state


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dice", [("crate", "crate", "wall", "swords", "head"),
                                  ("head", "head", "head", "log", "cross"),
                                  ("wall", "swords", "swords", "swords", "log")])
def test_legal_actions_equal_brute_force_on_a_small_city(seed, dice):
    state = _small_city_state(seed)
    options = legal_actions(state, dice)
    keys = [_key(a) for a in options]
    assert len(keys) == len(set(keys)), "duplicates"
    assert set(keys) == _brute_force(state, dice)


@pytest.mark.parametrize("seed", range(4))
def test_every_option_on_a_half_full_city_is_legal(seed):
    state = _midgame_state(seed)
    rng = random.Random(seed)
    for dice in (["crate"] * 5, ["head"] * 5, rng.choices(FACES, k=5), ["wall", "wall", "cross", "log", "swords"]):
        options = legal_actions(state, dice)
        assert options
        keys = [_key(a) for a in options]
        assert len(keys) == len(set(keys))
        for a in options[:: max(1, len(options) // 300)]:
            verdict = judge(state, a)
            assert verdict.legal, (a, verdict.errors)


def test_only_the_pass_when_nothing_can_be_used():
    state = GameState.new(["a", "b"])
    options = legal_actions(state, ["swords"] * 5)
    assert len(options) == 1 and options[0].symbol is None and options[0].place == ()
    assert judge(state, options[0]).legal


def test_random_action_is_always_legal():
    rng = random.Random(7)
    for seed in range(30):
        state = _midgame_state(seed, empties_left=rng.randrange(1, 40))
        if state.finished:
            continue
        for _ in range(20):
            dice = rng.choices(FACES, k=5)
            a = random_action(state, dice, rng)
            verdict = judge(state, a)
            assert verdict.legal, (a, verdict.errors)


def test_option_value_prefers_the_noble_and_counts_effects():
    state = GameState.new(["a", "b"])
    options = legal_actions(state, ["head"] * 5)
    best = max(options, key=lambda a: option_value(state, a))
    assert best.place[0].item == "n"
    citizen = next(a for a in options if a.place[0].item == "c")
    assert option_value(state, citizen) == pytest.approx(1 + 0.25 + 0.0)
