"""Teach mode: a table draws each symbol once on a board, a photo of it adapts the reader to that hand.

The teaching board (``TEACH_LAYOUT``, cells as the board faces its owner):

    #..W..#      D1 wall
    .GGGH..      D2 crate, E2 house
    .G1234.      C3..F3 churches 1-4
    .G5....      C4 church 5
    .csam..      B5 citizen, C5 soldier, D5 priest, E5 architect, F5 merchant
    .jn....      B6 juggler, C6 noble (letters as the table's language writes them)
    #.....#      every other space stays empty (they teach what "empty" looks like on this board)

One or more photos of it (with or without the kit's markers) are located, cut into cells, augmented
(small rectification errors, light, blur, noise) and used to fine-tune the cell classifier together
with a replay set of the original training cells, so that the rest is not forgotten. The adapted model
is written to ``<data_dir>/teach.npz``; ``CellReader(data_dir=...)`` picks it up.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.errors import UserError
from companion.layout import ALL_CELLS, LAYOUT, SIZE, cell_index, empty_city
from vision.board import find_boards, find_single_board
from vision.cells.dataset import jitter_rectified
from vision.cells.features import cell_crops
from vision.cells.labels import GLYPH_CLASSES, check_language, glyph_for_char
from vision.cells.model import CellModel
from vision.cells.reader import DEFAULT_MODEL_PATH, TEACH_FILE, CellReader, model_fingerprint

# Cell -> what is drawn there, in city notation (persons in the table's own letters).
TEACH_LAYOUT: dict[str, str] = {
    "D1": "W",
    "D2": "G", "E2": "H",
    "C3": "1", "D3": "2", "E3": "3", "F3": "4", "C4": "5",
    "B5": "c", "C5": "s", "D5": "p", "E5": "a", "F5": "m",
    "B6": "j", "C6": "n",
}
AUGMENTATIONS = 24  # augmented copies of each taught photo


def teaching_city() -> list[str]:
    """The teaching board in city notation."""
    grid = [list(r) for r in empty_city()]
    for cell, char in TEACH_LAYOUT.items():
        col, row = cell_index(cell)
        grid[row][col] = char
    return ["".join(r) for r in grid]


def _locate(image: np.ndarray) -> np.ndarray | None:
    boards = find_boards(image)
    if boards:
        return min(boards, key=lambda b: b.seat).rectified
    single = find_single_board(image)
    return single.rectified if single is not None else None


def _augment(rectified: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    img = jitter_rectified(rectified, rng, 1.5).astype(np.float32)
    img = img * rng.uniform(0.75, 1.15) + rng.uniform(-15, 15)
    if rng.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.1))
    img = img + rng.normal(0, rng.uniform(1, 5), img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def _vary_symbols(crops: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each cell's drawing turned, scaled and moved a little, as the same hand draws it next time: one
    example of a symbol, only jittered as a whole board, taught the head that one drawing and not the
    player's way of drawing it."""
    side = crops.shape[1]
    out = np.empty_like(crops)
    for i, crop in enumerate(crops):
        turn = cv2.getRotationMatrix2D((side / 2, side / 2), float(rng.normal(0, 7)), float(rng.uniform(0.88, 1.1)))
        turn[:, 2] += rng.uniform(-2, 2, 2)
        out[i] = cv2.warpAffine(crop, turn, (side, side), flags=cv2.INTER_LINEAR, borderValue=0.0)
    return out


def teach_from_rectified(boards: Sequence[np.ndarray], data_dir: str | Path, language: str = "en", *,
                         seed: int = 0, base_model: Path = DEFAULT_MODEL_PATH) -> dict[str, Any]:
    """Adapt the reader to the hand on these rectified teaching boards; writes ``data_dir/teach.npz``."""
    check_language(language)
    if not boards:
        raise UserError("teach needs at least one picture of the teaching board")
    rng = np.random.default_rng(seed)
    city = teaching_city()
    towers = {ALL_CELLS.index(t) for t in LAYOUT.towers}
    spaces = [i for i in range(SIZE * SIZE) if i not in towers]
    labels = np.array([GLYPH_CLASSES.index(glyph_for_char(city[i // SIZE][i % SIZE], language)) for i in spaces])
    base = CellModel.load(base_model)
    base_reader = CellReader(language, model_path=base_model)
    taught_idx = [ALL_CELLS.index(c) for c in TEACH_LAYOUT]
    before_wrong = set()
    feats, ys = [], []
    for rectified in boards:
        read, _, _ = base_reader.read(rectified)
        before_wrong |= {ALL_CELLS[i] for i in taught_idx if read[i // SIZE][i % SIZE] != city[i // SIZE][i % SIZE]}
        for k in range(AUGMENTATIONS + 1):
            view = rectified if k == 0 else _augment(rectified, rng)
            crops = cell_crops(view)[spaces]
            feats.append(base_reader.crop_features(crops if k == 0 else _vary_symbols(crops, rng)))
            ys.append(labels)
    x, y = np.vstack(feats), np.concatenate(ys)
    adapted = base.fine_tune(x, y, epochs=8, lr=2e-3, seed=seed)
    out_dir = Path(data_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out_dir / TEACH_FILE, **adapted.arrays(with_replay=False),
                        base_model=np.array(model_fingerprint(base_model)))
    taught_reader = CellReader(language, out_dir)
    after_wrong = set()
    for rectified in boards:
        read, _, _ = taught_reader.read(rectified)
        after_wrong |= {ALL_CELLS[i] for i in taught_idx if read[i // SIZE][i % SIZE] != city[i // SIZE][i % SIZE]}
    return {
        "boards": len(boards),
        "language": language,
        "taught_cells": len(TEACH_LAYOUT),
        "misread_before": sorted(before_wrong),
        "misread_after": sorted(after_wrong),
        "saved": str(out_dir / TEACH_FILE),
    }


def teach_from_images(paths: Sequence[str | Path], data_dir: str | Path, language: str = "en") -> dict[str, Any]:
    """Teach mode from photos of the teaching board (``TEACH_LAYOUT``); summary as a JSON-able dict.

    Raises ``UserError`` naming the file for an unreadable image or one with no board in it.
    """
    boards = []
    for path in paths:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise UserError(f"{path}: not a readable image")
        rectified = _locate(image)
        if rectified is None:
            raise UserError(f"{path}: no city board found (markers or board outline)")
        boards.append(rectified)
    summary = teach_from_rectified(boards, data_dir, language)
    summary["images"] = [str(p) for p in paths]
    return summary
