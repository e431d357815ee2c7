"""The wall-or-crate stage: an outer space the cell networks leave torn between a wall and a crate, read once more by a
network that learned those two drawings alone.

Walls and crates taken for each other on the outer spaces were 133 of the 327 cells that stop 82's reader misread on
the benchmark renderer's spent seeds 1, 6, 9 and 10 (19,434 cells): planks crates read as walls, battlements and
zigzags read as crates. The cell and look networks learned 17 classes; this one learned the two, from the cell crops
(``features.cell_crops``: the very crops the cell networks read) of walls and crates of the five training renderers
(``vision/synth/*_renderer``) and our generator's hands, each crop turned and mirrored at random (a wall or a crate is
one still, whichever side of the board it stands on). Alone it reads those spaces no better than the cell networks
(about 96 % right against their 98 %), but it errs elsewhere: averaged with theirs on the cells they doubt, fewer are
misread (``reader.WALLS_WEIGHT``, measured there).

Two such networks, fitted from two seeds, read each such space and their log odds are averaged. Trained by ``python -m
vision.cells.train_other_renderer BOARDS --stage walls ...`` (its docstring has the commands and the boards). Read only
beside the shipped cell network (``walls_paths_for``): the leave-one-hand-out benchmark reads each
family with networks that never saw it, and these learned every family's walls.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.cells.cnn import CNN_PATH, ConvTrunk
from vision.cells.labels import GLYPH_CLASSES
from vision.cells.model import CellModel

WALLS_PATH = CNN_PATH.with_name("walls.npz")
# A second network of the same recipe, fitted from another seed (``--fit-seed 1``). How much one fit helps is a draw
# (on the spent seeds, alone: 133 -> 120-125 and 112; a trial fit 107); their average is less of one (116).
WALLS_SECOND_PATH = CNN_PATH.with_name("walls_second.npz")
# The network's shape (``train_cnn._torch_net``): the close-look stages' (two convolutions a stage, batch
# normalisation folded in at export).
WALLS_CHANNELS = (16, 32, 48)
WALLS_CONVS_PER_STAGE = 2

_WALL = GLYPH_CLASSES.index("W")
_CRATE = GLYPH_CLASSES.index("G")
WALL_OR_CRATE = np.array([g in ("W", "G") for g in GLYPH_CLASSES])


def walls_paths_for(model_path: Path) -> tuple[Path, ...]:
    """The wall-or-crate networks that go with a cell network: beside the shipped one, ``WALLS_PATH`` and
    ``WALLS_SECOND_PATH``, those that are there; beside any other (one trained without a family), none."""
    if Path(model_path).resolve() != CNN_PATH.resolve():
        return ()
    return tuple(path for path in (WALLS_PATH, WALLS_SECOND_PATH) if path.is_file())


@dataclass(frozen=True)
class WallOrCrate:
    """The wall-or-crate networks: each a convolutional trunk and a head over the cell reader's classes, of which it
    learned the wall and the crate alone."""

    networks: tuple[tuple[ConvTrunk, CellModel], ...]

    @classmethod
    def load(cls, *paths: Path) -> WallOrCrate:
        return cls(tuple((ConvTrunk.load(path), CellModel.load(path)) for path in paths))

    def wall_log_odds(self, *views: np.ndarray) -> np.ndarray:
        """(n,) the log odds of a wall against a crate for n cells: each view (n, CROP_PX, CROP_PX ink maps of the same
        cells: the crop, the crop mirrored ...) read by each network in one batch, and their log odds averaged."""
        n = len(views[0])
        if n == 0:
            return np.zeros(0)
        crops = np.concatenate(views).astype(np.float32)
        odds = []
        for trunk, head in self.networks:
            probs = head.probabilities(trunk.features(crops), WALL_OR_CRATE, np.zeros(len(GLYPH_CLASSES)))
            odds.append(np.log(np.maximum(probs[:, _WALL], 1e-12)) - np.log(np.maximum(probs[:, _CRATE], 1e-12)))
        return np.mean(odds, axis=0).reshape(len(views), n).mean(axis=0)
