"""Property tests over many complete simulated games (hypothesis draws seeds, table sizes, bot mixes)."""

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.bots import GreedyBot, RandomBot
from companion.game import Game
from companion.rules import Action, GameState, final_tally, judge, resolve
from companion.rules.board import N_SPACES
from companion.simulate import play_game

seeds = st.integers(min_value=0, max_value=2**32 - 1)
table_sizes = st.integers(min_value=2, max_value=5)


def _check_invariants(state: GameState) -> None:
    for p in state.players:
        assert 45 - p.empty_spaces <= N_SPACES == 45
        assert p.coins >= 0 and p.logs >= 0 and p.vp >= 0
        assert 0 <= p.cannons_lost <= 6
    assert 0 <= state.pirate_boxes <= 12 * state.n_players


@settings(max_examples=3000, deadline=None, database=None)
@given(seed=seeds, n_players=table_sizes)
def test_invariants_over_random_games(seed, n_players):
    rng = random.Random(seed)
    bots = [RandomBot() for _ in range(n_players)]
    state = GameState.new([f"p{k}" for k in range(n_players)], rng.randrange(n_players))
    turns = 0
    while not state.finished:
        resolve(state, bots[state.current_player].choose_action(state, rng))
        _check_invariants(state)
        turns += 1
    # everyone had the same number of turns, and somebody filled the city
    assert turns % n_players == 0
    assert any(p.city_full for p in state.players)
    tally = final_tally(state)
    for part in tally.to_json()["players"]:
        assert part["total"] == sum(part[k] for k in ("vp", "full_city", "coins", "logs", "churches", "cannons"))
    best = max(p.total for p in tally.players)
    assert all(tally.players[k].total == best for k in tally.winners)


@settings(max_examples=400, deadline=None, database=None)
@given(seed=seeds, n_players=table_sizes)
def test_check_accepts_every_bot_move_and_agrees_with_the_engine(seed, n_players):
    rng = random.Random(seed)
    record: list[dict] = []
    result = play_game(n_players, [RandomBot() for _ in range(n_players)], rng, record=record)
    game = Game.new([f"random-{k}" for k in range(n_players)], start_player=record[0]["state"]["current_player"])
    for k, step in enumerate(record):
        # JSON round trip, as `companion check` sees it
        state = GameState.from_json(json.loads(json.dumps(step["state"])))
        action = Action.from_json(json.loads(json.dumps(step["action"])))
        verdict = judge(state, action)
        assert verdict.legal, (step, verdict.errors)
        expected = record[k + 1]["state"] if k + 1 < len(record) else result.final_state.to_json()
        assert verdict.to_json()["state"] == expected
        assert game.play(action).legal
    assert game.state == result.final_state
    assert Game.from_events(json.loads(json.dumps(game.events))).state == result.final_state


def test_greedy_games_are_legal_throughout():
    rng = random.Random(11)
    record: list[dict] = []
    bots = [GreedyBot(), RandomBot(), GreedyBot()]
    result = play_game(3, bots, rng, record=record)
    for step in record:
        verdict = judge(GameState.from_json(step["state"]), Action.from_json(step["action"]))
        assert verdict.legal, (step, verdict.errors)
    assert result.final_state.finished
