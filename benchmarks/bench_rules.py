"""Rules engine speed: `.venv/bin/python benchmarks/bench_rules.py` prints each figure and its target.

- judging one action (median)                      target <= 0.5 ms
- final tally of 5 players (median)                target <= 0.5 ms
- random-bot simulation, complete 4-player games   target >= 200 games/s (one core)
- legal options for 5 crates / 5 heads, half-full city (worst of several cities)   target <= 50 ms
"""

from __future__ import annotations

import random
import statistics
import time

from companion.bots import RandomBot
from companion.rules import FACES, GameState, final_tally, judge, legal_actions, random_action, resolve
from companion.rules.board import CELL_NAMES
from companion.simulate import play_game


def _midgame(seed: int, empties_left: int, n_players: int = 4) -> GameState:
    rng = random.Random(seed)
    bot = RandomBot()
    state = GameState.new([f"p{k}" for k in range(n_players)])
    while not state.finished and state.current.empty_spaces > empties_left:
        resolve(state, bot.choose_action(state, rng))
    return state


def _median_ms(fn, items) -> float:
    times = []
    for item in items:
        t0 = time.perf_counter()
        fn(item)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def main() -> None:
    rng = random.Random(2026)
    rows: list[tuple[str, float, str, bool]] = []

    # judge: bot moves on states across the game (legal) and the same moves shifted by one cell (mostly illegal)
    cases = []
    for seed in range(40):
        state = _midgame(seed, rng.randrange(5, 40))
        if state.finished:
            continue
        for _ in range(25):
            action = random_action(state, rng.choices(FACES, k=5), rng)
            cases.append((state, action))
            moved = tuple(p._replace(cell=rng.choice(CELL_NAMES)) for p in action.place)
            cases.append((state, action._replace(place=moved)))
    ms = _median_ms(lambda c: judge(*c), cases)
    rows.append(("judge one action, median", ms, "<= 0.5 ms", ms <= 0.5))

    # tally: 5 players at the end of random games
    ends = [play_game(5, [RandomBot() for _ in range(5)], rng).final_state for _ in range(20)]
    ms = _median_ms(final_tally, ends * 25)
    rows.append(("final tally of 5 players, median", ms, "<= 0.5 ms", ms <= 0.5))

    # simulation
    bots = [RandomBot() for _ in range(4)]
    n_games = 400
    t0 = time.perf_counter()
    for _ in range(n_games):
        play_game(4, bots, rng)
    rate = n_games / (time.perf_counter() - t0)
    rows.append(("random-bot 4-player games per second", rate, ">= 200 /s", rate >= 200))

    # legal options on half-full cities (~22 empty spaces), coins and logs to spare
    for symbol in ("crate", "head"):
        worst, counts = 0.0, []
        for seed in range(12):
            state = _midgame(100 + seed, 22)
            state.current.coins, state.current.logs = 6, 3
            t0 = time.perf_counter()
            options = legal_actions(state, [symbol] * 5)
            worst = max(worst, (time.perf_counter() - t0) * 1000)
            counts.append(len(options))
        rows.append((f"legal options, 5x {symbol}, half-full city, worst of 12 "
                     f"({min(counts)}-{max(counts)} options)", worst, "<= 50 ms", worst <= 50))

    for name, value, target, ok in rows:
        unit = "/s" if "per second" in name else " ms"
        print(f"{name:<78} {value:10.3f}{unit:<3}  target {target:<10} {'ok' if ok else 'MISSED'}")


if __name__ == "__main__":
    main()
