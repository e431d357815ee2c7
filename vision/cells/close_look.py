"""Close-look stages: what a cell holds read once more, from a crop of its middle, by a network that learned
only that kind of drawing.

As chesscog reads a square's occupancy first and its piece second, the cell networks decide what kind of
drawing a cell holds, and a close-look stage then decides which one of its kind it is: the letter of a person
(``vision.cells.letters``) or the digit of a church (``vision.cells.churches``). Nearly every misread of a hand
never seen is one letter read as another or one digit as another; a stage's network sees the cell's middle at
the cell networks' 40 px (so the drawing fills more of it) and was trained on its kind alone
(``vision.cells.train_letters``). Its reading of which one is averaged with the cell networks' (``combine``);
how likely the cell is to be of that kind at all stays theirs. A cell still doubtful after it is read by the stage
once more from a tighter and a wider crop (``LOOK_AGAIN_BELOW``, ``LOOK_AGAIN_SCALES``), as the cell networks take
a second look at their doubtful cells from crops nudged a few pixels (``reader.SECOND_LOOK_SHIFTS``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.layout import SIZE
from vision.cells.cnn import CNN_PATH, UNSEEN_DIR, ConvTrunk
from vision.cells.features import CROP_PX, MARGIN, ink_maps
from vision.cells.model import CellModel

# A cell the stage leaves doubtful (its reading, the stage's folded in, under ``LOOK_AGAIN_BELOW``) is read by the
# stage's network once more from crops a little tighter and a little wider (``LOOK_AGAIN_SCALES`` of the stage's
# zoom), and the three readings averaged: a hand's letter drawn smaller or larger than the fonts' the network
# learned, or a rectification a pixel off, is then seen at a size nearer one it knows. Chosen at the development
# seed (9300, 150 boards a family, each family by the networks that never saw it; 2026-11-28, stop 51): misread
# 3.78 -> 3.71 % (tidy 0.41 -> 0.39, quick 1.59 -> 1.56, round 4.29 -> 4.16, school 4.21 -> 4.05, loose 8.41 ->
# 8.39 %), misread without doubt 0.013 % either way; the same from 0.7, 0.9 or 0.99, so 0.7, where 12 % of the
# stages' cells are read again (27 % from 0.9, every cell: the same figures at three times the stages' cost).
# Scales 0.85-1.15 in five read 3.74 %, 0.8-1.2 3.71 %, 0.9-1.1 with crops moved 4 % of a cell each way 3.73 %;
# the letter stage alone reading again 3.74 %, the church stage alone 3.75 %. The benchmark is in hardware.md.
LOOK_AGAIN_BELOW = 0.7
LOOK_AGAIN_SCALES = (0.9, 1.1)
# A stage with a panel (``CloseLook.panel``; ``StageNetwork.panel``) reads such a cell with the panel instead: its own
# network and the stage's networks trained without one family each (``UNSEEN_DIR``), each reading the cell's close
# crop once, their readings' normalised geometric mean (``panel_reading``). Networks trained on other data make other
# mistakes on a hand none of them learned. Only beside the shipped networks (``CloseLook.panel_for``): a network
# trained without a family reads that family with no network that saw it (``bench_hands``' table), so the panel is
# measured on the hands that no network learned (``bench_hands --new-hands``). Measured at dev seeds 9300, 9400 and
# 9500 (150 boards each, never the benchmark's; 2026-11-29, stop 57), the shipped reader on those hands misread
# 3.19 -> 3.04 %, 2.73 -> 2.49 %, 3.02 -> 2.91 %, without doubt 0.03 / 0.00 / 0.02 % either way. The panel reading
# the two other scales as well (18 readings a cell instead of 6) read 2.88 and 2.54 % at the first two, for three
# times the work; an arithmetic mean of the panel, at every cell the stage reads, 3.02 % at 9300 against the
# geometric mean's 2.86 %. The church stage's panel gained nothing (9300: 3.02 -> 3.01 % with both), so it has none.
# The stage's residual network (``StageNetwork.deep``, ``train_letters --residual 16``: 16-32-64 channels, two
# residual blocks a stage, 218,945 weights, about four times the letter network's work a crop) reads the doubtful
# cells with the panel and has half the say: the panel's reading and its own, geometric mean. On held-out crops of
# the hands it learned it misreads 5.14 % of the letters against the letter network's 6.38 %; stop 49's GPU trial
# measured the same shape at 13.6 % on a family it never saw against 15.4 % (``train_letters``' docstring). Chosen at
# the same dev seeds as the panel (2026-11-29, stop 58), misread 3.04 / 2.49 / 2.91 % with the panel alone: as a
# seventh member 2.88 / 2.42 / 2.80 %, with half the say 2.57 / 2.36 / 2.59 %, deciding alone 2.50 / 2.34 / 2.65 %;
# without doubt 0.03 / 0.00 / 0.02 % every way. From 0.8 or 0.9 (``LOOK_AGAIN_BELOW``) the same or 0.04 better.
# The church stage's residual network (``train_letters --stage churches --residual 16``; held-out church crops 1.99 %
# misread against the church network's 2.65 %) reads its doubtful churches so, in place of the tighter and wider crops
# (it has no panel): at the same seeds, with the letters' residual network, 2.57 / 2.36 / 2.59 -> 2.50 / 2.33 / 2.46 %
# (churches misread 39 -> 35, 16 -> 14, 38 -> 31), without doubt the same.
DEEP_SHARE = 0.5
# Beside a cell network trained without a family, the residual letter network trained without the same family, where
# there is one (``CloseLook.residual_for``; ``train_letters --only unseen --residual 16``: loose, round and school at
# stop 60, tidy and quick at stop 61, 2026-11-29), reads the doubtful letters so too, in place of the tighter and wider crops,
# as the shipped church stage's does: the leave-one-out table then reads each family as the shipped reader reads a hand
# it never learned, less the panel. At dev seeds 9300 and 9400 (150 boards each), each family by the networks that
# never saw it: loose 8.10 -> 7.92 % and 7.64 -> 7.24 %, round 4.00 -> 4.10 % and 4.70 -> 4.63 %, school 3.85 -> 3.71 %
# and 3.07 -> 3.06 % misread, without doubt the same; tidy 0.31 -> 0.28 % and 0.16 -> 0.15 %, quick 1.53 -> 1.28 % and
# 1.37 -> 1.17 % (stop 61). Not the church stage's residual network without a family (school's, tried at stop 61:
# hardware.md): it read school's boards 3.33 -> 3.13 % misread but let one move of ``bench_moves`` be recorded wrong
# without a question, under thresholds fitted without it. The tighter and wider crops read first and the residual network
# after them (as for a taught seat): loose 7.84 and 7.19 %, a few cells of 6,000 better for the closer crops' work
# besides; not kept, so that a stage without a panel reads its doubtful cells one way. The benchmark's figures are in
# hardware.md.
# Tried and not kept (stop 59, 2026-11-29): a second residual letter network, the same shape and fit on the shipped
# recipe's sets and the third pool's 800 boards too (``train_letters --cursive-pool-boards 800``, 95 script and school
# hands; 132,080 crops, fit seed 2, 43 minutes on two threads), beside the first with their geometric mean as the
# residual reading: the dev seeds 2.50 / 2.33 / 2.46 -> 2.42 / 2.20 / 2.41 % (in place of the first 2.57 / 2.21 /
# 2.46 %, as a seventh panel member 2.46 / 2.28 / 2.42 %), but the benchmark's seed (4247) 2.89 -> 3.01 % at 60 boards
# and 2.93 -> 2.98 % at 200: 12 fewer misread of 26,650 cells in all, within what the boards' draw moves. Nor does the
# residual network read at the tighter and wider crops too (``LOOK_AGAIN_SCALES``, averaged): 2.54 / 2.41 / 2.47 %.
# Nor another share a stage (the same seeds): the letters' at 0.7 2.37 / 2.31 / 2.47 %, the churches' at 0.7 2.49 /
# 2.36 / 2.49 % and at 0.3 2.52 / 2.34 / 2.59 %, a cell or a few either way.
# Nor, at stop 61, a panel of residual networks: the shipped one and the five trained without one family each, their
# geometric mean as the residual reading (``bench_hands --new-hands --no-shipped --families tidy --boards 150``, dev seeds
# 9300 / 9400 / 9500: 3.07 / 2.67 / 2.60 % misread as shipped; the shipped one with half of that mean's say 3.02 / 2.68 /
# 2.63 %, all six even 2.73 % at 9400 and 2.60 % at 9500), for five more deep readings of each doubtful letter.
# The stage network's share in which one of its kind a cell is, when its head was fitted to the seat's own labelled
# drawings (``seat_hand.SeatHand.stage_model``: a teaching sheet, corrections) rather than the stage's ``weight``:
# a head that learned this very hand's letters knows them better than the cell networks that never saw it.
# Chosen on teaching sheets at dev seeds 7100, 7600 and 8100 (quick, round, school and loose, 4 players, 6 fresh
# boards a player; never bench_adapt's): 302 -> 263 of 11,808 cells misread, every family fewer (at 7600, 0.65 and
# 0.9 read about as 0.75). bench_adapt's own figures are in hardware.md (stop 51).
TAUGHT_WEIGHT = 0.75
# Such a seat's doubtful cells, read again by its own head at the other scales, are then read by the stage's residual
# network too, with half the say (``DEEP_SHARE``), as the untaught ones are beside the panel (stop 59, 2026-11-29;
# before, a taught seat gave the residual network up with the panel). Only the shipped reader has it, so measured with
# the shipped reader on the nine new hands, one teaching sheet a player (``bench_adapt --new-hands``' tables): at dev
# seeds 7100, 7600, 8100 and 8600 (8 boards a player) the own seat 69 -> 63 of 5,248 cells misread (the residual
# network at 0.3 or 0.7 of the say 63 and 64; the panel asked too 67), through another player's sheet 89 -> 80; at
# 9100, 9600, 10100 and 10600, 92 -> 84 and 128 -> 102 (untaught 93).


@dataclass(frozen=True)
class CloseLook:
    """One close-look stage: which classes it tells apart, from how close, for which cells, and how much its
    network counts."""

    name: str  # the network files' stem: ``cnn.npz`` -> ``<name>.npz``
    classes: np.ndarray  # bool per glyph class: the kind it reads (``GLYPH_CLASSES``)
    zoom: float  # the crop's side, a fraction of a cell's, around the cell's middle (at most 1: inside the cell)
    read_from: float  # a cell is read when the cell networks give the kind at least this much of it
    weight: float  # the stage network's share in which one of its kind a cell is (the cell networks' the rest)
    panel: bool = False  # whether the shipped network reads its doubtful cells with a panel (``panel_for``)
    deep: bool = False  # ... and with the stage's residual network (``deep_for``)
    # A cell the cell networks read as one of the kind at least this sure, within the kind, is not read by the stage
    # (None: every cell of the kind is read).
    sure_from: float | None = None
    # A second, wider crop (this fraction of a cell) that each of the stage's networks reads beside ``zoom``'s, the two
    # readings' geometric mean being the network's (``StageNetwork.read``); None: one crop (``letters.LETTER_WIDE_ZOOM``).
    wide_zoom: float | None = None
    # The residual network's share in a doubtful cell's second reading (``StageNetwork.read``), the stage's and its
    # panel's together the rest.
    deep_share: float = DEEP_SHARE

    def path_for(self, model_path: Path) -> Path:
        """The stage's network that goes with a cell network: ``cnn.npz`` -> ``<name>.npz``,
        ``cnn_without_loose.npz`` -> ``<name>_without_loose.npz`` (trained without the same family)."""
        model_path = Path(model_path)
        return model_path.with_name(model_path.name.replace("cnn", self.name, 1))

    def residual_for(self, model_path: Path) -> Path:
        """The stage's residual network that goes with a cell network, named as ``path_for`` names the stage's own:
        ``cnn.npz`` -> ``<name>_residual.npz`` (``residual_path``), ``cnn_without_loose.npz`` ->
        ``<name>_residual_without_loose.npz`` (``train_letters --only unseen --residual``: trained without the same
        family, so that ``bench_hands``' table reads each family with a residual network that never saw it)."""
        model_path = Path(model_path)
        return model_path.with_name(model_path.name.replace("cnn", f"{self.name}_residual", 1))

    def panel_for(self, model_path: Path) -> tuple[Path, ...]:
        """The networks that read the stage's doubtful cells beside its own (``LOOK_AGAIN_BELOW``): beside the shipped
        cell network's (``CNN_PATH``), the stage's networks trained without one family each (``UNSEEN_DIR``); beside
        any other, none, so that a network trained without a family never reads it beside one that learned it."""
        if not self.panel or not _shipped(model_path):
            return ()
        return tuple(sorted(UNSEEN_DIR.glob(f"{self.name}_without_*.npz")))

    def deep_for(self, model_path: Path) -> Path | None:
        """The stage's residual network (``residual_path``), which reads the doubtful cells with the panel and has half
        the say (``StageNetwork.deep``): beside the shipped cell network, where the stage has one; beside a cell network
        trained without a family (``cnn_without_<family>.npz``), the stage's residual network trained without the same
        family beside it, where there is one (``residual_for``); else None (a network that learned a family never reads
        it beside one that did not)."""
        if not self.deep:
            return None
        if _shipped(model_path):
            path = residual_path(self)
        elif Path(model_path).stem.startswith("cnn_without_"):
            path = self.residual_for(model_path)
        else:
            return None
        return path if path.is_file() else None

    def __post_init__(self) -> None:
        if self.zoom * max(1.0, *LOOK_AGAIN_SCALES) > 1.0:
            raise ValueError(f"{self.name}: a crop of {self.zoom} of a cell, scaled up to "
                             f"{max(LOOK_AGAIN_SCALES)}, would reach past the cell")
        if self.wide_zoom is not None and not self.zoom < self.wide_zoom <= 1.0:
            raise ValueError(f"{self.name}: a wide crop of {self.wide_zoom} of a cell must be wider than {self.zoom} "
                             "and stay inside the cell")

    def wide_crops(self, rectified: np.ndarray, cells: list[int]) -> np.ndarray | None:
        """``crops`` of ``cells`` at ``wide_zoom``; None for a stage without one."""
        return None if self.wide_zoom is None else self.crops(rectified, cells, self.wide_zoom / self.zoom)

    def crops(self, rectified: np.ndarray, cells: list[int], scale: float = 1.0) -> np.ndarray:
        """Ink maps (n, CROP_PX, CROP_PX) of the middle ``zoom`` (times ``scale``) of ``cells`` (indices row by
        row) of a rectified board."""
        gray = rectified if rectified.ndim == 2 else cv2.cvtColor(rectified, cv2.COLOR_BGR2GRAY)
        cell = gray.shape[0] / SIZE
        extent = max(2, int(round(self.zoom * scale * cell)))
        out = np.empty((len(cells), CROP_PX, CROP_PX), np.float32)
        for k, index in enumerate(cells):
            row, col = divmod(index, SIZE)
            x0 = int(round((col + 0.5) * cell - extent / 2))
            y0 = int(round((row + 0.5) * cell - extent / 2))
            crop = gray[y0:y0 + extent, x0:x0 + extent]
            out[k] = cv2.resize(crop.astype(np.float32), (CROP_PX, CROP_PX), interpolation=cv2.INTER_AREA)
        return ink_maps(out)

    def wants(self, probs: np.ndarray) -> np.ndarray:
        """Which cells (rows of class probabilities) the stage reads: its kind at least ``read_from``, and which one of
        its kind under ``sure_from`` where the stage has one."""
        kind = probs[:, self.classes]
        mass = kind.sum(axis=1)
        wanted = mass >= self.read_from
        if self.sure_from is not None:
            wanted &= kind.max(axis=1) < self.sure_from * np.maximum(mass, 1e-12)
        return wanted

    def combine(self, probs: np.ndarray, stage: np.ndarray, weight: float | None = None) -> np.ndarray:
        """Cells' readings (rows of class probabilities) with the stage's reading of them: the kind keeps its
        share of each row, split within it as the cell networks split it averaged with the stage's network
        (``weight`` its share, default the stage's); the other classes are as they were."""
        weight = self.weight if weight is None else weight
        out = np.array(probs, dtype=np.float64)
        kind = out[:, self.classes]
        mass = kind.sum(axis=1, keepdims=True)
        within = kind / np.maximum(mass, 1e-12)
        out[:, self.classes] = mass * ((1.0 - weight) * within + weight * stage[:, self.classes])
        return out


def _shipped(model_path: Path) -> bool:
    return Path(model_path).resolve() == CNN_PATH.resolve()


def residual_path(look: CloseLook) -> Path:
    """The stage's residual network (``train_letters --residual``): deeper than the stage's own, read only beside the
    shipped cell network, on the cells its panel reads (``CloseLook.deep_for``)."""
    return look.residual_for(CNN_PATH)


def close_from_cell_inks(inks: np.ndarray, zoom: float) -> np.ndarray:
    """Close crops (n, CROP_PX, CROP_PX) cut from cell ink maps (``features.cell_crops``: a cell and its
    margin): the middle ``zoom`` of each cell, scaled up to CROP_PX. What a seat's kept drawings look like to
    a close-look stage (``seat_hand.SeatHand.stage_model``) without keeping a second picture of each: a
    little softer than a crop cut from the board (CROP_PX over 1.12 cells, so a half cell is 18 px scaled
    up), about what a camera's 24-36 px a cell gives anyway."""
    inks = np.asarray(inks, np.float32)
    side = inks.shape[-1]
    scale = (1 + 2 * MARGIN) / zoom
    zoom_in = cv2.getRotationMatrix2D((side / 2, side / 2), 0.0, scale)  # no turn: a zoom about the middle
    return np.stack([cv2.warpAffine(ink, zoom_in, (side, side), flags=cv2.INTER_LINEAR) for ink in inks])


@dataclass(frozen=True)
class StageNetwork:
    """A close-look stage's network: a convolutional trunk and its head (the cell networks' kinds and file
    layout), whose classes are the cell reader's though it learned only its stage's kind."""

    trunk: ConvTrunk
    head: CellModel
    look: CloseLook
    panel: tuple[StageNetwork, ...] = ()  # the stage's other networks, for its doubtful cells (``LOOK_AGAIN_BELOW``)
    # A deeper network of the stage (``residual_path``) that reads the doubtful cells with the panel, its reading
    # counting as much as the stage's and the panel's together (``DEEP_SHARE``).
    deep: StageNetwork | None = None

    @classmethod
    def load(cls, path: Path, look: CloseLook, panel: tuple[Path, ...] = (), deep: Path | None = None) -> StageNetwork:
        return cls(ConvTrunk.load(path), CellModel.load(path), look, tuple(cls.load(p, look) for p in panel),
                   None if deep is None else cls.load(deep, look))

    def probabilities(self, crops: np.ndarray, allowed: np.ndarray, prior_shift: np.ndarray,
                      head: CellModel | None = None) -> np.ndarray:
        """(n, classes): which one of its kind each close crop is, among those ``allowed`` (0 on every other
        class). ``head``: another head on the same trunk (a seat's, ``SeatHand.stage_model``)."""
        head = self.head if head is None else head
        return head.probabilities(self.trunk.features(crops), allowed & self.look.classes, prior_shift)

    def reading(self, crops: np.ndarray, wide: np.ndarray | None, allowed: np.ndarray, prior_shift: np.ndarray,
                head: CellModel | None = None) -> np.ndarray:
        """``probabilities`` of the close crops, or, with ``wide`` (the same cells' ``CloseLook.wide_crops``), the
        normalised geometric mean of the two crops' readings (``panel_reading``), both read in one batch."""
        if wide is None:
            return self.probabilities(crops, allowed, prior_shift, head)
        both = self.probabilities(np.concatenate([crops, wide]), allowed, prior_shift, head)
        return panel_reading([both[:len(crops)], both[len(crops):]], allowed & self.look.classes)

    def read(self, probs: np.ndarray, rectified: np.ndarray, cells: list[int], allowed: np.ndarray,
             prior_shift: np.ndarray, head: CellModel | None = None) -> None:
        """``probs`` (49 cells row by row) with the stage's reading of ``cells`` folded in, in place. A cell still
        doubtful with it (under ``LOOK_AGAIN_BELOW``) is read again: by the stage's ``panel`` from the same crop (their
        ``panel_reading``) when it has one and ``head`` is not a seat's, else at ``LOOK_AGAIN_SCALES``, and the stage's
        readings of it averaged; then, where the stage has one, by its residual network, with its share of the say
        (``CloseLook.deep_share``), a seat's head or not."""
        if not cells:
            return
        seat_head = head is not None and head is not self.head
        weight = TAUGHT_WEIGHT if seat_head else None  # (None: the stage's own)
        crops = self.look.crops(rectified, cells)
        # Every network of the stage reads the wider crop too (``wide_zoom``), but a seat's head: it learned the seat's
        # own drawings at ``zoom`` (``SeatHand.stage_model``).
        wide = None if seat_head else self.look.wide_crops(rectified, cells)
        stage = self.reading(crops, wide, allowed, prior_shift, head)
        combined = self.look.combine(probs[cells], stage, weight)
        again = np.flatnonzero(combined.max(axis=1) < LOOK_AGAIN_BELOW)
        if len(again):
            doubtful = [cells[k] for k in again]
            kind = allowed & self.look.classes
            wide_again = None if wide is None else wide[again]
            if (self.panel or self.deep is not None) and not seat_head:  # (a stage with no panel: the deep network)
                # (A head fitted to a seat's own drawings knows that hand; the panel's networks do not.)
                members = [m.reading(crops[again], wide_again, allowed, prior_shift) for m in self.panel]
                stage_again = panel_reading([stage[again], *members], kind)
            else:
                closer = np.concatenate([self.look.crops(rectified, doubtful, scale) for scale in LOOK_AGAIN_SCALES])
                looks = self.probabilities(closer, allowed, prior_shift, head).reshape(len(LOOK_AGAIN_SCALES),
                                                                                      len(doubtful), -1)
                stage_again = (stage[again] + looks.sum(axis=0)) / (1 + len(LOOK_AGAIN_SCALES))
            if self.deep is not None:
                # A seat's head too: what it still doubts after the closer crops (``TAUGHT_WEIGHT``' note).
                deep = self.deep.reading(crops[again], wide_again, allowed, prior_shift)
                share = self.look.deep_share
                stage_again = panel_reading([stage_again, deep], kind, (1.0 - share, share))
            combined[again] = self.look.combine(probs[doubtful], stage_again, weight)  # (row by row: the others kept)
        probs[cells] = combined


def panel_reading(readings: list[np.ndarray], classes: np.ndarray, shares: tuple[float, ...] | None = None) -> np.ndarray:
    """Several networks' readings of the same cells (each (n, classes) probabilities) as one: their geometric mean
    over ``classes`` (bool per class), weighted by ``shares`` (default even), normalised, 0 on every other class. A
    class one network all but rules out stays unlikely whatever the others say; an arithmetic mean let one sure
    network outvote the rest."""
    weights = np.full(len(readings), 1.0 / len(readings)) if shares is None else np.asarray(shares, np.float64) / sum(shares)
    logs = sum(w * np.log(np.maximum(np.asarray(r, np.float64)[:, classes], 1e-12))
               for w, r in zip(weights, readings, strict=True))
    joint = np.exp(logs - logs.max(axis=1, keepdims=True))
    out = np.zeros((len(joint), len(classes)))
    out[:, classes] = joint / joint.sum(axis=1, keepdims=True)
    return out
