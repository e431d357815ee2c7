"""Train the letter stage (``vision.cells.letters``): once without each hand family, once on every family.

    .venv/bin/python -m vision.synth.web_fonts                     # the second pool's fonts (npm), once
    .venv/bin/python -m vision.cells.train_letters                 # data (about 6 min), 6 networks (about 65 min)
    .venv/bin/python -m vision.cells.train_letters --device cuda --workers 16   # where a GPU is lent: minutes
    .venv/bin/python -m vision.cells.train_letters --only data
    .venv/bin/python -m vision.cells.train_letters --stage churches  # the church stage's networks, the same way
    .venv/bin/python -m vision.cells.reader_thresholds              # then the doubt thresholds, on the new readings

Boards where most spaces hold a person (``person_city``) are drawn by each family's hands, by the generator's
first hands (``CLASSIC``), by the training pool and by the second pool (``WEB_POOL``), through the whole path
(render, photograph at the training range of pixels a cell, locate, rectify), and each person's close crop
(``letters.letter_crops``) is kept with its letter, in ``--cache`` (one file a family). Then ``train_cnn.train_on`` fits, from random weights:

- ``vision/cells/unseen/letters_without_<family>.npz``: on the other four families, the first hands and the
  pools; ``benchmarks/bench_hands.py`` reads each family with the cell, look and letter networks that never
  saw it;
- ``vision/cells/letters.npz``: on every family, the first hands and the pools: the shipped reader's.

Each stage's recipe (``STAGES``) says its boards' seed, how many boards of the second pool it learns from and
its fits' seed; the options override them for a trial.

``--stage churches`` trains the church stage (``vision.cells.churches``) the same way, from boards where most
spaces hold a church (``church_city``), a fifth of them with scikit-learn's training digits
(``dataset.load_digit_split``: the evaluations' test digits are never drawn): ``churches_without_<family>.npz``
and ``churches.npz``. The first networks (no second pool: about 68,000 church crops a network without a family;
data 4 min, each network about 5.5 min on this machine, 1.7-2.7 % of held-out crops misread) were trained again
on 2026-11-27 with 800 boards of the second pool as well (the defaults: about 94,500 crops, 8.5 min a network,
2.0-2.5 % misread); the figures are in ``churches``' docstring.

``--web-pool-boards`` sets how many boards of the second pool (``WEB_POOL``, 85 fonts of Google Fonts'
handwriting fonts) every network learns from. First tried on the letter stage at 0.6 of the cell with 800 such
boards, for the network without loose only: loose's cells at seed 9300 (150 boards, not the benchmark's)
misread 10.76 -> 10.28 % with the church stage, not shipped alone. With the crop at half the cell too, other
boards (seed 900) and another fit seed, every family read better at seed 9300 (``letters``' docstring): those
are the networks shipped since 2026-11-27.

Tried and not kept (stop 39): 800 boards more, drawn with both pools' fonts bent out of shape letter by letter
(elastic distortion, Simard et al. 2003: a 4 x 4 grid of random shifts, 2-7 % of the glyph's size, bicubically
spread over the glyph before it is warped into its cell). The network without loose (120,604 crops, 12 min) read
loose's cells at seed 9300 9.82 -> 9.69 % misread (S as J 48 -> 47, N as M 45 -> 44): more boards as much as the
bending, and not worth six fits.

Tried on the network without loose (stop 40, 2026-11-27; read as above, loose's 150 boards at seed 9300, with the
cell, look and church networks that never saw loose; the shipped recipe reads 9.82 %), one fit each:

- wider, 24-48-64 channels (the look networks' width, about twice the work a crop; 140 s an epoch): held-out crops
  5.75 -> 5.33 % misread, loose 9.58 %;
- the third pool (``--cursive-pool-boards 800``: ``hands.CURSIVE_POOL``, 95 of Google Fonts' scripts, school
  models and pen hands; 120,686 crops, 12.5 min): loose 9.51 %;
- both (18 min): loose 9.32 % (S read as J 48 -> 47, N as M 45 -> 43, the rest spread thin).

Each alone is within what another fit seed gives; together half a point on the hardest family, from a single
fit. It did not hold on round: both, on the network without round (19 min), read round's 150 boards at seed 9300
3.92 -> 4.00 % (A read as P 28 -> 51, S as A 24 -> 18, N as M 23 -> 19): a gain on one family paid for on
another. Not shipped. The church stage with the third pool's digits too (``--stage churches --cursive-pool-boards
800``, the network without loose, 121,237 crops, 11 min, held-out crops 2.15 % misread): loose 9.82 -> 9.74 %,
its 4 read as 1 42 -> 43 and 1 as 4 40 -> 43. Not shipped either.

Tried and not kept (stop 62, 2026-11-29), on the network without loose (the shipped recipe otherwise, one fit each,
11 min on two threads; loose's training-seed letter crops, 12,233, misread 17.22 % by the network shipped): half of
every batch's crops with a random square of 25-45 % of the side blanked (random erasing, so that no one stroke decides
a letter) 18.19 %; every batch mixed with itself shuffled (mixup, a Beta(0.2, 0.2) share, the larger kept) 17.56 %.
Neither reads a hand it never saw better than another fit seed would.

Tried and not kept (stop 48, 2026-11-28): hands that write narrower or wider than their fonts (``--letter-widths
0.55 1.4``: each board's hand a width factor drawn log-uniformly, ``Hand.letter_width``), after the letters misread
most were a few fonts' (at seed 9300, 150 boards a family drawn as ``bench_hands`` draws them: loose's Kristi 51 % of
its persons' letters, round's Ecolier 34 %, school's Femke Klaver 27 %) and the school hands and Kristi write
condensed letters that no other family does. The network without loose (94,580 crops, 12 min on one thread) read
loose's cells 9.09 -> 9.41 % misread (from 60-80 px a cell, 60 boards: 7.03 -> 6.63 %), the one without school read
school's 4.89 -> 4.75 %: no better than another fit seed gives. Nor (the same day) the letters written with the
hand's marker and seen as a camera's pixels average them (``photographed_board``'s ``camera_pixels``, the pictures
``bench_hands --camera-pixels`` reads and no letter network had learned from): every family's 350 person boards drawn
that way as well (``train_hands.family_cells`` with ``camera_pixels``, board seed 1900) beside the shipped recipe's,
140,593 crops, 17 min a network on one thread. Loose's 150 boards at seed 9300 9.09 -> 9.32 %, drawn that way
11.79 -> 11.69 %; round's 4.68 -> 4.37 % and 6.05 -> 5.92 %. What loose still misreads is a few fonts' letters,
whatever the networks are shown.

A GPU was lent at stop 49 (2026-11-28: an H200, 15 minutes; ``--device cuda``, the same data drawn there on 16
cores). The letters of loose's 12,200 training-seed crops, read by networks trained without loose on the shipped
recipe's boards (the first three rows; the last three on as many boards of other seeds, 77,000 on); the shipped
network reads 18.75 % of them wrong:

| network (weights) | epochs | loose's crops misread |
|---|---|---|
| the shipped shape, 16-32-48, one convolution a pool, flattened (174,785) | 7 / 12 | 18.94 / 18.49 % |
| a residual network 64-128-256, two blocks a stage, averaged (``train_cnn.train_teacher``, 3,474,641) | 16 | **12.21 %** |
| the shipped shape distilled from it (``--teacher-epochs 16``, Hinton et al. 2015) | 12 | 18.68 % |
| the shipped shape with its last map averaged instead of flattened | 7 | 23.31 % |
| 16-16, 32-32, 48-48: two convolutions a pool, averaged (59,873) | 7 | 15.36 % |
| the residual network at 16-32-64 (218,945) | 7 | 13.64 % |

So a new hand's letters are read better by a deeper network that averages its last map, not by more weights in
the dense head or by a teacher's soft labels on the same fonts: the distilled network learned the teacher's
readings of the training fonts and none of what made it read a new one. The residual networks cost 13 (16 wide)
to 130 times the shipped one's arithmetic a crop, more than the Pi has; two convolutions a pool about 3.6 times
(``STAGES``' ``convs_per_stage`` and ``global_average``; ``ConvTrunk.pools``). Trained on this machine on the
shipped recipe's crops (one thread, 20 min a network): loose's crops 18.75 -> 16.46 %, round's 12.47 -> 12.98 %;
read by the whole reader on 150 boards a family at seed 9300, loose 9.09 -> 8.54 %, round 4.68 -> 4.31 %.
The church stage in the same shape (stop 50, 2026-11-28; ``STAGES["churches"]``, 11-12 min a network on two
threads from the cached crops): each family's church crops read by the network trained without it, first shape ->
deeper, tidy 0.62 -> 0.55 %, quick 1.94 -> 1.57 %, round 3.62 -> 3.03 %, school 4.61 -> 4.09 %, loose 9.88 ->
8.03 %; the whole reader at seed 9300 (150 boards a family) 3.86 -> 3.78 % of the cells misread (tidy 0.44 -> 0.41,
quick 1.72 -> 1.59, round 4.31 -> 4.29, school 4.29 -> 4.21, loose 8.54 -> 8.41 %). Trained again at stop 52 (the
same recipe, 10-12 min a network on two threads) after a third of the pools' hands learned to write the 1 with a long
flag (``HandFamily.flagged_ones``): the pools' church crops drawn again, the families' the same; the figures are in
``churches``' docstring. The benchmark's figures are in hardware.md.

``--residual 16 --only shipped`` (stop 58, 2026-11-29; no GPU lent) trains the residual network of the table above at
16 channels (``train_cnn._teacher_net``, 218,945 weights) on every set of the shipped recipe, the fit being a teacher's
(batches of 256, 7 epochs; 34 minutes on two threads here), and writes it as ``letters_residual.npz``: it reads the
shipped reader's doubtful letters beside the panel, with half the say (``close_look.DEEP_SHARE``; its figures there).
Held-out crops of the hands it learned: 5.14 % misread, against the shipped letter network's 6.38 %. ``--stage
churches --only shipped --residual 16`` likewise writes ``churches_residual.npz`` (105,976 crops, 36 minutes; 1.99 %
of held-out church crops misread against 2.65 %), which reads the shipped reader's doubtful churches. Both shipped files
went on since (stop 81) over the training renderers' crops beside these sets (``train_other_renderer --residual``).

``--residual 16 --only unseen`` (loose, round and school at stop 60, tidy and quick at stop 61; no GPU lent) trains the same
residual network without each family named, on the same sets as that family's letter network (94,084-94,177 crops,
about 30 minutes a network on two threads here), and writes ``unseen/letters_residual_without_<family>.npz``. Beside the
networks trained without that family it reads their doubtful letters with half the say (``close_look.CloseLook.
deep_for``), so ``bench_hands``' leave-one-out table reads each family with a residual network that never saw it. The
left-out family's training-seed crops, misread by the letter network without it against the residual one: loose 17.22
against 15.32 %, round 13.42 against 13.71 %, school 8.65 against 8.25 %, quick 4.42 against 3.80 %, tidy 0.86 against
0.63 %.

``--stage churches --residual 16 --only unseen --families loose`` (stop 63) writes ``unseen/churches_residual_without_loose.npz``
(94,353 crops; loose's training-seed church crops 8.14 % misread), which reads the doubtful churches of the networks
without loose (``CloseLook.deep_for``); hardware.md has its figures. School's (stop 61, again at stop 63) is not shipped:
with it ``bench_moves`` recorded a move wrong without asking.

Tried and not kept (stop 52, 2026-11-28): the Italian juggler's G is the letter misread most on the families left
out (22 % of the G persons at seed 9300, 150 boards a family, against 4-11 % for every other letter), as it is
drawn on a third of the boards only (the Italian ones) and so learned from a third as many crops as a C. The
network without round trained on the same crops with every letter drawn as often as the most common one (its
rarer letters' crops repeated, each repeat augmented anew; 108,328 crops, 14 min on two threads) and read with its
letters counted alike at a table: round's G crops misread 37.0 -> 30.9 %, its J 19.9 -> 17.7 %, but its A 20.5 ->
25.2 % and all its letters 11.3 -> 12.1 % (at an Italian table); the whole reader on round's 150 boards 4.16 ->
4.36 %, and the two networks' readings averaged 4.29 %. Nor a larger prior for the G at an Italian table on the
shipped networks (``labels.letter_prior_shift``' log 3 and 0.5 or 1 more): 3.71 -> 3.70 and 3.73 % over the five
families, the G's misreads moved to other letters read as G.

Each network learns only person letters (its head keeps the cell reader's classes, so that a network file is
a cell network's file, and the reader takes the letters' columns). Its temperature is fitted on held-out
boards of the hands it learned; the letter stage's reading is averaged with the cell networks' and never
decides alone whether a cell is doubted (``reader``).

Measured before it was built, on loose's person cells (120 boards, seed 300, neither a training seed nor
``bench_hands``'), every network trained without loose: the letter misread by the cell network 28.9 %,
the look network 25.7 %, both averaged 25.0 %; by a letter network on the whole cell's crop 23.3 %, on the
close crop (0.6 of the cell) 20.9 %; the close crop averaged half and half with the two networks 20.9 %.
With the boards read from the whole sensor (``--full-sensor``'s photos) 27.9 % and 25.1 %, 23.3 % averaged.
That prototype had batch normalisation and 8 epochs; without it and at 6 epochs the letters of three families'
held-out boards misread 7.7 / 9.0 / 5.9 % against its 5.1 / 6.5 / 5.9 %, so the networks shipped have it (folded
into the convolutions at ``train_cnn.export``, which checks the NumPy forward against PyTorch's).

The first networks (350 person boards a family, 250 of the first hands, 400 of the pool, 7 epochs, 0.6 of the
cell; data 4.5 min, each network about 9 min on this 2-core machine): ``bench_hands`` misread 6.31 -> 5.49 % over
the five families left out (tidy 0.45 -> 0.45, quick 3.13 -> 2.03, round 7.52 -> 6.46, school 6.54 -> 5.33, loose 13.90
-> 13.17 %), misread without doubt 0.08 -> 0.07 % (round 0.28 -> 0.24 %), boards without error 36.3 -> 44.3 %;
the shipped reader on the nine hands no network learned (``--new-hands``) 6.18 -> 4.47 %. Today's (the
defaults: the same and 800 boards of the second pool, about 94,000 crops a network without a family; data 5.5
min, each network about 9.5 min here, 5.6-7.9 % of held-out crops misread): the figures are in hardware.md.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from companion.layout import LAYOUT, SIZE, cell_index, empty_city
from vision.cells.churches import CHURCHES
from vision.cells.close_look import CloseLook, StageNetwork, residual_path
from vision.cells.cnn import CNN_PATH
from vision.cells.dataset import TRAINING_CELL_PX, load_digit_split, photographed_board
from vision.cells.labels import GLYPH_CLASSES, PERSON_LETTERS, TRAINING_LANGUAGES, glyph_for_char
from vision.cells.letters import LETTERS, letters_path_for
from vision.cells.train_hands import CLASSIC, CURSIVE, POOL, UNSEEN_DIR, WEB, family_cells, unseen_model_path
from vision.synth.hands import CURSIVE_POOL, FAMILY_NAMES, TRAINING_POOL, WEB_POOL, missing_fonts

LETTERS_PATH = letters_path_for(CNN_PATH)
# The seed of the person boards (``family_seed`` adds each family's own thousands); the cell networks' boards
# use 0, 500 and 600.
LETTER_SEED = 900  # (700 until 2026-11-27: the first letter networks, 0.6 of the cell and no second pool)
CHURCH_SEED = 800
CHANNELS = (16, 32, 48)  # per stage (two convolutions each since stop 49); 24-48-64 tried (stop 40, above): not shipped
PERSON_SHARE = 0.85  # of a person board's spaces; the rest are left empty
CHURCH_SHARE = 0.85  # ... and of a church board's
CHURCH_BITMAP_RATE = 0.2  # church boards whose digits are scikit-learn's handwritten training digits
VAL_SHARE = 0.05  # of each set's crops (the last boards drawn), for the temperature and the printed error


def letters_path_without(family: str, look: CloseLook = LETTERS) -> Path:
    return look.path_for(unseen_model_path(family))


def person_city(rng: np.random.Generator, language: str) -> list[str]:
    """A city whose spaces are mostly persons (any letter of ``language``), the rest empty."""
    grid = [list(r) for r in empty_city()]
    printed = {cell_index(c) for c in LAYOUT.printed_crates}
    letters = list(PERSON_LETTERS[language])
    for row in range(SIZE):
        for col in range(SIZE):
            if grid[row][col] != "#" and (col, row) not in printed and rng.random() < PERSON_SHARE:
                grid[row][col] = str(rng.choice(letters))
    return ["".join(r) for r in grid]


def church_city(rng: np.random.Generator, language: str) -> list[str]:
    """A city whose spaces are mostly churches (any size), the rest empty (``language``: as ``person_city``)."""
    grid = [list(r) for r in empty_city()]
    printed = {cell_index(c) for c in LAYOUT.printed_crates}
    for row in range(SIZE):
        for col in range(SIZE):
            if grid[row][col] != "#" and (col, row) not in printed and rng.random() < CHURCH_SHARE:
                grid[row][col] = str(rng.integers(1, 6))
    return ["".join(r) for r in grid]


def _stage_part(stage: str, fam: str, seed: int, n_boards: int, camera_pixels: bool = False, *,
                letter_widths: tuple[float, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(close crops, glyph classes) of the ``stage``'s kind on ``n_boards`` boards of it drawn by ``fam``'s hands,
    who write their letters and digits as much narrower or wider as ``letter_widths`` says (``photographed_board``)."""
    recipe = STAGES[stage]
    look, make_city = recipe.look, recipe.make_city
    rng = np.random.default_rng(seed)
    families = None if fam == CLASSIC else (fam,)
    digits_train = load_digit_split()[0] if recipe.bitmap_digit_rate else None
    crops, labels = [], []
    made = 0
    while made < n_boards:
        language = str(rng.choice(list(TRAINING_LANGUAGES)))
        city = make_city(rng, language)
        band = rng.choice(len(TRAINING_CELL_PX), p=[share for _, share in TRAINING_CELL_PX])
        bitmaps = digits_train if digits_train is not None and rng.random() < recipe.bitmap_digit_rate else None
        rectified = photographed_board(city, rng, language=language, cell_px_range=TRAINING_CELL_PX[int(band)][0],
                                       families=families, camera_pixels=camera_pixels, digit_bitmaps=bitmaps,
                                       letter_widths=letter_widths)
        if rectified is None:
            continue
        made += 1
        drawn = [(i, GLYPH_CLASSES.index(glyph_for_char(city[i // SIZE][i % SIZE], language)))
                 for i in range(SIZE * SIZE) if city[i // SIZE][i % SIZE] not in "#.G"]
        kept = [(i, glyph) for i, glyph in drawn if look.classes[glyph]]
        crops.append(look.crops(rectified, [i for i, _ in kept]).astype(np.float16))
        labels += [glyph for _, glyph in kept]
    return np.concatenate(crops), np.asarray(labels, np.int8)


@dataclass(frozen=True)
class StageRecipe:
    """How a stage's networks are trained: what it reads, the boards it learns from, the seed of those boards
    (``family_seed`` adds each family's own thousands), how many boards of the second pool (``WEB_POOL``) it
    learns from too, the seed of its fits (the networks' first weights, the order of the batches), and the share
    of its boards whose church digits are scikit-learn's training digits."""

    look: CloseLook
    make_city: Callable[[np.random.Generator, str], list[str]]
    board_seed: int
    web_pool_boards: int
    fit_seed: int
    bitmap_digit_rate: float = 0.0
    cursive_pool_boards: int = 0
    letter_widths: tuple[float, float] | None = None  # hands write narrower or wider (``photographed_board``)
    convs_per_stage: int = 1  # the network's shape (``train_cnn._torch_net``)
    global_average: bool = False


# Both stages' networks have two convolutions before each pool and average their last map (the letter stage's since
# stop 49, the church stage's since stop 50: above).
STAGES = {"letters": StageRecipe(LETTERS, person_city, LETTER_SEED, web_pool_boards=800, fit_seed=1, convs_per_stage=2,
                                 global_average=True),
          "churches": StageRecipe(CHURCHES, church_city, CHURCH_SEED, web_pool_boards=800, fit_seed=0,
                                  bitmap_digit_rate=CHURCH_BITMAP_RATE, convs_per_stage=2, global_average=True)}


def letter_cells(n_boards: dict[str, int], cache: Path, stage: str = "letters",
                 letter_widths: tuple[float, float] | None = None,
                 workers: int = 2) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(close crops, labels) of each set's ``n_boards`` boards of the ``stage``'s kind, generated side by side
    (``workers`` processes) and kept in ``cache`` (``train_hands.family_cells``, drawing ``_stage_part`` for that
    stage); ``letter_widths``: see ``_stage_part``."""
    seed = STAGES[stage].board_seed
    kind = stage if letter_widths is None else f"{stage}-widths-{letter_widths[0]:g}-{letter_widths[1]:g}"
    part = partial(_stage_part, stage, letter_widths=letter_widths)
    data: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for n in dict.fromkeys(n_boards.values()):
        sets = tuple(fam for fam, boards in n_boards.items() if boards == n)
        data.update(family_cells(sets, n, seed, cache, workers=workers, part=part, kind=kind))
    return data


def share_misread(scores: np.ndarray, y: np.ndarray, look: CloseLook) -> float:
    """The share of crops whose class, the best of ``scores`` (n, classes) among the stage's kind, is not ``y``."""
    return float(np.mean(np.where(look.classes, scores, -np.inf).argmax(axis=1) != y))


def fit(sources: tuple[str, ...], data: dict[str, tuple[np.ndarray, np.ndarray]], out: Path, epochs: int,
        seed: int, threads: int, *, look: CloseLook = LETTERS, held_out: str | None = None, device: str = "cpu",
        teacher_epochs: int = 0, convs_per_stage: int = 1, global_average: bool = False,
        residual_width: int = 0) -> None:
    """A stage network on ``sources``' crops, the last ``VAL_SHARE`` of each set held out; ``held_out``: the family
    left out, whose crops it then reads (printed: the figure a new hand's letters alone give). ``teacher_epochs``:
    first a teacher (``train_cnn.train_teacher``) on the same crops, whose reading the network learns too.
    ``residual_width``: instead, a residual network of that width (``train_cnn._teacher_net``: the stage's residual
    network, ``close_look.residual_path``), fitted as a teacher is and written as a stage network."""
    from vision.cells.train_cnn import network_logits, save_network, train_on, train_teacher

    train_x, train_y, val_x, val_y = [], [], [], []
    for fam in sources:
        x, y = data[fam]
        cut = len(y) - max(1, int(round(len(y) * VAL_SHARE)))
        train_x.append(x[:cut])
        train_y.append(y[:cut])
        val_x.append(x[cut:])
        val_y.append(y[cut:])
    print(f"== {out.name}: {sum(len(y) for y in train_y)} crops of {', '.join(sources)}", flush=True)
    tx, ty = np.concatenate(train_x), np.concatenate(train_y).astype(np.int64)
    if residual_width:
        import torch

        torch.set_num_threads(threads)
        net = train_teacher(tx, ty, epochs=epochs, seed=seed, device=device, width=residual_width)
        save_network(net.cpu(), tx, ty, np.concatenate(val_x), np.concatenate(val_y).astype(np.int64), out=out,
                     seed=seed, trained_on=sources)
    else:
        teacher = None
        if teacher_epochs:
            teacher = train_teacher(tx, ty, epochs=teacher_epochs, seed=seed, device=device)
            if held_out is not None:
                error = share_misread(network_logits(teacher, data[held_out][0], device), data[held_out][1], look)
                print(f"teacher: {held_out}'s crops misread {error:.2%}", flush=True)
        train_on(tx, ty, np.concatenate(val_x), np.concatenate(val_y).astype(np.int64), out=out, epochs=epochs,
                 seed=seed, threads=threads, channels=CHANNELS, trained_on=sources, batch_norm=True, device=device,
                 teacher=teacher, convs_per_stage=convs_per_stage, global_average=global_average)
    if held_out is not None:
        x, y = data[held_out]
        probs = StageNetwork.load(out, look).probabilities(x.astype(np.float32), look.classes,
                                                            np.zeros(len(GLYPH_CLASSES)))
        print(f"{out.name}: {held_out}'s crops misread {share_misread(probs, y, look):.2%}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Train the letter stage's networks (needs PyTorch).")
    parser.add_argument("--boards", type=int, default=350, help="person boards per family (about 35 persons each)")
    parser.add_argument("--classic-boards", type=int, default=250)
    parser.add_argument("--pool-boards", type=int, default=400)
    parser.add_argument("--web-pool-boards", type=int, default=None,
                        help="boards of the second pool (WEB_POOL: python -m vision.synth.web_fonts fetches its fonts); "
                        "default the stage's (800 for both)")
    parser.add_argument("--cursive-pool-boards", type=int, default=None,
                        help="boards of the third pool (CURSIVE_POOL: python -m vision.synth.web_fonts fetches its fonts); "
                        "default the stage's")
    parser.add_argument("--out-dir", type=Path, default=None,
                        help="write the networks here instead of beside the shipped ones (a trial, to compare)")
    parser.add_argument("--epochs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=None, help="the fits' seed; default the stage's")
    parser.add_argument("--threads", type=int, default=2, help="PyTorch threads of each fit (one fit at a time)")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/companion-letters"))
    parser.add_argument("--only", choices=("data", "unseen", "shipped"), default=None)
    parser.add_argument("--stage", choices=tuple(STAGES), default="letters", help="which close-look stage")
    parser.add_argument("--families", nargs="+", default=list(FAMILY_NAMES), choices=FAMILY_NAMES,
                        help="which to leave out in turn")
    parser.add_argument("--device", default="cpu", help="where the networks are fitted: cpu, or cuda where a GPU is lent")
    parser.add_argument("--teacher-epochs", type=int, default=0,
                        help="first fit a large teacher network this long and distil it into each network "
                        "(train_cnn.train_teacher; a GPU's work)")
    parser.add_argument("--convs-per-stage", type=int, default=None, help="default the stage's")
    parser.add_argument("--residual", type=int, default=0, metavar="WIDTH",
                        help="the stage's residual networks of this width instead (16): with --only shipped on every "
                        "set (close_look.residual_path), with --only unseen without each family "
                        "(close_look.CloseLook.residual_for)")
    parser.add_argument("--global-average", type=int, choices=(0, 1), default=None, help="default the stage's")
    parser.add_argument("--workers", type=int, default=2, help="processes drawing the boards")
    parser.add_argument("--letter-widths", type=float, nargs=2, default=None, metavar=("NARROWEST", "WIDEST"),
                        help="hands write letters and digits narrower or wider than their fonts, by up to these "
                        "factors (Hand.letter_width); default the stage's")
    args = parser.parse_args(argv)
    if args.residual and args.only not in ("shipped", "unseen"):
        print("--residual trains either the shipped reader's residual network or those without each family: give "
              "--only shipped or --only unseen")
        return 2
    recipe = STAGES[args.stage]
    web_pool_boards = recipe.web_pool_boards if args.web_pool_boards is None else args.web_pool_boards
    cursive_boards = recipe.cursive_pool_boards if args.cursive_pool_boards is None else args.cursive_pool_boards
    seed = recipe.fit_seed if args.seed is None else args.seed
    missing = missing_fonts() + missing_fonts((TRAINING_POOL,))
    if web_pool_boards:
        missing += missing_fonts((WEB_POOL,))
    if cursive_boards:
        missing += missing_fonts((CURSIVE_POOL,))
    if missing:
        print(f"fonts missing: {', '.join(missing)} (apt-get install vision.synth.hands' FONT_PACKAGES and "
              "POOL_FONT_PACKAGES; python -m vision.synth.web_fonts for the second pool)")
        return 2
    sets = FAMILY_NAMES + (CLASSIC, POOL) + ((WEB,) if web_pool_boards else ()) + ((CURSIVE,) if cursive_boards else ())
    n_boards = {**dict.fromkeys(FAMILY_NAMES, args.boards), CLASSIC: args.classic_boards, POOL: args.pool_boards,
                WEB: web_pool_boards, CURSIVE: cursive_boards}
    letter_widths = (recipe.letter_widths if args.letter_widths is None
                     else (args.letter_widths[0], args.letter_widths[1]))
    data = letter_cells({fam: n_boards[fam] for fam in sets}, args.cache, args.stage, letter_widths, args.workers)
    look = recipe.look
    shape = {"convs_per_stage": recipe.convs_per_stage if args.convs_per_stage is None else args.convs_per_stage,
             "global_average": recipe.global_average if args.global_average is None else bool(args.global_average)}
    out_dir = args.out_dir
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    if args.only in (None, "unseen"):
        UNSEEN_DIR.mkdir(exist_ok=True)
        for fam in args.families:
            kept = tuple(f for f in sets if f != fam)
            out = look.residual_for(unseen_model_path(fam)) if args.residual else letters_path_without(fam, look)
            fit(kept, data, out if out_dir is None else out_dir / out.name, args.epochs, seed, args.threads, look=look,
                held_out=fam, device=args.device, teacher_epochs=args.teacher_epochs, residual_width=args.residual,
                **shape)
    if args.only in (None, "shipped"):
        out = residual_path(look) if args.residual else look.path_for(CNN_PATH)
        fit(sets, data, out if out_dir is None else out_dir / out.name, args.epochs, seed, args.threads, look=look,
            device=args.device, teacher_epochs=args.teacher_epochs, residual_width=args.residual, **shape)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
