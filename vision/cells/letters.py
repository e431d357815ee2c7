"""The letter stage: a person's letter read once more, from a close crop of the middle of its cell.

The cell networks read a whole cell: their 40 px crop spans the cell and a margin, and a letter written
inside a circle is a quarter to two fifths of a cell tall (``vision.synth.drawings.draw_person``), 9-15 px of
that crop, most of which is the circle. Which letter it is, is all that is left to decide once a cell is
known to hold a person, and nearly every misread of a hand never seen is a letter read as another letter.
So, as chesscog reads a square's occupancy first and its piece second, a third network reads only the
cells the first two take for a person, from a crop of the cell's middle (``LETTER_ZOOM`` of its side, at
the same 40 px: the letter about twice as large) and trained on persons alone
(``vision.cells.train_letters``). Its reading of the letter is averaged with theirs (``with_letters``);
how likely the cell is to be a person at all stays theirs.

Measured before it was built (``train_letters``' docstring has the figures), on loose's person cells read by
networks trained without loose: the letter misread 25.0 % by the cell and look networks together, 23.3 % by a
letter network on the whole cell's crop, 20.9 % by the same on the close crop. Shipped, ``bench_hands`` (each
family read by the three networks that never saw it): cells misread 6.31 -> 5.49 %, boards without error 36.3
-> 44.3 %; the shipped reader on hands no network learned 6.18 -> 4.47 %.

Trained again (2026-11-27) from the middle half of the cell instead of 0.6, with the second pool of fonts
(``WEB_POOL``: 85 of Google Fonts' handwriting fonts, none a family's) beside the first, on other boards and
from another seed. Measured first on 150 boards a family at seed 9300 (not the benchmark's), each family read
by the networks that never saw it: loose 10.76 -> 10.07 %, school 5.33 -> 4.70 %, round 4.34 -> 4.11 %,
quick 2.59 -> 2.11 % of the cells misread. Which of the changes does it was not split: the network first
trained at 0.6 read the middle half itself better on loose and quick and worse on round and school, and one
trained with the second pool at 0.6 read loose 10.28 % (``train_letters``). The benchmark's figures are in
hardware.md.

Trained again (2026-11-28, stop 49) with the same crops in a deeper shape: two convolutions before each pool and
the last map averaged over its places (16-16, 32-32, 48-48; 59,873 weights against 174,785, about 3.6 times the
arithmetic a crop). On a GPU lent that day, a residual network many times larger read a new hand's letters far
better than the shipped shape (loose's crops 12.2 against 18.9 %), and the deeper shape kept most of it (15.4 %);
distilling the large one into the first shape kept nothing (``train_letters``' docstring). At seed 9300, each
family read by the networks that never saw it: loose 9.09 -> 8.54 %, round 4.68 -> 4.31 %, school 4.89 -> 4.29 %,
quick 1.85 -> 1.72 %, tidy 0.49 -> 0.44 % of the cells misread (the benchmark's figures are in hardware.md).

Taught again (stop 80, 2026-12-07), going on from its weights: the person crops of the four training renderers
(``vision/synth/*_renderer``, written apart from our generator), at both sides the stage reads (``LETTER_WIDE_ZOOM``),
beside the generator's sets (``train_other_renderer --stage letters``, whose docstring has the command). The benchmark
renderer's spent seeds 1, 6, 9, 10: 449 -> 428 cells misread of 19,434; its untouched seed 12: 119 -> 113; our own new
hands (``bench_hands --new-hands --seed 9300``) 3.21 -> 3.05 %. The panel and the residual network are as they were.

Tried and not kept (stop 53, 2026-11-28): a board's persons are one hand, so its crops of one letter should look
alike and lend each other their readings (the cells' letters smoothed over their neighbours on the letter network's
features, cosine similarity above 0.6-0.96, added or multiplied in). At seed 9300 (150 boards a family, each read by
the networks that never saw it; 14 persons a board) two persons of one letter are indeed close (median similarity
0.91-0.97 against 0.46-0.56 for two letters), and 75 % of the persons misread are read as a letter that the same board
also shows, read right. But a misread person lies nearer the right readings of the letter it is misread as than of
its own letter (where both are on its board, in 63 of 97), so every variant read as many or more wrong (819 persons
misread -> 812-1,265). The network's features carry the same confusion as its reading.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.cells.close_look import CloseLook
from vision.cells.labels import GLYPH_CLASSES

# The side of the close crop, a fraction of a cell's, around the cell's middle: a person's circle is drawn
# 0.47-0.8 of a cell across and its letter in the middle 0.25-0.42, a little off centre (a hand's offset
# and a rectification a pixel or two off). Half the cell keeps most letters whole and less of the circle
# than 0.6, the first networks' crop (a large letter loses its edges; the networks learned that too).
LETTER_ZOOM = 0.5
# Every letter network reads the person's crop at this side too (the whole circle, nearly), and the two readings'
# geometric mean is its reading (``CloseLook.wide_zoom``): the networks learned letters from our generator's hands,
# whose letters are the smallest of five renderers' (0.25-0.42 of a cell); the other four, written apart (the three
# training renderers and the benchmark's), draw them larger, and half a cell cuts an m to an n. Measured at stop 78
# (2026-12-07), persons misread as the crop's side grows (0.5 / 0.6 / 0.7 / 0.8; both 0.5 and 0.7): 200 fresh boards
# of each training renderer (seed 78; the letter networks never saw them) 411 / 317 / 266 / 252 / 299; the benchmark
# renderer's spent seeds 1 and 6, all cells, 441 / 398 / 380 / 377 / 396 of 10,004; but our own generator's new hands
# (bench_hands --new-hands, dev seed 9300) 2.72 / 3.21 / 3.94 / 4.76 / 3.25 % of the cells, its families each read by
# the networks that never saw it 3.57 / 3.77 / 4.29 / 4.73 / 3.69 %. Both crops lose the least over all of them.
LETTER_WIDE_ZOOM = 0.7
# A cell is read by the letter stage when the cell networks give persons at least this much of it together.
LETTER_FROM = 0.5
# The letter network's share in the letter a person cell is read as (the cell networks' share is the rest), and the
# residual letter network's in a doubtful letter's second reading (the stage's and its panel's the rest;
# ``CloseLook.deep_share``). An even split each until stop 82 (2026-12-07), set before any measurement. Since then the
# letter network (stop 80) and the residual one (stop 81) learned the training renderers' persons, which the cell
# networks' and the panel's letters never saw, and each counts more: 0.7 and 0.75. Chosen together on the benchmark
# renderer's spent seeds 1, 6, 9 and 10 (19,434 cells, the same boards re-read): 350 cells misread (persons 129) ->
# residual 0.75 337 (116) -> letter 0.7 too 327 (107); each further along the way gained a few more (residual alone
# 332, letter 0.6-0.7 alike), misread without doubt 10 every way. Our own generator agreed (bench_hands --new-hands,
# dev seed 9300): the new hands 2.97 -> 2.93 -> 2.89 %, each family by the networks that never saw it 3.69 -> 3.62 ->
# 3.61 %, none more without doubt. (Stop 59 had found the residual at 0.7 a few cells better on our dev seeds, and not
# kept it.)
LETTER_WEIGHT = 0.7
LETTERS_DEEP_SHARE = 0.75
PERSON_CLASS = np.array([g.startswith("p") for g in GLYPH_CLASSES])
LETTERS = CloseLook("letters", PERSON_CLASS, LETTER_ZOOM, LETTER_FROM, LETTER_WEIGHT, panel=True, deep=True,
                    wide_zoom=LETTER_WIDE_ZOOM, deep_share=LETTERS_DEEP_SHARE)


def letters_path_for(model_path: Path) -> Path:
    """The letter network that goes with a cell network: ``cnn.npz`` -> ``letters.npz``,
    ``cnn_without_loose.npz`` -> ``letters_without_loose.npz`` (trained without the same family:
    ``vision.cells.train_letters``)."""
    return LETTERS.path_for(model_path)


def letter_crops(rectified: np.ndarray, cells: list[int]) -> np.ndarray:
    """Ink maps (n, CROP_PX, CROP_PX) of the middle ``LETTER_ZOOM`` of ``cells`` (indices row by row) of a
    rectified board."""
    return LETTERS.crops(rectified, cells)


def wants_letters(probs: np.ndarray) -> np.ndarray:
    """Which cells (rows of class probabilities) the letter stage reads: persons at least ``LETTER_FROM``."""
    return LETTERS.wants(probs)


def with_letters(probs: np.ndarray, letters: np.ndarray, weight: float = LETTER_WEIGHT) -> np.ndarray:
    """Cells' readings (rows of class probabilities) with the letter stage's reading of their letter: the
    persons keep their share of each row, split between the letters as the cell networks split it averaged
    with the letter network (``weight`` its share); the other classes are as they were."""
    return LETTERS.combine(probs, letters, weight)
