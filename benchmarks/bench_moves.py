"""Moves read right from the camera, with and without rules-aware reading, in a hand never trained on.

    .venv/bin/python benchmarks/bench_moves.py [--games 5] [--players 3] [--workers 2] [--sweep]

Bots play whole games (``companion.simulate.play_game``: greedy and random bots, as the demo's). Every
turn with a drawing is shown to the camera: the whole table after the drawing is rendered as a frame
(``vision.synth.table.render_table``, as the demo and the tracker's tests do) and read by the real table
pipeline (``vision.pipeline.TableReader``). The same observations go to two trackers, one reading each
cell's likeliest symbol (as before), one weighing every legal action of the roll against the cells'
probabilities (``companion.reading``). Once in a while a careless player first draws the move illegally
(the demo's ``illegal_variant``: one wall too many on an inner space, or a crate apart), then fixes it:
the rules must not explain a real illegal drawing away.

How the test data differs from the training data: every board is drawn by a hand of one family
(``vision.synth.hands``) and read by the cell network trained without that family
(``vision/cells/unseen/cnn_without_<family>.npz``, as ``bench_hands``; the game's family turns with each
game). Where that network is missing the shipped one reads, and the table says so. Cities are those of
real games (the bots' moves, legal placements, walls on the outer ring only), on whole table frames:
tilt, light, glare, sensor noise, several boards, the tray and the track.

What is measured, per move with a drawing (the dice are taken as read right: this is about drawings):
- right: the tracker recorded exactly the move drawn (symbol, dice turned, every cell and symbol);
- asked: a close call, or a move drawn on a cell the camera is unsure of with another legal reading of that
  cell (``companion.reading.DOUBT_BELOW``; ``UNUSED_DOUBT_BELOW`` when the move leaves dice of its symbol
  unused), put to the players, the drawn move one of the two choices (a tap, no typing);
- neither: asked, but the drawn move is neither choice (the players enter it by hand);
- dispute: no legal action fits what was read; the players fix the board or enter the move;
- wrong: the tracker recorded another move without asking (the costly error: nobody may notice); the
  rules-aware tracker's are listed, each drawn move beside the one recorded;
- and of the illegal drawings, how many became a dispute (caught) instead of being taken as a move.
Before each drawing, cells that the camera reads as drawn where the board is empty are corrected by hand
(the players do so when the dashboard shows them, as in the demo); counted as phantoms.

``--sweep`` also prints the same figures for other thresholds (``companion.reading.FIT_WITHIN``,
``DROP_WITHIN``, ``ASK_WITHIN``, ``UNUSED_DICE_PRIOR``, ``DOUBT_WITHIN`` and ``DOUBT_BELOW``, or "list": the
reader's own list of uncertain cells as the doubted ones, and ``UNUSED_DOUBT_BELOW``), worked out from the same
readings: how the thresholds were chosen (the two doubt thresholds at other seeds, ``--seed 3030`` and ``4040``;
``UNUSED_DOUBT_BELOW`` at ``5050`` and ``6060``). The sweep
does not replay the tracker's whole flow (an illegal drawing taken as a move and undone, the question about
a drawing read where the rules forbid it), so its figures can differ from the live ones above by a move or
two.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

OUTCOMES = ("right", "asked", "neither", "dispute", "wrong")
LANGUAGES = ("en", "it", "fr")


@dataclass
class Tally:
    moves: int = 0
    outcomes: dict[str, dict[str, int]] = field(default_factory=lambda: {
        mode: dict.fromkeys(OUTCOMES, 0) for mode in ("plain", "rules")})
    illegal: int = 0
    caught: dict[str, int] = field(default_factory=lambda: {"plain": 0, "rules": 0})
    # of those, caught after a question whose one reading was the drawing as drawn (one tap)
    caught_by_question: dict[str, int] = field(default_factory=lambda: {"plain": 0, "rules": 0})
    phantoms: int = 0
    cells_drawn: int = 0
    cells_misread: int = 0
    dice_misread: int = 0  # frames of a drawn move whose dice the camera read otherwise (not given to the trackers)
    turns: list[dict[str, Any]] = field(default_factory=list)  # for --sweep: readings and truths
    # The rules-aware tracker's moves recorded wrong without a question: what was drawn and what it took.
    wrong_moves: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.moves += other.moves
        for mode in self.outcomes:
            for k in OUTCOMES:
                self.outcomes[mode][k] += other.outcomes[mode][k]
            self.caught[mode] += other.caught[mode]
            self.caught_by_question[mode] += other.caught_by_question[mode]
        self.illegal += other.illegal
        self.phantoms += other.phantoms
        self.cells_drawn += other.cells_drawn
        self.cells_misread += other.cells_misread
        self.dice_misread += other.dice_misread
        self.turns.extend(other.turns)
        self.wrong_moves.extend(other.wrong_moves)


def _same_move(a: dict[str, Any] | None, b: dict[str, Any]) -> bool:
    if a is None:
        return False
    def key(x: dict[str, Any]) -> tuple[Any, ...]:
        return (x.get("symbol"), int(x.get("turned", 0)), sorted((p["cell"], p["item"]) for p in x.get("place", [])))
    return key(a) == key(b)


def _described(move: dict[str, Any]) -> str:
    """A move in a few words: what it placed where, its symbol, how many of the dice rolled show it and how many
    were turned to it."""
    placed = ", ".join(f"{p['item']} on {p['cell']}" for p in move.get("place", []))
    symbol = move.get("symbol")
    return (f"{placed or 'nothing'} ({symbol}: {list(move.get('dice', [])).count(symbol)} rolled, "
            f"{int(move.get('turned', 0))} turned)")


def _play_one(args: tuple[int, int, str, str, bool]) -> Tally:
    """One game in one hand family, shown to both trackers."""
    game_seed, n_players, family, language, keep_turns = args
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    import dataclasses

    import numpy as np

    from companion.bots import GreedyBot, mixed_table
    from companion.demo import illegal_variant
    from companion.layout import draw_on_city
    from companion.reading import cell_probabilities
    from companion.rules import Action, judge
    from companion.simulate import play_game
    from companion.store import GameStore
    from companion.tracker import Tracker, city_cell
    from vision.cells.reader import DEFAULT_MODEL_PATH, CellReader
    from vision.cells.train_hands import unseen_model_path
    from vision.observation import BoardReading, DieReading, Observation
    from vision.pipeline import TableReader
    from vision.synth.drawings import Hand
    from vision.synth.table import TableSpec, render_table

    unseen = unseen_model_path(family)
    model = unseen if unseen.is_file() else DEFAULT_MODEL_PATH
    reader = TableReader(language=language, cell_reader=CellReader(language, model_path=model))
    rng = random.Random(game_seed)
    bots = mixed_table(n_players, game_seed)
    record: list[dict[str, Any]] = []
    play_game(n_players, bots, rng, start_player=game_seed % n_players, record=record)
    hand_rng = np.random.default_rng(game_seed)
    hands = tuple(Hand.random(hand_rng, family=family) for _ in range(n_players))
    frame_rng = np.random.default_rng(game_seed + 1)
    tally = Tally()
    names = [f"p{k}" for k in range(n_players)]

    def certain(seat: int, city: list[str]) -> BoardReading:
        ones = tuple(tuple(1.0 for _ in range(7)) for _ in range(7))
        return BoardReading(seat=seat, city=tuple(city), confidence=ones)

    def camera(cities: list[list[str]], dice: list[str], boxes: int) -> Observation:
        spec = TableSpec(cities=tuple(tuple(c) for c in cities), dice=tuple(dice), pirate_boxes=boxes,
                         seed=game_seed, language=language, hands=hands)
        frame, _truth = render_table(spec, frame_rng)
        reader.reset()
        return reader.read(frame)

    def fix_phantoms(obs: Observation, player: int, engine: list[str], drawn: list[str]) -> Observation:
        """The players have marked empty, by hand, cells read as drawn where nothing is (aliases)."""
        boards = []
        for board in obs.boards:
            if board.seat != player:
                boards.append(board)
                continue
            rows = [list(r) for r in board.city]
            alternatives = dict(board.alternatives)
            for r in range(7):
                for c in range(7):
                    cell = f"{'ABCDEFG'[c]}{r + 1}"
                    if engine[r][c] == "." and drawn[r][c] == "." and rows[r][c] != ".":
                        rows[r][c] = "."
                        alternatives[cell] = {".": 1.0}
                        tally.phantoms += 1
            boards.append(dataclasses.replace(board, city=tuple("".join(r) for r in rows), alternatives=alternatives))
        return dataclasses.replace(obs, boards=tuple(boards))

    with tempfile.TemporaryDirectory() as tmp:
        store = GameStore(Path(tmp))
        trackers = {"plain": Tracker.start_game(store, names, start_player=record[0]["state"]["current_player"],
                                                rules_aware=False),
                    "rules": Tracker.start_game(store, names, start_player=record[0]["state"]["current_player"])}
        for step in record:
            state, action = step["state"], step["action"]
            player = action["player"]
            cities = [list(p["city"]) for p in state["players"]]
            for tracker in trackers.values():
                assert tracker.state.to_json()["players"][player]["city"] == cities[player]
            if not action["place"]:
                for tracker in trackers.values():
                    tracker.enter_move(action)
                continue
            after = [draw_on_city(c, action["place"]) if i == player else c for i, c in enumerate(cities)]
            dice = list(action["dice"])
            boxes = int(state["pirate_boxes"])
            before = Observation(boards=tuple(certain(i, c) for i, c in enumerate(cities)),
                                 dice=tuple(DieReading(f, 1.0) for f in dice))
            cleared = dataclasses.replace(before, dice=())
            for tracker in trackers.values():
                tracker.observe(before)
            # a careless player: first the move drawn illegally, then fixed (one turn in eight that allows it)
            bad = illegal_variant(cities[player], action) if rng.random() < 0.125 else None
            if bad is not None:
                bad_city = draw_on_city(cities[player], bad)
                shown = [bad_city if i == player else c for i, c in enumerate(cities)]
                obs = fix_phantoms(camera(shown, dice, boxes), player, cities[player], bad_city)
                tally.illegal += 1
                bad_board = obs.board(player)
                if keep_turns and bad_board is not None:
                    cells = {cell: cell_probabilities(bad_board.alternatives.get(cell), city_cell(bad_board.city, cell))
                             for cell in _empty_spaces(cities[player])}
                    tally.turns.append({"state": state, "dice": dice, "cells": cells, "truth": None,
                                        "doubted": [c for c in bad_board.uncertain if c in cells],
                                        "sureness": {c: bad_board.sureness(c) for c in cells},
                                        "taken_as_undrawn": False})
                for mode, tracker in trackers.items():
                    moves_before = len(tracker.move_seqs)
                    tracker.observe(dataclasses.replace(obs, dice=before.dice))
                    as_drawn = [k for k, c in enumerate(tracker.question.choices)
                                if not judge(tracker.state, Action.from_json(c)).legal] if tracker.question else []
                    if as_drawn:  # asked, one reading being the drawing as drawn: the players tap it
                        tracker.answer_question(as_drawn[0])
                        tally.caught_by_question[mode] += 1
                    if tracker.dispute is not None:
                        tally.caught[mode] += 1
                    elif len(tracker.move_seqs) > moves_before:
                        # taken as a move: the players take it back and fix the board (which then shows a
                        # new drawing, whatever the move taken back was)
                        tracker.undo()
                        tracker.ignored_diff = None
            obs = fix_phantoms(camera(after, dice, boxes), player, cities[player], after[player])
            seat_board = obs.board(player)
            tally.moves += 1
            tally.cells_drawn += len(action["place"])
            if seat_board is not None:
                tally.cells_misread += sum(city_cell(seat_board.city, p["cell"]) != p["item"] for p in action["place"])
                if keep_turns:
                    cells = {cell: cell_probabilities(seat_board.alternatives.get(cell), city_cell(seat_board.city, cell))
                             for cell in _empty_spaces(cities[player])}
                    # read as nothing drawn and nothing drawn is legal: the tracker takes the turn for a
                    # log delivery when the tray empties, whatever the rules would make of the cells
                    tracker = trackers["rules"]
                    seen_nothing = all(city_cell(seat_board.city, cell) == "." for cell in cells)
                    undrawn_legal = judge(tracker.state, Action.from_json(tracker._undrawn_action(player, dice))).legal
                    tally.turns.append({"state": state, "dice": dice, "cells": cells, "truth": action,
                                        "doubted": [c for c in seat_board.uncertain if c in cells],
                                        "sureness": {c: seat_board.sureness(c) for c in cells},
                                        "taken_as_undrawn": seen_nothing and undrawn_legal,
                                        "greedy": isinstance(bots[player], GreedyBot)})
            # The dice as rolled, not as the camera read them in this frame (this is about drawings); a die
            # misread there is counted apart.
            tally.dice_misread += obs.dice is None or sorted(d.face for d in obs.dice) != sorted(dice)
            for mode, tracker in trackers.items():
                moves_before = len(tracker.move_seqs)
                tracker.observe(dataclasses.replace(obs, dice=before.dice))
                tracker.observe(dataclasses.replace(obs, dice=()))
                if tracker.question is not None:
                    choices = tracker.question.choices
                    right = [k for k, c in enumerate(choices) if _same_move(c, action)]
                    if right:
                        tally.outcomes[mode]["asked"] += 1
                        tracker.answer_question(right[0])
                    else:
                        tally.outcomes[mode]["neither"] += 1
                        tracker.enter_move(action)
                elif tracker.dispute is not None:
                    tally.outcomes[mode]["dispute"] += 1
                    tracker.enter_move(action)
                elif len(tracker.move_seqs) > moves_before and _same_move(tracker.last_action, action):
                    tally.outcomes[mode]["right"] += 1
                else:
                    tally.outcomes[mode]["wrong"] += 1
                    recorded = tracker.last_action if len(tracker.move_seqs) > moves_before else None
                    if mode == "rules":
                        tally.wrong_moves.append(f"{family}: drawn {_described(action)}, recorded "
                                                 f"{_described(recorded) if recorded is not None else 'nothing'}")
                    if len(tracker.move_seqs) > moves_before:
                        tracker.undo()
                    tracker.enter_move(action)
                tracker.observe(cleared)
        store.close()
    return tally


def _empty_spaces(city: list[str]) -> list[str]:
    from companion.layout import ALL_CELLS
    from companion.tracker import SPACES, city_cell

    return [c for c in ALL_CELLS if c in SPACES and city_cell(city, c) == "."]


Thresholds = tuple[float, float, float, float, float, float | None, float]


def _sweep(turns: list[dict[str, Any]]) -> list[tuple[Thresholds, dict[str, int]]]:
    """The rules-aware outcomes for other thresholds, from the same readings (read_move with wide limits,
    then each threshold decides as the tracker does). ``caught``: illegal drawings left to a dispute;
    ``greedy right``/``greedy wrong``: the same on the greedy bots' moves alone (they use all the dice of
    their symbol more often than the random bots, as players do)."""
    from companion.reading import (
        ASK_WITHIN,
        DOUBT_BELOW,
        DOUBT_WITHIN,
        DROP_WITHIN,
        FIT_WITHIN,
        UNLISTED,
        UNUSED_DICE_PRIOR,
        UNUSED_DOUBT_BELOW,
        doubted_rival,
        leaves_dice_unused,
        read_move,
    )
    from companion.rules import GameState

    # (FIT_WITHIN, DROP_WITHIN, ASK_WITHIN, UNUSED_DICE_PRIOR, DOUBT_WITHIN, DOUBT_BELOW, UNUSED_DOUBT_BELOW); a
    # DOUBT_BELOW of None takes the reader's own list of uncertain cells as the doubted ones instead.
    now: Thresholds = (FIT_WITHIN, DROP_WITHIN, ASK_WITHIN, UNUSED_DICE_PRIOR, DOUBT_WITHIN, DOUBT_BELOW,
                       UNUSED_DOUBT_BELOW)
    grid: list[Thresholds] = [(fit, drop, *now[2:]) for fit in (3.0, 4.6, 6.9) for drop in (0.7, 1.1, 1.6, 2.3, 40.0)]
    grid += [(*now[:2], ask, *now[3:]) for ask in (0.0, 0.7, 1.1, 2.3)]
    grid += [(*now[:3], prior, *now[4:]) for prior in (0.0, 0.9, 1.7, 3.0) if prior != UNUSED_DICE_PRIOR]
    grid += [(*now[:4], doubt, below, now[6]) for doubt in (0.0, 4.6, 5.5, 6.9, 40.0)
             for below in (0.5, 0.7, 0.8, 0.9, 0.99, None) if (doubt, below) != now[4:6]]
    grid += [(*now[:6], unused) for unused in (0.0, 0.9, 0.97, 0.99, 1.01) if unused != UNUSED_DOUBT_BELOW]
    readings: dict[float, list[Any]] = {}
    for prior in sorted({g[3] for g in grid}):
        rows = readings[prior] = []
        for t in turns:
            cells = t["cells"]
            reading = read_move(GameState.from_json(t["state"]), t["dice"], cells, fit_within=40.0,
                                drop_within=40.0, unused_dice_prior=prior)
            drawn = {c: math.log(max(p.values()) / max(p.get(".", 0.0), UNLISTED))
                     for c, p in cells.items() if max(p, key=p.get) != "."}
            drops = [sum(cost for c, cost in drawn.items() if c not in {p["cell"] for p in r.action["place"]})
                     for r in reading.ranked]
            rows.append((reading, drops, t))
    out_rows = []
    for fit, drop, ask, prior, doubt, below, unused in grid:
        out = dict.fromkeys((*OUTCOMES, "caught", "greedy right", "greedy wrong", "greedy"), 0)
        for reading, drops, t in readings[prior]:
            truth = t["truth"]
            fitting = [r for r, d in zip(reading.ranked, drops, strict=True)
                       if reading.raw_score - r.score <= fit and d <= drop]
            rival = None
            if fitting:
                rivals = [r for r, d in zip(reading.ranked, drops, strict=True)
                          if reading.raw_score - r.score <= doubt and d <= drop]
                doubted = set(t["doubted"]) if below is None else {c for c, v in t["sureness"].items() if v < below}
                if leaves_dice_unused(fitting[0].action, t["dice"]):
                    doubted |= {c for c, v in t["sureness"].items() if v < unused}
                rival = doubted_rival(fitting[0], rivals, doubted)
            if truth is None:  # an illegal drawing: right when nothing fits
                out["caught"] += not fitting
                continue
            if t["taken_as_undrawn"]:
                outcome = "wrong"
            elif not fitting:
                outcome = "dispute"
            elif len(fitting) > 1 and fitting[0].score - fitting[1].score < ask:
                outcome = "asked" if any(_same_move(r.action, truth) for r in fitting[:2]) else "neither"
            elif rival is not None:
                outcome = "asked" if any(_same_move(r.action, truth) for r in (fitting[0], rival)) else "neither"
            else:
                outcome = "right" if _same_move(fitting[0].action, truth) else "wrong"
            out[outcome] += 1
            if t.get("greedy"):
                out["greedy"] += 1
                if outcome in ("right", "wrong"):
                    out["greedy " + outcome] += 1
        out_rows.append(((fit, drop, ask, prior, doubt, below, unused), out))
    return out_rows


def main() -> int:
    from vision.synth.hands import FAMILY_NAMES, missing_fonts

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5, help="games (the hand family turns with each game)")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--families", nargs="+", default=list(FAMILY_NAMES), choices=FAMILY_NAMES)
    parser.add_argument("--sweep", action="store_true", help="also the outcomes for other thresholds")
    args = parser.parse_args()
    if not 2 <= args.players <= 5 or args.games < 1:
        print("bench_moves: --players must be 2..5 and --games at least 1", file=sys.stderr)
        return 2
    missing = missing_fonts()
    if missing:
        print(f"bench_moves: {len(missing)} handwriting fonts are not installed ({missing[0]} ...); "
              "apt-get install the packages in vision.synth.hands.FONT_PACKAGES", file=sys.stderr)
        return 2
    from companion.reading import (
        ASK_WITHIN,
        DOUBT_BELOW,
        DOUBT_WITHIN,
        DROP_WITHIN,
        FIT_WITHIN,
        UNUSED_DOUBT_BELOW,
    )
    from vision.cells.train_hands import unseen_model_path

    jobs = [(args.seed + 97 * g, args.players, args.families[g % len(args.families)], LANGUAGES[g % len(LANGUAGES)],
             args.sweep) for g in range(args.games)]
    t0 = time.perf_counter()
    total = Tally()
    with ProcessPoolExecutor(max_workers=max(1, args.workers)) as pool:
        for tally in pool.map(_play_one, jobs):
            total.add(tally)
    families = sorted({j[2] for j in jobs})
    unseen = [f for f in families if unseen_model_path(f).is_file()]
    print(f"{args.games} games of {args.players} bots, hand families {', '.join(families)}; read by "
          + ("the network trained without each family" if len(unseen) == len(families) else
             f"the network trained without the family for {', '.join(unseen) or 'none'}, the shipped one otherwise"))
    print(f"{total.moves} moves with a drawing ({total.cells_drawn} cells drawn, {total.cells_misread} of them "
          f"misread by the camera: {total.cells_misread / max(total.cells_drawn, 1):.1%}); "
          f"{total.phantoms} phantom cells corrected by hand before a drawing; the dice misread in "
          f"{total.dice_misread} of those frames (the trackers are given the dice as rolled)")
    print(f"{'':<24}" + "".join(f"{k:>9}" for k in OUTCOMES) + "   illegal drawings caught")
    for mode, label in (("plain", "likeliest symbol"), ("rules", "rules-aware")):
        row = total.outcomes[mode]
        print(f"{label:<24}" + "".join(f"{row[k] / max(total.moves, 1):>9.1%}" for k in OUTCOMES)
              + f"   {total.caught[mode]}/{total.illegal}"
              + (f" ({total.caught_by_question[mode]} after a tap on 'as drawn')" if total.caught_by_question[mode] else ""))
    plain, rules = total.outcomes["plain"], total.outcomes["rules"]
    print(f"moves read right: {plain['right'] / max(total.moves, 1):.1%} -> {rules['right'] / max(total.moves, 1):.1%}"
          f" (+{(rules['right'] + rules['asked']) / max(total.moves, 1):.1%} with the questions answered by a tap); "
          f"wrong without a question {plain['wrong']} -> {rules['wrong']} "
          f"(FIT_WITHIN {FIT_WITHIN}, DROP_WITHIN {DROP_WITHIN}, ASK_WITHIN {ASK_WITHIN}, "
          f"DOUBT_BELOW {DOUBT_BELOW}, DOUBT_WITHIN {DOUBT_WITHIN}, UNUSED_DOUBT_BELOW {UNUSED_DOUBT_BELOW}; "
          f"{time.perf_counter() - t0:.0f} s)")
    for line in total.wrong_moves:
        print(f"  recorded wrong without a question, rules-aware: {line}")
    if args.sweep:
        print("thresholds (rules-aware, same readings)")
        print(" fit drop  ask prior doubt below unused   right  asked neither dispute  wrong  caught   greedy bots: right wrong")
        for (fit, drop, ask, prior, doubt, below, unused), out in _sweep(total.turns):
            print(f"{fit:>4.1f}{drop:>5.1f}{ask:>5.1f}{prior:>6.1f}{doubt:>6.1f}"
                  + (f"{below:>6.2f}" if below is not None else "  list") + f"{unused:>7.2f} "
                  + "".join(f"{out[k]:>7}" for k in OUTCOMES)
                  + f"  {out['caught']:>3}/{total.illegal}       {out['greedy right']:>4}/{out['greedy']}"
                  + f" {out['greedy wrong']:>4}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
