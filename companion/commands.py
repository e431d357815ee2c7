"""Handlers of ``companion tally``, ``companion check`` and ``companion simulate`` (contract.md).

``simulate`` prints one JSON object:
    {"players": N, "games": K, "seed": S, "bots": ["random", ...],
     "average_score": [per seat], "wins": [per seat; a shared win counts for each winner],
     "average_rounds": r, "average_turns": t, "average_attacks": a, "seconds": s, "games_per_second": g}
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any

from companion import safejson
from companion.bots import BOTS, Bot
from companion.errors import UserError
from companion.games import get_game
from companion.rules import Action, GameState, judge
from companion.simulate import play_game

MAX_JSON_BYTES = 10_000_000


def _read_json(path: str, what: str) -> tuple[Any, str]:
    """Parsed JSON and the name to use in messages; ``-`` reads standard input."""
    label = f"{what} (stdin)" if path == "-" else path
    try:
        if path == "-":
            # bytes when there is a byte stream under stdin (a terminal, a pipe), else its text (tests)
            data = getattr(sys.stdin, "buffer", sys.stdin).read(MAX_JSON_BYTES + 1)
        else:
            with open(path, "rb") as f:
                data = f.read(MAX_JSON_BYTES + 1)
    except IsADirectoryError:
        raise UserError(f"{label}: a folder, not a file") from None
    except OSError as exc:
        raise UserError(f"{label}: cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_JSON_BYTES:
        raise UserError(f"{label}: larger than {MAX_JSON_BYTES // 1_000_000} MB; not a table state or move")
    return safejson.loads(data, label), label


def cmd_tally(args: argparse.Namespace) -> int:
    game = get_game(getattr(args, "game", None))  # no --game: Saint Malo, as before games were plugins
    data, label = _read_json(args.state, "STATE.json")
    print(json.dumps(game.tally(data, label)))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    if args.state == "-" and args.action == "-":
        raise UserError("check: only one of STATE.json and ACTION.json can be read from standard input ('-')")
    state_data, state_label = _read_json(args.state, "STATE.json")
    action_data, action_label = _read_json(args.action, "ACTION.json")
    state = GameState.from_json(state_data, source=state_label)
    action = Action.from_json(action_data, source=action_label)
    if not 0 <= action.player < state.n_players:
        raise UserError(f"{action_label}: player: {action.player} is not a player index "
                        f"(the state has players 0..{state.n_players - 1})")
    print(json.dumps(judge(state, action).to_json()))
    return 0


def parse_bots(spec: str | None, n_players: int) -> list[str]:
    if not spec:
        return ["random"] * n_players
    names = [s.strip().lower() for s in spec.split(",") if s.strip()]
    unknown = [n for n in names if n not in BOTS]
    if unknown:
        raise UserError(f"--bots: unknown bot {unknown[0]!r} (bots are {', '.join(BOTS)})")
    if len(names) == 1:
        return names * n_players
    if len(names) != n_players:
        raise UserError(f"--bots: {len(names)} bots for {n_players} players (give one name or one per seat)")
    return names


def run_simulation(n_players: int, games: int, seed: int | None, bot_names: list[str]) -> dict[str, Any]:
    rng = random.Random(seed)
    bots: list[Bot] = [BOTS[name]() for name in bot_names]
    scores = [0.0] * n_players
    wins = [0] * n_players
    rounds = turns = attacks = 0
    t0 = time.perf_counter()
    for _ in range(games):
        result = play_game(n_players, bots, rng)
        for k, p in enumerate(result.tally.players):
            scores[k] += p.total
        for k in result.tally.winners:
            wins[k] += 1
        rounds += result.rounds
        turns += result.turns
        attacks += result.attacks
    seconds = time.perf_counter() - t0
    return {
        "players": n_players, "games": games, "seed": seed, "bots": bot_names,
        "average_score": [round(s / games, 3) for s in scores], "wins": wins,
        "average_rounds": round(rounds / games, 3), "average_turns": round(turns / games, 3),
        "average_attacks": round(attacks / games, 3), "seconds": round(seconds, 4),
        "games_per_second": round(games / seconds, 1) if seconds > 0 else None,
    }


def cmd_simulate(args: argparse.Namespace) -> int:
    if not 2 <= args.players <= 5:
        raise UserError(f"--players: {args.players}; Saint Malo is for 2 to 5 players")
    if args.games < 1:
        raise UserError(f"--games: {args.games}; play at least one game")
    bot_names = parse_bots(getattr(args, "bots", None), args.players)
    print(json.dumps(run_simulation(args.players, args.games, args.seed, bot_names)))
    return 0
