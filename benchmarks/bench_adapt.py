"""Each seat's hand learned as the game goes, and taught from one sheet per player, on hands never trained on.

    .venv/bin/python benchmarks/bench_adapt.py                       # about 5 minutes on 2 quiet cores
    .venv/bin/python benchmarks/bench_adapt.py --games 3 --boards 20  # more games and boards (slower)
    .venv/bin/python benchmarks/bench_adapt.py --new-hands 8          # (c) too: the shipped reader taught, new hands

(a) Learning during play (``vision.cells.seat_hand``). Bots play whole games of 4 players; every turn the
mover's board is drawn in that player's hand (a hand of one family of ``vision.synth.hands``), rendered,
photographed at 24-46 px a cell, found by its markers, rectified and read twice: by the network alone and
with the seat's hand. The hand learns as the table would teach it (``companion.tracker`` tells the
reader): a move whose new drawings were all read right is accepted and each of its drawings becomes an
example; a move with a misread new drawing (or a phantom drawing on an empty space) is disputed or wrong,
so its correct cells teach nothing and the players correct the misread cells by hand, which teaches
those. ``--noticed`` is the share of such misreads the players notice and correct (default 0.9): the
rest are learned as misread. Printed: misread cells over game turns 1-10, 11-20, 21-40 and 41 on, among
the turn's new drawings (what the move is read from), among every drawing on the mover's board, and the
empty spaces read as drawn.

(b) Teaching per seat (``vision.teach``). At ``--teach-tables`` tables of each family (3: twelve hands a family; at one
table, 16 boards a family, one draw read 1.65 % on a taught seat and another 0.76 %), each player draws one teaching
sheet (every symbol twice) in their own hand, from a generator of its own (the boards afterwards are the same
whatever the sheets hold, so two ways of teaching meet the same boards); it teaches their seat (its examples vote, the seat reads with its own last layer, and its
letters and churches fit the letter and church stages' dense layers). Then fresh boards of every player are read with no teaching, with
their own seat's sheet, and (for contrast) through another player's taught seat. Other seats' readings
never change by construction (a seat reads with its own examples only; tests/vision_cells/test_teach.py
checks it on a whole table); the cross figure says what a sheet would do to someone else's hand.

(c) With ``--new-hands TABLES``: the shipped reader (the network trained on every family, its panel and residual
networks) taught as in (b), at tables of the nine hands that no network learned (``vision.synth.hands.NEW_HANDS``;
``python -m vision.synth.web_fonts`` fetches their fonts): what a table that teaches gets from the reader it runs.
(a) and (b) read each family with the networks trained without it: no panel, and the residual letter network
trained without the same family (``close_look.CloseLook.residual_for``).

How the test data differs from the training data: the hands belong to a family the network never saw
when ``vision/cells/unseen/cnn_without_<family>.npz`` exists (``vision.cells.train_hands``); otherwise the
shipped network reads them and the note says so (the network shipped before the hand families were
added never saw any of them). The constants of the hand memory were chosen on other hands (the classic
generator's hands with stone walls and tents, and with Hershey letters), never on these families. Fresh
seeds, cities from real bot games (walls only on the outer spaces), every turn a new photograph (light,
tilt, blur, noise), every drawing redrawn each turn: a memory never sees the very pixels it reads later.
The seat's own last layer (``seat_hand.seat_head``) is the exception: its constants were chosen on teaching
sheets of the tidy, quick and school families (other seeds and other players than here), and checked on
round and loose, so the round and loose figures are the ones that say what it does on a new hand.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from companion.bots import mixed_table
from companion.layout import ALL_CELLS, SIZE, draw_on_city, empty_city
from companion.simulate import play_game
from vision.board import find_boards
from vision.board.dataset import photograph
from vision.cells.dataset import CAMERA_CELL_PX
from vision.cells.reader import DEFAULT_MODEL_PATH, DRAWABLE_INDEX, CellReader
from vision.cells.seat_hand import SeatHand, TableHands
from vision.synth.board import random_city, render_board
from vision.synth.drawings import Hand
from vision.synth.hands import FAMILY_NAMES, NEW_HANDS, missing_fonts
from vision.teach import sheet_drawings, teaching_city

PHOTO_FRAME = (800, 600)
BUCKETS: tuple[tuple[int, int], ...] = ((1, 10), (11, 20), (21, 40), (41, 10_000))


def reader_for(family: str) -> tuple[CellReader, str]:
    try:
        from vision.cells.train_hands import unseen_model_path

        path: Path | None = unseen_model_path(family)
    except ImportError:
        path = None
    if path is not None and path.is_file():
        return CellReader("en", model_path=path), f"{path.name} (never trained on {family})"
    return CellReader("en"), (f"{DEFAULT_MODEL_PATH.name} (no network trained without {family} here: "
                              f"vision.cells.train_hands makes one)")


def photographed(city: list[str], hand: Hand, seat: int, rng: np.random.Generator) -> np.ndarray | None:
    board = render_board(city, rng, cell_px=int(rng.integers(44, 76)), seat=seat, hand=hand)
    fill = SIZE * float(rng.uniform(*CAMERA_CELL_PX)) / min(PHOTO_FRAME)
    photo = photograph(board.image, board.alpha, rng, frame_size=PHOTO_FRAME, tilt_deg=30.0, fill=(fill, fill))
    found = [b for b in find_boards(photo.frame) if b.seat == seat]
    return found[0].rectified if found else None


@dataclass
class Tally:
    new: list[int] = field(default_factory=lambda: [0, 0])  # misread, cells: the turn's new drawings
    drawn: list[int] = field(default_factory=lambda: [0, 0])  # every drawing on the board
    empty: list[int] = field(default_factory=lambda: [0, 0])  # empty spaces read as drawn

    def add(self, other: Tally) -> None:
        for mine, theirs in ((self.new, other.new), (self.drawn, other.drawn), (self.empty, other.empty)):
            mine[0] += theirs[0]
            mine[1] += theirs[1]


def _cell(city: list[str], cell: str) -> str:
    index = ALL_CELLS.index(cell)
    return city[index // SIZE][index % SIZE]


def play(family: str, reader: CellReader, seed: int, players: int, noticed: float,
         tallies: dict[tuple[str, int], Tally]) -> tuple[int, int]:
    """One bot game read turn by turn; adds to ``tallies[(mode, bucket)]``. Returns (turns, examples)."""
    rng = np.random.default_rng(seed)
    hands_drawn = [Hand.random(rng, family=family) for _ in range(players)]
    bots = mixed_table(players, seed)
    record: list[dict] = []
    play_game(players, bots, random.Random(seed), start_player=seed % players, record=record)
    memory = TableHands(None, None, "en")
    cities = [empty_city() for _ in range(players)]
    for turn, step in enumerate(record, start=1):
        action = step["action"]
        player = int(action["player"])
        if not action["place"]:
            continue
        cities[player] = draw_on_city(cities[player], action["place"])
        rectified = photographed(cities[player], hands_drawn[player], player, rng)
        if rectified is None:
            continue
        truth = cities[player]
        new = {p["cell"]: p["item"] for p in action["place"]}
        bucket = next(k for k, (lo, hi) in enumerate(BUCKETS) if lo <= turn <= hi)
        for mode in ("off", "on"):
            read, _, _ = reader.read(rectified, memory.hand(player) if mode == "on" else None)
            tally = tallies.setdefault((mode, bucket), Tally())
            wrong_new = [c for c in new if _cell(read, c) != new[c]]
            tally.new[0] += len(wrong_new)
            tally.new[1] += len(new)
            drawable = [ALL_CELLS[i] for i in DRAWABLE_INDEX]
            drawn = [c for c in drawable if _cell(truth, c) != "."]
            tally.drawn[0] += sum(_cell(read, c) != _cell(truth, c) for c in drawn)
            tally.drawn[1] += len(drawn)
            tally.empty[0] += sum(_cell(read, c) != "." for c in drawable if _cell(truth, c) == ".")
            tally.empty[1] += len(drawable) - len(drawn)
            if mode != "on":
                continue
            phantoms = [c for c in drawable if _cell(truth, c) == "." and _cell(read, c) != "."]
            if not wrong_new and not phantoms:
                memory.learn(player, rectified, new, "move")  # accepted as read
            elif rng.random() < noticed:
                memory.learn(player, rectified, {c: _cell(truth, c) for c in wrong_new + phantoms}, "correction")
            else:  # nobody noticed: the misread stands and is learned as read
                memory.learn(player, rectified, {c: _cell(read, c) for c in new}, "move")
    return len(record), sum(len(memory.hand(p) or ()) for p in range(players))


def teach(family: str, reader: CellReader, seed: int, players: int, boards: int) -> dict[str, list[int]]:
    """Misread cells / cells on fresh boards of each player: untaught, own sheet, another player's sheet."""
    rng = np.random.default_rng(seed)
    hands_drawn = [Hand.random(rng, family=family) for _ in range(players)]
    memory = TableHands(None, None, "en")
    # The sheets from a generator of their own, so that the fresh boards afterwards are the same whatever the sheets
    # hold: two ways of teaching are then measured on the same boards.
    sheet_rng = np.random.default_rng([seed, 1])
    for seat, hand in enumerate(hands_drawn):
        sheet = None
        while sheet is None:
            sheet = photographed(teaching_city(), hand, seat, sheet_rng)
        memory.teach(seat, sheet_drawings(sheet, "en", sheet_rng))
    out = {"none": [0, 0], "own": [0, 0], "other": [0, 0]}
    for seat, hand in enumerate(hands_drawn):
        made = 0
        while made < boards:
            city = random_city(rng, fill=float(rng.uniform(0.3, 0.9)))
            rectified = photographed(city, hand, seat, rng)
            if rectified is None:
                continue
            made += 1
            for name, taught in (("none", None), ("own", memory.hand(seat)),
                                 ("other", memory.hand((seat + 1) % players))):
                read, _, _ = reader.read(rectified, taught)
                out[name][0] += sum(read[i // SIZE][i % SIZE] != city[i // SIZE][i % SIZE] for i in DRAWABLE_INDEX)
                out[name][1] += len(DRAWABLE_INDEX)
    return out


def _rate(pair: list[int]) -> str:
    return f"{pair[0] / max(pair[1], 1):.2%} ({pair[0]}/{pair[1]})"


def _add_teaching(totals: dict[str, list[int]], result: dict[str, list[int]]) -> None:
    """``teach``'s counts added into ``totals`` (the same keys)."""
    for name, pair in result.items():
        totals[name][0] += pair[0]
        totals[name][1] += pair[1]


def _teaching_line(totals: dict[str, list[int]]) -> str:
    return (f"untaught {_rate(totals['none'])}; own seat taught {_rate(totals['own'])}; "
            f"through another player's taught seat {_rate(totals['other'])}")


def frame_cost(seed: int, tables: int = 6) -> tuple[float, float, float, float, float]:
    """Median ms of a full read of a 1920 x 1080 frame (4 boards, tray, track; bench_frame's frames) by the
    reader alone and with every seat's hand full to its cap (40 drawings of each of the 17 classes, each
    labelled with what it is, as a table teaches them), the ms to fit one such seat's own last layer
    (``seat_hand.seat_head``: once after every move that teaches the seat, not every frame), and the ms to fit
    the letter stage's head to a seat whose letters a person labelled, to its cap (``seat_hand.stage_head``:
    once after a teaching sheet or a correction), the first time and again after one more letter (a correction:
    the seat keeps the others' redrawn features, ``SeatHand.stage_model``)."""
    from vision.cells.cnn import single_threaded_blas
    from vision.cells.features import cell_crops
    from vision.cells.labels import GLYPH_CLASSES, glyph_for_char
    from vision.cells.seat_hand import MAX_PER_CLASS
    from vision.pipeline import TableReader
    from vision.synth.table import TableSpec, render_table

    rng = np.random.default_rng(seed)
    frames = [render_table(TableSpec.random(rng, n_boards=4), rng)[0] for _ in range(tables + 1)]
    # Drawings of every class in one hand (Italian letters too: a 'G' person), drawn until each class has some.
    by_glyph: dict[str, list[np.ndarray]] = {}
    hand_drawn = Hand.random(rng)
    while len(by_glyph) < len(GLYPH_CLASSES):
        language = str(rng.choice(["en", "it"]))
        city = random_city(rng, fill=0.9, language=language)
        crops = cell_crops(render_board(city, rng, cell_px=64, seat=0, hand=hand_drawn, language=language).image)
        for i in DRAWABLE_INDEX:
            char = city[i // SIZE][i % SIZE]
            by_glyph.setdefault(glyph_for_char(char, language), []).append(crops[i])
    full = TableHands(None, None, "en")
    for seat in range(5):
        for k in range(MAX_PER_CLASS * len(GLYPH_CLASSES)):
            glyph = GLYPH_CLASSES[k % len(GLYPH_CLASSES)]
            pool = by_glyph[glyph]
            full.seat(seat).add(glyph, pool[(k // len(GLYPH_CLASSES) + seat) % len(pool)])
    readers = {"alone": TableReader(), "hands": TableReader(hands=full)}
    times: dict[str, list[float]] = {name: [] for name in readers}
    for reader in readers.values():
        reader.read(frames[0])  # models loaded
    cells = readers["hands"].cell_reader
    fits = []
    for seat in range(5):  # every seat's examples embedded and its last layer fitted (in play: after a move)
        hand = full.hand(seat)
        assert hand is not None
        hand.add(GLYPH_CLASSES[0], by_glyph[GLYPH_CLASSES[0]][0])  # a new example: the layer is fitted again
        hand.adjust(np.full((1, len(GLYPH_CLASSES)), 1 / len(GLYPH_CLASSES)), cells.embed(crops[:1]), cells)
        t0 = time.perf_counter()
        with single_threaded_blas():
            hand.seat_model(cells, cells.model, cells.allowed)
        fits.append(1000 * (time.perf_counter() - t0))
    stage_fits = []
    letters = cells.letters
    for seat in range(3 if letters is not None else 0):  # the same seats' letters, each labelled by a person
        hand = full.hand(seat)
        assert hand is not None
        taught = SeatHand()
        for k, (glyph, drawing, ink) in enumerate(zip(hand.glyphs, hand.drawings, hand.inks, strict=True)):
            if cells.allowed[glyph] and letters.look.classes[glyph]:
                # A pixel a shade darker: the pool's drawings repeat, a hand's never do (the seat keeps each
                # drawing's redraws by its ink, and would read a repeated one once).
                own = ink.copy()
                own.flat[k % own.size] = min(255, int(own.flat[k % own.size]) + 1)
                taught.add(GLYPH_CLASSES[glyph], own, drawing=drawing, sure=True)
        t0 = time.perf_counter()
        with single_threaded_blas():
            taught.stage_model(letters, cells.allowed)
        t1 = time.perf_counter()
        person = next(k for k, glyph in enumerate(taught.glyphs) if cells.allowed[glyph])
        taught.add(GLYPH_CLASSES[taught.glyphs[person]], np.roll(taught.inks[person], 2, axis=1), key="game:D4",
                   sure=True)  # one more letter, as a correction brings it
        t2 = time.perf_counter()
        with single_threaded_blas():
            taught.stage_model(letters, cells.allowed)
        stage_fits.append((1000 * (t1 - t0), 1000 * (time.perf_counter() - t2)))
    for frame in frames[1:]:
        for name, reader in readers.items():
            reader.reset()
            t0 = time.perf_counter()
            reader.read(frame)
            times[name].append(1000 * (time.perf_counter() - t0))
    first, again = np.median(stage_fits, axis=0) if stage_fits else (float("nan"), float("nan"))
    return (float(np.median(times["alone"])), float(np.median(times["hands"])), float(np.median(fits)),
            float(first), float(again))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", nargs="+", default=list(FAMILY_NAMES), choices=list(FAMILY_NAMES))
    parser.add_argument("--games", type=int, default=1, help="games of 4 players per family (a)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--teach-tables", type=int, default=3,
                        help="tables of players per family that each draw a teaching sheet (b): the hands, more than the "
                        "boards, make the figure vary")
    parser.add_argument("--boards", type=int, default=4, help="fresh boards per player after teaching (b)")
    parser.add_argument("--noticed", type=float, default=0.9, help="share of misread moves the players correct")
    parser.add_argument("--seed", type=int, default=9100)
    parser.add_argument("--new-hands", type=int, default=0, metavar="TABLES",
                        help="also (c): the shipped reader taught at this many tables of the nine hands no network "
                        "learned (python -m vision.synth.web_fonts fetches them)")
    parser.add_argument("--new-hands-boards", type=int, default=8, help="fresh boards per player after teaching (c)")
    args = parser.parse_args()
    missing = missing_fonts()
    if missing:
        print(f"bench_adapt: {len(missing)} handwriting fonts are not installed ({missing[0]} ...); "
              "apt-get install the packages in vision.synth.hands.FONT_PACKAGES")
        return 2
    if args.new_hands and (missing := missing_fonts((NEW_HANDS,))):
        print(f"bench_adapt: {len(missing)} fonts of the new hands are not fetched (python -m vision.synth.web_fonts)")
        return 2
    started = time.perf_counter()
    print(f"(a) learning during play: {args.games} game(s) of {args.players} players per family, "
          f"players notice {args.noticed:.0%} of misread moves")
    totals: dict[tuple[str, int], Tally] = {}
    teach_totals = {"none": [0, 0], "own": [0, 0], "other": [0, 0]}
    for k, family in enumerate(args.families):
        reader, note = reader_for(family)
        print(f"  {family}: read by {note}")
        tallies: dict[tuple[str, int], Tally] = {}
        turns = examples = 0
        for g in range(args.games):
            t, e = play(family, reader, args.seed + 100 * k + g, args.players, args.noticed, tallies)
            turns, examples = turns + t, examples + e
        for key, tally in tallies.items():
            totals.setdefault(key, Tally()).add(tally)
        early, late = tallies.get(("off", 0), Tally()), tallies.get(("off", 2), Tally())
        early_on, late_on = tallies.get(("on", 0), Tally()), tallies.get(("on", 2), Tally())
        print(f"    drawings misread, turns 1-10 / 21-40: network alone {_rate(early.drawn)} / "
              f"{_rate(late.drawn)}; learning {_rate(early_on.drawn)} / {_rate(late_on.drawn)}  "
              f"({turns} turns, {examples} examples learned)")
        result = {"none": [0, 0], "own": [0, 0], "other": [0, 0]}
        for t in range(args.teach_tables):
            _add_teaching(result, teach(family, reader, args.seed + 100 * k + 50 + t, args.players, args.boards))
        _add_teaching(teach_totals, result)
        print(f"    teaching: untaught {_rate(result['none'])}, own sheet {_rate(result['own'])}, "
              f"another player's sheet {_rate(result['other'])}", flush=True)
    print("all families, misread cells by game turn (network alone -> with the seat's hand learning):")
    print(f"  {'turns':<8}{'new drawings of the turn':>44}{'every drawing on the board':>44}"
          f"{'empty spaces read as drawn':>44}")
    for b, (lo, hi) in enumerate(BUCKETS):
        off, on = totals.get(("off", b), Tally()), totals.get(("on", b), Tally())
        label = f"{lo}-{hi}" if hi < 10_000 else f"{lo}+"
        print(f"  {label:<8}" + "".join(f"{_rate(a) + ' -> ' + _rate(c):>44}" for a, c in
                                          ((off.new, on.new), (off.drawn, on.drawn), (off.empty, on.empty))))
    print(f"(b) one teaching sheet per player, {args.teach_tables} table(s) of {args.players} players per family, "
          f"{args.boards} fresh boards a player afterwards (all families):")
    print(f"  {_teaching_line(teach_totals)}; other seats: unchanged")
    if args.new_hands:
        # The shipped reader (every family learned, its panel and residual networks) at tables of hands it never saw:
        # what a table that teaches gets from the reader it runs.
        shipped = CellReader("en")
        new_totals = {"none": [0, 0], "own": [0, 0], "other": [0, 0]}
        for t in range(args.new_hands):
            _add_teaching(new_totals, teach(NEW_HANDS.name, shipped, args.seed + 5000 + 100 * t, args.players,
                                            args.new_hands_boards))
        print(f"(c) the shipped reader at {args.new_hands} tables of the {len(NEW_HANDS.letters)} new hands, one "
              f"teaching sheet per player, {args.new_hands_boards} fresh boards a player: {_teaching_line(new_totals)}")
    alone, with_hands, fit, stage_first, stage_again = frame_cost(args.seed)
    print(f"full frame (4 boards, median): {alone:.1f} ms without hands, {with_hands:.1f} ms with every seat's "
          f"hand at its cap (budget 60 ms, benchmarks/bench_frame.py); a seat's own last layer fitted again "
          f"after a move: {fit:.0f} ms at the cap; the letter stage's head fitted to a seat's labelled letters at "
          f"the cap: {stage_first:.0f} ms, again after a correction: {stage_again:.0f} ms")
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
