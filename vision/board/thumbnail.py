"""A board's thumbnail: the rectified board in small, 12 px a cell, which the pipeline compares frame to frame to
tell which cells changed since they were read (``vision.pipeline``) and whether something lies on the board
(``vision.board.lying``)."""

from __future__ import annotations

import cv2
import numpy as np

from companion.layout import SIZE
from vision.cells.reader import DRAWABLE_INDEX

THUMB_SIDE = 84  # 12 px a cell: a new drawing changes dozens of pixels, sensor noise none
THUMB_CHANGE = 22  # grey levels: a thumbnail pixel that moved more changed
# Thumbnail pixels (5.3 of the rectified board's each) past a cell's edge that its reading still sees: the
# crop's margin (``features.MARGIN``, 4 px) and the second look's nudges (3 px).
CROP_REACH = 2


def board_thumb(rectified: np.ndarray) -> np.ndarray:
    """The thumbnail (grey, ``THUMB_SIDE`` square) of a rectified board."""
    gray = cv2.cvtColor(rectified, cv2.COLOR_BGR2GRAY) if rectified.ndim == 3 else rectified
    # Halved first: OpenCV averages whole 2x2 blocks several times faster than 448 -> 84 in one step.
    half = cv2.resize(gray, (gray.shape[1] // 2, gray.shape[0] // 2), interpolation=cv2.INTER_AREA)
    return cv2.resize(half, (THUMB_SIDE, THUMB_SIDE), interpolation=cv2.INTER_AREA)


def cells_within_reach(mask: np.ndarray) -> list[int]:
    """The drawable cells (indices row by row) whose reading sees any pixel of ``mask`` (a thumbnail's, uint8): one
    in the cell or within ``CROP_REACH`` of it."""
    reach = 2 * CROP_REACH + 1
    near = cv2.dilate(mask, np.ones((reach, reach), np.uint8))
    cell = mask.shape[0] // SIZE
    per_cell = near.reshape(SIZE, cell, SIZE, cell).max(axis=(1, 3)).ravel()
    return [i for i in DRAWABLE_INDEX if per_cell[i]]
