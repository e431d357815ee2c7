"""Built-in players for simulations and the demo: they roll their own dice (keep / re-roll, up to three
rolls) and pick an option.

RandomBot keeps dice at random and plays a random legal option (``random_action``: a feasible symbol,
a count and cells at random; fast, not uniform over all options). GreedyBot keeps its most common face
and plays the option with the best immediate ``option_value``.
"""

from __future__ import annotations

import random
from collections import Counter

from companion.rules import FACES, SYMBOLS, Action, GameState, legal_actions, option_value, random_action

N_DICE = 5


class Bot:
    """Base: three rolls with the rulebook's keep rules; subclasses choose keeps and the option."""

    name = "bot"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def roll(self, state: GameState, rng: random.Random) -> list[str]:
        """Roll all five; keep any; re-roll the rest; up to three rolls. The second roll re-rolls only
        dice not kept after the first; on the third, dice kept after the first may roll again, so the
        keep choice after the second roll is free over all five (rulebook)."""
        dice = rng.choices(FACES, k=N_DICE)
        for roll in (1, 2):
            kept = self.keep(state, dice, rng, roll)
            if all(kept):
                break
            for k in range(N_DICE):
                if not kept[k]:
                    dice[k] = FACES[rng.randrange(6)]
        return dice

    def keep(self, state: GameState, dice: list[str], rng: random.Random, roll: int) -> list[bool]:
        raise NotImplementedError

    def pick(self, state: GameState, dice: list[str], rng: random.Random) -> Action:
        raise NotImplementedError

    def choose_action(self, state: GameState, rng: random.Random | None = None) -> Action:
        rng = rng or self.rng
        return self.pick(state, self.roll(state, rng), rng)


class RandomBot(Bot):
    name = "random"

    def keep(self, state: GameState, dice: list[str], rng: random.Random, roll: int) -> list[bool]:
        if rng.random() < 0.3:  # happy with this roll
            return [True] * N_DICE
        bits = rng.getrandbits(N_DICE)
        return [bool(bits >> k & 1) for k in range(N_DICE)]

    def pick(self, state: GameState, dice: list[str], rng: random.Random) -> Action:
        return random_action(state, dice, rng)


class GreedyBot(Bot):
    name = "greedy"

    def keep(self, state: GameState, dice: list[str], rng: random.Random, roll: int) -> list[bool]:
        counts = Counter(d for d in dice if d in SYMBOLS)
        if not counts:
            return [d == "swords" for d in dice]  # swords cannot be turned; re-rolling them is free luck
        best, n = counts.most_common(1)[0]
        if n >= 4:
            return [True] * N_DICE
        return [d == best for d in dice]

    def pick(self, state: GameState, dice: list[str], rng: random.Random) -> Action:
        options = legal_actions(state, dice)
        best_value = float("-inf")
        best: list[Action] = []
        for action in options:
            value = option_value(state, action)
            if value > best_value + 1e-9:
                best_value, best = value, [action]
            elif value >= best_value - 1e-9:
                best.append(action)
        return best[rng.randrange(len(best))]


BOTS: dict[str, type[Bot]] = {"random": RandomBot, "greedy": GreedyBot}


def mixed_table(n_players: int, seed: int = 0) -> list[Bot]:
    """A table of bots for the demo and the benchmarks: greedy and random players by turns (seat 0 greedy),
    seat k seeded ``seed + k`` for the rolls and choices it makes with its own generator (``choose_action``
    without one)."""
    return [GreedyBot(seed + k) if k % 2 == 0 else RandomBot(seed + k) for k in range(n_players)]
