"""The game is its event log: play, override, undo, replay."""

import json
import random

import pytest

from companion.bots import RandomBot
from companion.game import Game
from companion.rules import Action, IllegalMove, Placement, StateError


def _crate(player: int, cell: str) -> Action:
    return Action(player, ("crate",) * 5, "crate", 0, (Placement(cell, "G"),), 0)


def test_play_appends_only_legal_moves():
    game = Game.new(["Anke", "Stefan"])
    assert game.play(_crate(0, "D4")).legal
    bad = game.play(_crate(1, "A1"))
    assert not bad.legal
    assert [e["type"] for e in game.events] == ["start", "move"]
    assert game.state.current_player == 1


def test_undo_is_an_event_and_replay_drops_the_move():
    game = Game.new(["Anke", "Stefan"])
    before = game.state
    game.play(_crate(0, "D4"))
    game.undo()
    assert [e["type"] for e in game.events] == ["start", "move", "undo"]
    assert game.state == before
    assert game.replay() == before
    with pytest.raises(StateError):
        game.undo()


def test_override_applies_an_illegal_drawing():
    game = Game.new(["Anke", "Stefan"])
    action = Action(0, ("crate",) * 5, "crate", 0, (Placement("C5", "G"), Placement("E5", "G")), 0)
    assert not game.play(action).legal
    state = game.override(action, "the table says it stands")
    assert state.players[0].city[4][2] == "G" and state.players[0].city[4][4] == "G"
    assert game.events[-1] == {"type": "override", "action": action.to_json(), "reason": "the table says it stands"}


def test_events_are_json_and_replay_equals_live_state():
    rng = random.Random(4)
    bot = RandomBot()
    game = Game.new(["a", "b", "c"], start_player=2)
    for k in range(40):
        game.play(bot.choose_action(game.state, rng))
        if k % 9 == 8:
            game.undo()
    events = json.loads(json.dumps(game.events))
    assert Game.from_events(events).state == game.state
    assert game.replay() == game.state


def test_a_bad_event_log_names_the_event():
    with pytest.raises(StateError, match=r"events\[1\]\.type"):
        Game.from_events([{"type": "start", "players": ["a", "b"]}, {"type": "dance"}])
    with pytest.raises(IllegalMove):
        Game.from_events([{"type": "start", "players": ["a", "b"]},
                          {"type": "move", "action": _crate(1, "D4").to_json()}])



def test_a_mixed_table_of_bots_takes_turns_and_plays_by_its_seed():
    from companion.bots import GreedyBot, RandomBot, mixed_table
    from companion.rules import GameState

    bots = mixed_table(4, seed=7)
    assert [type(b) for b in bots] == [GreedyBot, RandomBot, GreedyBot, RandomBot]
    state = GameState.new(["a", "b", "c", "d"], 0)
    first = [mixed_table(4, seed=7)[1].choose_action(state).to_json() for _ in range(2)]
    assert first[0] == first[1]  # the same seed plays the same move
    others = {str(mixed_table(4, seed=s)[1].choose_action(state).to_json()) for s in range(8, 20)}
    assert len(others) > 1  # and other seeds other moves
