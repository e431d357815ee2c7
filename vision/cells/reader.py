"""``CellReader``: a rectified board image -> city notation, per-cell confidence, uncertain cells."""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from companion.layout import ALL_CELLS, LAYOUT, SIZE
from vision.board.locate import RECT_CELL_PX
from vision.cells.churches import CHURCHES
from vision.cells.close_look import CloseLook, StageNetwork
from vision.cells.cnn import (
    CNN_PATH,
    ConvTrunk,
    agreed_uncertain_threshold,
    single_threaded_blas,
    symbol_uncertain_threshold,
    uncertain_threshold,
)
from vision.cells.features import cell_crops, crop_features, print_contrast, shifted_cell_crops
from vision.cells.labels import (
    GLYPH_CLASSES,
    LETTER_AND_DIGIT_GLYPHS,
    char_for_glyph,
    check_language,
    letter_prior_shift,
)
from vision.cells.letters import LETTERS
from vision.cells.model import MODEL_PATH, CellModel
from vision.cells.seat_hand import SeatHand, head_embedding
from vision.cells.walls import WallOrCrate, walls_paths_for

# The shipped model: the convolutional one when present, else the MLP. The network is trained on the five
# hand families (``vision.synth.hands``: letters from handwriting fonts, many ways to draw each symbol) and
# on the generator's first hands (``vision.cells.train_hands``); what it does on a hand it never saw is what
# ``benchmarks/bench_hands.py`` measures with the same network trained without one family.
DEFAULT_MODEL_PATH = CNN_PATH if CNN_PATH.is_file() else MODEL_PATH

RECT_SIDE = 7 * RECT_CELL_PX
# Calibrated probability under which a cell is reported as uncertain, unless the network file says (its
# threshold fitted on hands it never saw: ``vision.cells.train_hands``).
UNCERTAIN_BELOW = 0.8
TEACH_FILE = "teach.npz"
SECOND_LOOK_BELOW = 0.97
# A cell whose printed grid lines have all but vanished (``print_contrast``) is under glare: a drawing
# there is washed out too, and an empty reading means nothing. Measured on 100 generated boards at 38-46
# px a cell (seed 1101, one of them largely under glare): confident misreads (drawings read as empty)
# 12 -> 2, while 0.2 % of the cells read right become uncertain too; on 200 boards at 24-46 px (seed 999)
# no confident misread lies under 0.06, and again 0.2 % of the right cells (spots of lesser glare).
WASHED_OUT_BELOW = 0.06
SECOND_LOOK_SHIFTS: tuple[tuple[float, float], ...] = ((-3, 0), (3, 0), (0, -3), (0, 3))
# A doubtful cell is also read by the look network (``look_path_for``) when there is one, and the two
# readings are averaged with this weight on the look network's.
LOOK_WEIGHT = 0.5
# ... when the second look leaves it under this. Chosen for the work it saves: on 40 boards a family of
# quick, round, school and loose (seed 7777, not bench_hands'), each read by the networks never trained on
# it, asking the look network about every doubtful cell (12.4 a board) or only those under 0.8 after the
# second look (7.5 a board) misread the same cells but one of 6,560 (under 0.5: 2.6 a board, and a third
# of the gain lost).
LOOK_BELOW = 0.8
# Two networks trained apart agree less often on a hand neither learned than either is sure of itself: how
# sure a letter or digit is comes from both (``agreement``) when the network file has a threshold fitted for
# it (``uncertain_below_agreed``, ``vision.cells.train_hands``). The look network then also reads every cell
# the network reads as a letter or digit under AGREEMENT_BELOW, and every cell under AGREEMENT_ANY_BELOW.
# Over that, a reading is past every threshold and a second opinion could only doubt it, which it did for
# none of the confident misreads on 400 boards of the five families (seed 9100, not bench_hands').
AGREEMENT_BELOW = 0.999
AGREEMENT_ANY_BELOW = 0.9
# What the board tells before any drawing is read: walls stand on the outer spaces only (rules-reference.md),
# so on an inner space a wall is weighed at this share of what the picture alone says. Soft, not zero: a
# wall drawn inside by mistake still reads as a wall when the picture is clear (and the rules engine then
# says it is illegal), but a box with a cross that looks a little like bricks reads as the crate it is.
INNER_WALL_PRIOR = 0.05
# And on an outer space a wall is weighed at this many times what the picture alone says. The networks learned
# from boards where walls and crates are about as common (the training crops: walls 10 %, crates 13 %, printed ones
# counted), but at a table walls are built on the outer spaces three times as often as crates are drawn there (200
# games of the built-in bots, a state a round: outer spaces 21 % walls, 7 % crates): by Bayes' rule the ratio of
# the two is about 4 times what the crops taught. 2 against every other reading (short of that: bots are not players,
# and since stop 81 a crate's share is weighed further, below). Measured (stop 76,
# 2026-12-04) on the benchmark renderer's spent seeds 1 and 6, with the networks of that stop: misread 5.7 -> 5.2 %
# and 4.9 -> 4.7 % (walls read as crates 79 -> 44 on seed 1, mostly battlements; crates read as walls 33 -> 43), without
# doubt 4 -> 3 and 3 -> 5 cells; 3 read seed 6 at 4.4 %.
OUTER_WALL_PRIOR = 2.0
# ... and against a crate alone, once more at this many times: a wall's odds against a crate on an outer space are
# OUTER_WALL_PRIOR * WALL_OVER_CRATE_ON_THE_EDGE = 3.6 times the picture's, short of what Bayes' rule gives (the bots
# build 3.2 walls for each crate drawn on an outer space, over ``TRAINING_WALLS_PER_CRATE`` in the crops: 4.1), while a
# house, a person, a church or an empty space keeps what OUTER_WALL_PRIOR alone leaves it: their odds against a wall
# were not what was misread. Measured (stop 81, 2026-12-07) on the benchmark renderer's spent seeds 1, 6, 9 and 10
# (19,434 cells), with stop 80's networks: 418 -> 381 cells misread (walls read as crates 114 -> 54: battlements 80 ->
# 39, zigzags 36 -> 17; crates read as walls 63 -> 85, planks 60 -> 76), 7 -> 10 without doubt (planks crates), right
# cells doubted 5,626 -> 5,241; every wall weighed up 3.6 times against everything (OUTER_WALL_PRIOR at 3.6) 384, and
# a church read as a wall now and then. Our own generator's nine new hands (``bench_hands --new-hands --seed 9300``)
# 3.01 -> 3.13 %.
WALL_OVER_CRATE_ON_THE_EDGE = 1.8
# Walls per crate among the networks' training crops (walls 10 %, crates 13 %): what the picture's odds already hold.
TRAINING_WALLS_PER_CRATE = 10 / 13
# A wall or a crate mirrored along the board's edge is still a wall or a crate (and a house a house, an empty space an
# empty space): an outer cell the networks doubt, with hardly any letter or digit in its reading (under
# MIRROR_LETTERS_BELOW), is also read mirrored so (``mirrored_along_the_edge``), by the cell network with this many
# looks' say beside its five (``SECOND_LOOK_SHIFTS`` and the crop itself) and by the look network with half the say.
# Walls and crates taken for each other were half of what the benchmark renderer's tables still misread (stop 79,
# 2026-12-07): on its spent seeds 1, 6, 9 and 10 (19,434 cells), with stop 79's look network, 472 -> 460 cells misread
# with the cell network's mirrored look, 449 with the look network's too (right cells doubted 5,590 -> 5,665). A
# weight of 1 gained less (on stop 78's networks, seeds 1 and 6: 290 -> 282, and 279 at 3); mirroring both ways and turning
# half round too, 281.
MIRROR_WEIGHT = 3.0
MIRROR_LETTERS_BELOW = 0.1
# An outer space that, in the board's context, is at least WALLS_FROM a wall or a crate and whose split between the two
# leaves neither at WALLS_SURE_FROM is read once more by the wall-or-crate networks (``vision.cells.walls``), from its
# crop and the crop mirrored along the edge (the log odds of both networks and both views averaged, then weighed as the
# board's context weighs a wall against a crate there), and its split becomes the cell networks' with WALLS_WEIGHT of
# the say given to that reading. 0.5-0.7 such spaces a board. Chosen (stop 85, 2026-12-08) on the benchmark renderer's
# spent seeds 1, 6, 9 and 10 (19,434 cells), stop 82's reader, with a trial network (one fit, another split): outer walls
# and crates taken for each other 133 -> 107 (weight 0.2: 112, 0.4: 106, 0.5: 109; the crop alone 114, four turns and
# mirrors 105, all eight 108; from 0.72 or 0.9 the same: at this weight a split over 0.72 cannot turn). The two shipped
# networks (fit seeds 0 and 1) so: 133 -> 116, all cells 327 -> 310, 10 without doubt either way, right cells doubted
# 27.5 -> 27.6 %; each alone 120-125 and 112. Then seeds 19, 20 and 21, read once by each reader: 284 -> 274 of 15,252
# cells misread (hardware.md §2). Inner spaces stay as they were: a wall is all but ruled out there, and the trial
# network's reading there made 6 -> 9 misread.
WALLS_FROM = 0.5
WALLS_SURE_FROM = 0.8
WALLS_WEIGHT = 0.3
# What a cell's ``alternatives`` keep for the tracker's rules-aware reading: its likeliest readings, at
# most this many, each at least this probable (the rest of the mass is spread thin over the others).
ALTERNATIVES_KEPT = 6
ALTERNATIVE_AT_LEAST = 0.001
# The close-look stages whose head a seat's hand fits to its own drawings (``SeatHand.stage_model``).
# The letter stage (2026-11-27, stop 41). Teaching sheets, each family's hands read by the networks that never
# saw it, 20 fresh boards a player: with the layer fitted on close crops cut from the sheet's photo, quick,
# round, school and loose at dev seeds 5151 and 5252 misread 488 -> 433 of 26,240 cells (fewer at every one
# of the eight tables); cut from the kept ink maps, as built, quick, round and loose at 5252 244 -> 214 of
# 9,840. bench_adapt (seed 9100): own sheet 76 -> 73 of 3,280, learning during play unchanged (66 of 8,339
# from turn 41; 69 when moves accepted as read fitted the layer too, hence ``SeatHand.sure``). The letter
# network alone on loose's letters gains nothing (8 hands, 65 -> 66 of 390 misread): what helps is its
# sharper say next to the cell networks'. Stop 39's nearest letter examples voting gained nothing.
# Since stop 46 both its dense layers are fitted (``seat_hand.stage_head``), not its last layer alone: own sheet at dev
# seeds 5151 and 5252 (quick, round, school, loose; 20 boards a player) 291 -> 258 misread of 19,680 cells with 72
# redrawn crops a drawing; bench_adapt (seed 9100) 73 -> 69 of 3,280 with 36, learning during play unchanged.
# And the church stage too (stop 46), from a sheet's 10 churches on (``seat_hand.STAGE_FROM_DRAWINGS``).
SEAT_STAGES = frozenset({"letters", "churches"})

_TOWER_INDEX = frozenset(ALL_CELLS.index(t) for t in LAYOUT.towers)
# The printed crates are part of the board: nobody can draw there, so they are not read either.
_PRINTED_INDEX = frozenset(ALL_CELLS.index(g) for g in LAYOUT.printed_crates)
_FIXED_INDEX = _TOWER_INDEX | _PRINTED_INDEX
# The 41 spaces a player can draw on, row by row: what is read, and what the evaluations count.
DRAWABLE_INDEX: tuple[int, ...] = tuple(i for i in range(SIZE * SIZE) if i not in _FIXED_INDEX)
_OUTER_NAMES = LAYOUT.outer_cells
INNER_INDEX: tuple[int, ...] = tuple(i for i in DRAWABLE_INDEX if ALL_CELLS[i] not in _OUTER_NAMES)
OUTER_INDEX: tuple[int, ...] = tuple(i for i in DRAWABLE_INDEX if ALL_CELLS[i] in _OUTER_NAMES)
_OUTER_SET = frozenset(OUTER_INDEX)
_WALL = GLYPH_CLASSES.index("W")
_CRATE = GLYPH_CLASSES.index("G")
# Per glyph class, whether it is a letter or digit (doubted under ``symbols_uncertain_below``).
LETTER_OR_DIGIT_CLASS = np.array([g in LETTER_AND_DIGIT_GLYPHS for g in GLYPH_CLASSES])


def apply_board_context(probs: np.ndarray) -> None:
    """What the board says before the picture (in place, (49, classes) cells row by row): walls are weighed
    down on inner spaces (``INNER_WALL_PRIOR``) and up on outer ones (``OUTER_WALL_PRIOR``), against a crate there more
    (``WALL_OVER_CRATE_ON_THE_EDGE``). Churches 1-5 and the printed crates are the classes and the fixed cells
    themselves."""
    for cells, weight in ((list(INNER_INDEX), INNER_WALL_PRIOR), (list(OUTER_INDEX), OUTER_WALL_PRIOR)):
        probs[cells, _WALL] *= weight
        probs[cells] /= probs[cells].sum(axis=1, keepdims=True)
    # A wall against a crate on the edge (``WALL_OVER_CRATE_ON_THE_EDGE``): their shares shift, their sum stays.
    outer = list(OUTER_INDEX)
    walls, crates = probs[outer, _WALL], probs[outer, _CRATE]
    both = walls + crates
    weighed = walls * WALL_OVER_CRATE_ON_THE_EDGE
    probs[outer, _WALL] = np.where(both > 0, weighed / np.maximum(weighed + crates, 1e-300) * both, 0.0)
    probs[outer, _CRATE] = both - probs[outer, _WALL]


def in_board_context(probs: np.ndarray) -> np.ndarray:
    """A copy of ``probs`` as the board's context leaves it (``apply_board_context``)."""
    weighed = probs.copy()
    apply_board_context(weighed)
    return weighed


def agreement(probs: np.ndarray, look: np.ndarray) -> np.ndarray:
    """How sure two readings (rows of class probabilities) are together of the first one's reading: their
    normalised geometric mean at its likeliest class. High only where both are sure of the same class; a class
    one of them all but rules out stays low whatever the other says."""
    joint = np.sqrt(np.asarray(probs, np.float64) * np.asarray(look, np.float64))
    total = joint.sum(axis=1)
    at_best = joint[np.arange(len(joint)), np.asarray(probs).argmax(axis=1)]
    return np.where(total > 0, at_best / np.maximum(total, 1e-300), 0.0)


def wants_agreement(probs: np.ndarray) -> np.ndarray:
    """Which readings (rows of class probabilities) the look network's ``agreement`` says how sure they are
    of, when the network file has a threshold for it: a likely letter or digit under ``AGREEMENT_BELOW``,
    anything under ``AGREEMENT_ANY_BELOW``."""
    best, read_as = probs.max(axis=1), probs.argmax(axis=1)
    return (LETTER_OR_DIGIT_CLASS[read_as] & (best < AGREEMENT_BELOW)) | (best < AGREEMENT_ANY_BELOW)


def mirrored_along_the_edge(crops: np.ndarray, cells: Sequence[int]) -> np.ndarray:
    """Outer cells' crops (n, side, side; ``cells``: their indices row by row) mirrored across the line through the cell's
    middle that meets the board's edge at a right angle: left to right on the top and bottom rows, top to bottom on the
    left and right sides. The board's edge stays where it was, as a wall drawn along it does."""
    rows = np.asarray(cells, np.int64) // SIZE
    along_a_row = (rows == 0) | (rows == SIZE - 1)
    mirrored = np.where(along_a_row[:, None, None], crops[:, :, ::-1], crops[:, ::-1, :])
    return np.ascontiguousarray(mirrored)


def mirror_cells(readings: np.ndarray, cells: Sequence[int]) -> list[int]:
    """Which of ``cells`` (indices row by row) are read mirrored too: the outer ones whose reading (``readings``, a row
    a cell) gives letters and digits under ``MIRROR_LETTERS_BELOW`` (a mirrored letter is another letter)."""
    letters = np.asarray(readings)[:, LETTER_OR_DIGIT_CLASS].sum(axis=1)
    return [int(i) for i, mass in zip(cells, letters, strict=True) if i in _OUTER_SET and mass < MIRROR_LETTERS_BELOW]


def look_path_for(model_path: Path) -> Path:
    """The look network that goes with a cell network: ``cnn.npz`` -> ``look.npz``, ``cnn_without_loose.npz``
    -> ``look_without_loose.npz`` (trained on the same hands: ``vision.cells.train_hands --only look``)."""
    model_path = Path(model_path)
    return model_path.with_name(model_path.name.replace("cnn", "look", 1))


def with_look(probs: np.ndarray, look: np.ndarray) -> np.ndarray:
    """A doubtful cell's reading with the look network's reading of it (rows of class probabilities)."""
    return (1.0 - LOOK_WEIGHT) * probs + LOOK_WEIGHT * look


def model_fingerprint(path: Path) -> str:
    """Which model file this is (a teach file records the one it adapted)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def _taught_from(teach_path: Path) -> str | None:
    """The fingerprint of the model a teach file adapted; None in files from before it was recorded
    (those are told apart by their feature size only)."""
    with np.load(teach_path) as data:
        return str(data["base_model"]) if "base_model" in data else None


class BoardCells(NamedTuple):
    """A board's cells as the networks read them, rows by cell (49, row by row): what a board read leaves for
    reading the same board again when only some of its cells changed (``CellReader.read_cells``)."""

    probs: np.ndarray  # (49, classes) probabilities
    sureness: np.ndarray  # (49,) how sure each cell's reading is
    agreed: np.ndarray  # (49,) bool: that sureness is the two networks' ``agreement``

    def with_cells(self, fresh: BoardCells, cells: Sequence[int]) -> BoardCells:
        """These readings with ``cells``' rows taken from ``fresh``."""
        rows = list(cells)
        probs, sureness, agreed = self.probs.copy(), self.sureness.copy(), self.agreed.copy()
        probs[rows], sureness[rows], agreed[rows] = fresh.probs[rows], fresh.sureness[rows], fresh.agreed[rows]
        return BoardCells(probs, sureness, agreed)


class CellReader:
    """Reads the 45 spaces of a rectified board (``vision.board``: A1 top-left, 7 x 7 cells).

    ``data_dir`` with a ``teach.npz`` (``vision.teach``) swaps in the model adapted to this table's hand.
    """

    def __init__(self, language: str = "en", data_dir: str | Path | None = None,
                 model_path: Path = DEFAULT_MODEL_PATH) -> None:
        self._read_in(language)
        self.taught = False
        taught_path = Path(data_dir) / TEACH_FILE if data_dir is not None else None
        self.model = CellModel.load(model_path)
        # A CNN file holds a convolutional trunk that turns crops into the head's input features.
        self.trunk = ConvTrunk.load(model_path) if ConvTrunk.is_cnn_file(model_path) else None
        # The look network: wider (three times the work a crop), so it reads only the cells still doubtful
        # after the second look (``LOOK_BELOW``).
        look_path = look_path_for(model_path)
        self.look: tuple[ConvTrunk, CellModel] | None = None
        if self.trunk is not None and look_path != Path(model_path) and look_path.is_file():
            self.look = (ConvTrunk.load(look_path), CellModel.load(look_path))
        # The close-look stages, by networks trained on the same hands: the letter of every cell taken for a
        # person read again from a close crop (``vision.cells.letters``), the digit of every church
        # (``vision.cells.churches``).
        self.letters: StageNetwork | None = self._stage(LETTERS, model_path)
        self.churches: StageNetwork | None = self._stage(CHURCHES, model_path)
        # The wall-or-crate networks, beside the shipped cell network only (``walls.walls_paths_for``).
        walls_paths = walls_paths_for(model_path) if self.trunk is not None else ()
        self.walls: WallOrCrate | None = WallOrCrate.load(*walls_paths) if walls_paths else None
        self.uncertain_below = uncertain_threshold(model_path) or UNCERTAIN_BELOW
        # Letters and digits may be doubted above it: a new hand's letter can look just like another letter.
        self.symbols_uncertain_below = max(symbol_uncertain_threshold(model_path) or 0.0, self.uncertain_below)
        # ... and when the look network's agreement says how sure a letter or digit is, this is its threshold.
        agreed = agreed_uncertain_threshold(model_path) if self.look is not None else None
        self.agreed_uncertain_below = max(agreed, self.uncertain_below) if agreed is not None else None
        if taught_path is not None and taught_path.is_file():
            try:
                taught: CellModel | None = CellModel.load(taught_path)
                taught_from = _taught_from(taught_path)
            except (OSError, ValueError, KeyError):
                taught, taught_from = None, None  # unreadable: read with the shipped model, not at all
            # A head adapted to another model's features means nothing to this one: a teach file made
            # before an update is ignored (teach again), whether or not the feature sizes happen to agree.
            if (taught is not None and taught.mean.shape == self.model.mean.shape
                    and taught_from in (None, model_fingerprint(model_path))):
                self.model, self.taught = taught, True

    def _stage(self, look: CloseLook, model_path: Path) -> StageNetwork | None:
        """The close-look stage's network beside the cell network, if there is one."""
        path = look.path_for(model_path)
        if self.trunk is None or path == Path(model_path) or not path.is_file():
            return None
        return StageNetwork.load(path, look, look.panel_for(model_path), look.deep_for(model_path))

    def _read_in(self, language: str) -> None:
        """What the table's language decides: which letter is which person, and which are read at all."""
        self.language = check_language(language)
        self.chars = [char_for_glyph(g, self.language) for g in GLYPH_CLASSES]
        # Letters this language does not use (a 'G' person in English) are never read.
        self.allowed = np.array([c is not None for c in self.chars])
        # ... and the ones it uses are as likely as each other, though training saw some less often.
        self.prior_shift = np.array(letter_prior_shift(self.language))

    def for_language(self, language: str) -> CellReader:
        """The same networks reading another language's person letters (nothing is loaded again)."""
        other = copy.copy(self)
        other._read_in(language)
        return other

    def crop_features(self, crops: np.ndarray) -> np.ndarray:
        """The model's input features for ink maps (n, CROP_PX, CROP_PX) from ``cell_crops``."""
        return self.trunk.features(crops) if self.trunk is not None else crop_features(crops)

    def embed(self, crops: np.ndarray) -> np.ndarray:
        """Ink maps -> the head's last hidden layer: where a seat's hand (``seat_hand``) compares drawings."""
        return head_embedding(self.model, self.crop_features(crops))

    def probabilities(self, rectified: np.ndarray, hand: SeatHand | None = None) -> np.ndarray:
        """(49, n_classes) calibrated probabilities, cells row by row (towers: empty and printed crates:
        crate, both certain and not read). ``hand``: the examples of this board's seat, which vote next
        to the networks (``vision.cells.seat_hand``)."""
        return self._reading(rectified, hand)[0]

    def _reading(self, rectified: np.ndarray, hand: SeatHand | None,
                 previous: BoardCells | None = None, cells: Sequence[int] | None = None) -> BoardCells:
        """(probabilities, how sure each cell's reading is, which cells that is the two networks'
        ``agreement`` for); with ``previous``, only ``cells`` are read and the others kept as it has them."""
        wanted = set(DRAWABLE_INDEX if previous is None or cells is None else cells)
        reading = [i for i in DRAWABLE_INDEX if i in wanted]
        if previous is not None and not reading:
            return previous
        with single_threaded_blas():
            fresh = BoardCells(*self._probabilities(rectified, hand, reading))
        if previous is None or len(reading) == len(DRAWABLE_INDEX):
            return fresh
        return previous.with_cells(fresh, reading)

    def _probabilities(self, rectified: np.ndarray, hand: SeatHand | None = None,
                       reading: Sequence[int] = DRAWABLE_INDEX) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The networks' reading of the drawable cells ``reading`` (indices row by row, in order); every
        other row is a certain empty space or printed crate. Each cell's reading depends on its own
        crop alone (its cell and a margin), which is what lets a board be read again cell by cell."""
        if rectified is None or rectified.ndim not in (2, 3) or rectified.shape[0] < 7 * 8:
            raise ValueError("CellReader.read needs a rectified board image")
        if rectified.shape[0] != RECT_SIDE or rectified.shape[1] != RECT_SIDE:
            rectified = cv2.resize(rectified, (RECT_SIDE, RECT_SIDE), interpolation=cv2.INTER_AREA)
        reading = list(reading)
        read_here = np.zeros(SIZE * SIZE, bool)
        read_here[reading] = True
        # Towers and printed crates are never drawn on: they are not read, which saves the time (nor are
        # the cells left out of ``reading``: certain empty spaces here, the caller keeps its own reading).
        probs = np.zeros((SIZE * SIZE, len(GLYPH_CLASSES)))
        probs[:, GLYPH_CLASSES.index(".")] = 1.0
        probs[list(_PRINTED_INDEX)] = 0.0
        probs[list(_PRINTED_INDEX), GLYPH_CLASSES.index("G")] = 1.0
        first_crops = cell_crops(rectified, cells=reading)
        first_features = self.crop_features(first_crops)
        # A seat with examples reads with its own last layer (``seat_hand.seat_head``), its nearest examples
        # voting at the end.
        seated = hand is not None and len(hand) > 0
        model = hand.seat_model(self, self.model, self.allowed) if seated else self.model
        probs[reading] = model.probabilities(first_features, self.allowed, self.prior_shift)
        # A second look at doubtful cells: average over crops nudged a few pixels each way, which
        # smooths out a slightly wrong homography or a stroke at the cell's edge.
        # Doubtful as the board's context leaves it (an inner cell torn between a wall and a crate is not).
        doubtful = [int(i) for i in np.flatnonzero((in_board_context(probs).max(axis=1) < SECOND_LOOK_BELOW) & read_here)]
        if doubtful:
            # Every nudged crop of every doubtful cell in one batch through the network.
            wanted = [(shift, i) for shift in SECOND_LOOK_SHIFTS for i in doubtful]
            crops = shifted_cell_crops(rectified, wanted)
            looks = model.probabilities(self.crop_features(crops), self.allowed, self.prior_shift)
            looks = looks.reshape(len(SECOND_LOOK_SHIFTS), len(doubtful), -1)
            probs[doubtful] = (probs[doubtful] + looks.sum(axis=0)) / (1 + len(SECOND_LOOK_SHIFTS))
            if mirrored := mirror_cells(probs[doubtful], doubtful):
                crops = mirrored_along_the_edge(first_crops[[reading.index(i) for i in mirrored]], mirrored)
                looks = model.probabilities(self.crop_features(crops), self.allowed, self.prior_shift)
                kept = 1 + len(SECOND_LOOK_SHIFTS)
                probs[mirrored] = (kept * probs[mirrored] + MIRROR_WEIGHT * looks) / (kept + MIRROR_WEIGHT)
        # Still doubtful as the board's context leaves it, as ``doubtful`` is: since walls are weighed up on the outer
        # spaces (``OUTER_WALL_PRIOR``), an outer wall the network alone found at 0.75 is no longer doubted, and a crate
        # beside it at 0.81 is. (Weighed only where the look network has cells to read.)
        still: list[int] = []
        if doubtful and self.look is not None:
            in_context = in_board_context(probs)
            still = [i for i in doubtful if in_context[i].max() < LOOK_BELOW]
        looked = np.zeros_like(probs)
        if still:
            looked[still] = self._look_at(first_crops, reading, still)
            probs[still] = with_look(probs[still], looked[still])
        for stage in (self.letters, self.churches):
            if stage is not None:
                # Which letter a person is, which digit a church, read again (``vision.cells.close_look``).
                cells = [int(i) for i in np.flatnonzero(stage.look.wants(probs) & read_here)]
                # A seat's own drawings of the stage's kind fit its head too (``SeatHand.stage_model``).
                head = hand.stage_model(stage, self.allowed) if seated and cells and stage.look.name in SEAT_STAGES else None
                stage.read(probs, rectified, cells, self.allowed, self.prior_shift, head)
        # How sure a letter or digit is comes from the two networks' agreement on the reading as it now stands
        # (the close-look stages' included), so the look network reads those cells after them.
        asked = sorted(set(still) | {i for i in self._agreement_cells(probs) if read_here[i]})
        if more := [i for i in asked if i not in still]:
            looked[more] = self._look_at(first_crops, reading, more)
        if seated:
            probs[reading] = hand.adjust(probs[reading], head_embedding(self.model, first_features), self)
        apply_board_context(probs)
        self._wall_or_crate(probs, first_crops, reading, read_here)
        sureness = probs.max(axis=1)
        agreed = np.zeros(SIZE * SIZE, bool)
        washed = [int(i) for i in np.flatnonzero((print_contrast(rectified) < WASHED_OUT_BELOW) & read_here)]
        if self.agreed_uncertain_below is not None and asked:
            agreed[asked] = True  # (only with a look network: ``agreed_uncertain_below`` needs one)
            agreed[washed] = False  # a washed-out cell is doubted below, whatever the networks agree on
            looked[~agreed] = probs[~agreed]  # (board context needs whole rows)
            apply_board_context(looked)
            sureness[agreed] = agreement(probs[agreed], looked[agreed])
        if washed:
            # Halfway to knowing nothing: the best guess stays, but never above UNCERTAIN_BELOW.
            probs[washed] = 0.5 * probs[washed] + 0.5 * self.allowed / self.allowed.sum()
            sureness[washed] = probs[washed].max(axis=1)
        return probs, sureness, agreed

    def _wall_or_crate(self, probs: np.ndarray, first_crops: np.ndarray, reading: list[int],
                       read_here: np.ndarray) -> None:
        """``probs`` (in the board's context) with the wall-or-crate networks' reading of the outer spaces torn between a
        wall and a crate folded in, in place (``WALLS_WEIGHT``); nothing without those networks."""
        if self.walls is None:
            return
        both = probs[:, _WALL] + probs[:, _CRATE]
        split = probs[:, _WALL] / np.maximum(both, 1e-12)
        torn = (both >= WALLS_FROM) & (np.maximum(split, 1.0 - split) < WALLS_SURE_FROM) & read_here
        cells = [i for i in OUTER_INDEX if torn[i]]
        if not cells:
            return
        crops = first_crops[[reading.index(i) for i in cells]]
        odds = self.walls.wall_log_odds(crops, mirrored_along_the_edge(crops, cells))
        # The board's context weighs a wall against a crate on an outer space as ``apply_board_context`` does.
        odds += np.log(OUTER_WALL_PRIOR * WALL_OVER_CRATE_ON_THE_EDGE)
        wall = (1.0 - WALLS_WEIGHT) * split[cells] + WALLS_WEIGHT / (1.0 + np.exp(-odds))
        probs[cells, _WALL] = both[cells] * wall
        probs[cells, _CRATE] = both[cells] * (1.0 - wall)

    def _look_at(self, first_crops: np.ndarray, reading: list[int], cells: list[int]) -> np.ndarray:
        """The look network's reading of ``cells`` (indices row by row) from their crops (``reading``'s)."""
        trunk, head = self.look  # type: ignore[misc]
        rows = [reading.index(i) for i in cells]
        looked = head.probabilities(trunk.features(first_crops[rows]), self.allowed, self.prior_shift)
        # A wall or a crate mirrored along the board's edge is one still: read so too, half the say (``MIRROR_WEIGHT``).
        if mirrored := mirror_cells(looked, cells):
            at = [cells.index(i) for i in mirrored]
            crops = mirrored_along_the_edge(first_crops[[rows[k] for k in at]], mirrored)
            looked[at] = 0.5 * (looked[at] + head.probabilities(trunk.features(crops), self.allowed, self.prior_shift))
        return looked

    def _agreement_cells(self, probs: np.ndarray) -> list[int]:
        """The cells whose confidence is the two networks' ``agreement`` (``wants_agreement``) when the network
        file has a threshold for it. None without one: the look network reads only what the second look left
        doubtful (``LOOK_BELOW``)."""
        if self.agreed_uncertain_below is None:
            return []
        return [int(i) for i in np.flatnonzero(wants_agreement(probs)) if i not in _FIXED_INDEX]

    def read(self, rectified: np.ndarray,
             hand: SeatHand | None = None) -> tuple[list[str], list[list[float]], list[str]]:
        """(city, confidence 7x7 in [0, 1] with towers 1.0, uncertain cell names).

        Every cell carries its best guess in ``city``; those under ``uncertain_below`` are also listed
        in ``uncertain`` (a letter or digit under ``symbols_uncertain_below``, or under
        ``agreed_uncertain_below`` when its confidence is the two networks' ``agreement``).
        """
        return self._read(*self._reading(rectified, hand))

    def read_with_alternatives(
        self, rectified: np.ndarray, hand: SeatHand | None = None,
    ) -> tuple[list[str], list[list[float]], list[str], dict[str, dict[str, float]]]:
        """``read``'s three answers and each drawable cell's likeliest readings: cell name -> {city
        character: probability} (``BoardReading.alternatives``)."""
        return self.read_cells(rectified, hand)[0]

    def read_cells(
        self, rectified: np.ndarray, hand: SeatHand | None = None, previous: BoardCells | None = None,
        cells: Sequence[int] | None = None,
    ) -> tuple[tuple[list[str], list[list[float]], list[str], dict[str, dict[str, float]]], BoardCells]:
        """``read_with_alternatives``' answers and the cells' readings behind them. With ``previous`` (an
        earlier read of the same board by the same networks and ``hand``) only ``cells`` (indices row by row)
        are read from ``rectified`` and every other cell keeps its earlier reading: a move changes a cell or
        three, and one cell costs a forty-first of a board (``TableReader`` says which cells changed)."""
        state = self._reading(rectified, hand, previous, cells)
        return (*self._read(*state), self.alternatives(state.probs)), state

    def alternatives(self, probs: np.ndarray) -> dict[str, dict[str, float]]:
        """The likeliest readings of each drawable cell in city notation, from ``probabilities``."""
        drawable = probs[list(DRAWABLE_INDEX)]
        order = np.argsort(-drawable, axis=1)[:, :ALTERNATIVES_KEPT]
        out: dict[str, dict[str, float]] = {}
        for row, cell in enumerate(DRAWABLE_INDEX):
            likely: dict[str, float] = {}
            for k in order[row]:
                p = float(drawable[row, k])
                char = self.chars[int(k)]
                if char is not None and (p >= ALTERNATIVE_AT_LEAST or not likely):
                    likely[char] = round(p, 4)
            out[ALL_CELLS[cell]] = likely
        return out

    def _read(self, probs: np.ndarray, sureness: np.ndarray | None = None,
              agreed: np.ndarray | None = None) -> tuple[list[str], list[list[float]], list[str]]:
        """``probabilities`` -> ``read``'s answers; ``sureness``: how sure each cell's reading is (default its
        probability), ``agreed``: which of those are the two networks' ``agreement``."""
        best = probs.argmax(axis=1)
        sureness = probs.max(axis=1) if sureness is None else sureness
        agreed = np.zeros(len(probs), bool) if agreed is None else agreed
        city: list[str] = []
        confidence: list[list[float]] = []
        uncertain: list[str] = []
        for row in range(SIZE):
            chars, confs = [], []
            for col in range(SIZE):
                i = row * SIZE + col
                if i in _TOWER_INDEX:
                    chars.append("#")
                    confs.append(1.0)
                    continue
                char = self.chars[int(best[i])] or "."
                p = float(sureness[i])
                chars.append(char)
                confs.append(round(p, 4))
                if p < self._threshold(int(best[i]), bool(agreed[i])):
                    uncertain.append(ALL_CELLS[i])
            city.append("".join(chars))
            confidence.append(confs)
        return city, confidence, uncertain

    def _threshold(self, glyph: int, agreed: bool) -> float:
        """The confidence under which a cell read as ``glyph`` is uncertain; ``agreed``: its confidence is the
        two networks' ``agreement``."""
        if not LETTER_OR_DIGIT_CLASS[glyph]:
            return self.uncertain_below
        if agreed and self.agreed_uncertain_below is not None:
            return self.agreed_uncertain_below
        return self.symbols_uncertain_below
