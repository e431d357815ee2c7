"""Complete games between built-in bots, fast: one state mutated in place, no judging on the way
(the property tests check that ``judge`` accepts every move the bots make)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from companion.bots import Bot
from companion.rules import GameState, final_tally, resolve
from companion.rules.tally import Tally

MAX_TURNS = 5000  # guard against a bug looping forever; a real game takes ~25-60 rounds


@dataclass
class GameResult:
    tally: Tally
    rounds: int
    turns: int
    attacks: int
    final_state: GameState

    def to_json(self) -> dict[str, Any]:
        return {"tally": self.tally.to_json(), "rounds": self.rounds, "turns": self.turns,
                "attacks": self.attacks}


def play_game(n_players: int, bots: list[Bot], rng: random.Random, start_player: int | None = None,
              record: list[dict[str, Any]] | None = None) -> GameResult:
    """Play one complete game; ``bots[k]`` plays seat k. With ``record`` every move is appended as
    {"state": state before, "action": action} dicts (JSON) for checking."""
    if len(bots) != n_players:
        raise ValueError(f"{len(bots)} bots for {n_players} players")
    start = rng.randrange(n_players) if start_player is None else start_player
    state = GameState.new([f"{bots[k].name}-{k}" for k in range(n_players)], start)
    while not state.finished:
        if state.turn >= MAX_TURNS:
            raise RuntimeError(f"game did not end after {MAX_TURNS} turns")
        action = bots[state.current_player].choose_action(state, rng)
        if record is not None:
            record.append({"state": state.to_json(), "action": action.to_json()})
        resolve(state, action)
    return GameResult(final_tally(state), state.turn // n_players, state.turn,
                      state.track.attacks_done(state.pirate_boxes), state)
