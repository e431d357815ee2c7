"""Cell crops and their feature vectors (NumPy + OpenCV only: this runs on the Pi).

Each of the 49 cells of a rectified board is cropped with a small margin, turned into an "ink" map
(how much darker than the paper around it, so board print shade and lighting drop out), resized to
40 x 40, and described by the ink pixels (24 x 24) plus a HOG of the ink map (5 px cells).
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.layout import SIZE
from vision.imaging import percentile_last_axis

CROP_PX = 40
PIXELS_PX = 24
MARGIN = 0.06  # extra context around the cell, fraction of a cell: tolerates small localisation error
HOG_CELL = 5
HOG_BINS = 9


def hog(crops: np.ndarray) -> np.ndarray:
    """Histogram of oriented gradients for a batch (n, 40, 40): 5 px cells, 9 unsigned bins,
    non-overlapping 2 x 2-cell blocks, L2-Hys normalised (OpenCV 5 dropped its HOGDescriptor from the main module)."""
    n, h, w = crops.shape
    gx = np.zeros_like(crops)
    gy = np.zeros_like(crops)
    gx[:, :, 1:-1] = crops[:, :, 2:] - crops[:, :, :-2]
    gy[:, 1:-1, :] = crops[:, 2:, :] - crops[:, :-2, :]
    magnitude = np.hypot(gx, gy)
    angle = np.mod(np.arctan2(gy, gx), np.pi) / np.pi * HOG_BINS
    low = np.floor(angle).astype(np.int64) % HOG_BINS
    frac = angle - np.floor(angle)
    cy, cx = h // HOG_CELL, w // HOG_CELL
    cell_id = (np.arange(h)[:, None] // HOG_CELL) * cx + (np.arange(w)[None, :] // HOG_CELL)
    base = (np.arange(n)[:, None, None] * (cy * cx) + cell_id[None]) * HOG_BINS
    size = n * cy * cx * HOG_BINS
    hist = np.bincount((base + low).ravel(), (magnitude * (1 - frac)).ravel(), minlength=size)
    hist += np.bincount((base + (low + 1) % HOG_BINS).ravel(), (magnitude * frac).ravel(), minlength=size)
    hist = hist.astype(np.float32)
    hist = hist.reshape(n, cy, cx, HOG_BINS)
    # Non-overlapping 2 x 2-cell blocks: 4 x 4 blocks x 36 = 576 values for a 40 px crop.
    blocks = hist.reshape(n, cy // 2, 2, cx // 2, 2, HOG_BINS).transpose(0, 1, 3, 2, 4, 5)
    blocks = blocks.reshape(n, cy // 2, cx // 2, 4 * HOG_BINS)
    blocks = blocks / (np.linalg.norm(blocks, axis=3, keepdims=True) + 1e-3)
    blocks = np.minimum(blocks, 0.2)
    blocks = blocks / (np.linalg.norm(blocks, axis=3, keepdims=True) + 1e-3)
    return blocks.reshape(n, -1)


def ink_map(gray_crop: np.ndarray) -> np.ndarray:
    """0 on paper, towards 1 on ink, relative to this crop's own paper brightness."""
    return ink_maps(gray_crop[None])[0]


PAPER_PERCENTILE = 80


def ink_maps(gray_crops: np.ndarray) -> np.ndarray:
    """``ink_map`` of a stack (n, h, w) at once: the paper level of each crop is its 80th percentile
    (linear interpolation, as ``np.percentile``), found with one ``np.partition`` over the batch."""
    # The paper level from the crops as given: 8 bits partition about twice as fast as their float copies, to the same
    # levels. Then each step in place (441 crops: 3.1 -> 1.6 ms, the same maps).
    paper = (percentile_last_axis(gray_crops.reshape(len(gray_crops), -1), PAPER_PERCENTILE) + 1.0).astype(np.float32)
    paper = paper[:, None, None]
    crops = gray_crops.astype(np.float32)
    np.subtract(paper, crops, out=crops)
    np.divide(crops, paper, out=crops)
    np.clip(crops, 0.0, 1.0, out=crops)
    crops *= 2.0
    return crops


def cell_crops(rectified: np.ndarray, shift: tuple[float, float] = (0.0, 0.0),
               cells: list[int] | None = None) -> np.ndarray:
    """Ink maps (n, CROP_PX, CROP_PX) of ``cells`` (indices row by row, A1, B1, ... G7; default all 49).

    ``shift`` moves every crop by (dx, dy) pixels: a second look at a doubtful cell.
    """
    cells = list(range(SIZE * SIZE)) if cells is None else cells
    return shifted_cell_crops(rectified, [(shift, index) for index in cells])


def shifted_cell_crops(rectified: np.ndarray, wanted: list[tuple[tuple[float, float], int]]) -> np.ndarray:
    """Ink maps (n, CROP_PX, CROP_PX) for (shift (dx, dy) in pixels, cell index) pairs, in one batch."""
    gray = rectified if rectified.ndim == 2 else cv2.cvtColor(rectified, cv2.COLOR_BGR2GRAY)
    side = gray.shape[0]
    cell = side / SIZE
    pad = int(np.ceil(MARGIN * cell)) + 1
    padded = cv2.copyMakeBorder(gray, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    extent = int(round(cell * (1 + 2 * MARGIN)))
    shifts = np.array([shift for shift, _ in wanted], np.float64).reshape(-1, 2)
    rows, cols = np.divmod(np.array([index for _, index in wanted], np.int64), SIZE)
    # Where each crop starts in the padded board (rounded half to even, as Python's round), kept inside it.
    xs = np.clip(np.round(cols * cell - MARGIN * cell + pad + shifts[:, 0]).astype(np.int64), 0, padded.shape[1] - extent)
    ys = np.clip(np.round(rows * cell - MARGIN * cell + pad + shifts[:, 1]).astype(np.int64), 0, padded.shape[0] - extent)
    crops = np.lib.stride_tricks.sliding_window_view(padded, (extent, extent))[ys, xs]  # (n, extent, extent), a copy
    # In the picture's own type (8 bits from a camera), which ``ink_maps`` finds the paper level in faster.
    if not len(crops):
        return ink_maps(np.empty((0, CROP_PX, CROP_PX), gray.dtype))
    # Resized as one column of crops: each crop's rows map onto its own output rows alone (the column is exactly
    # CROP_PX / extent as tall, and an area resize reads no row beyond a pixel's span), so every crop is what its own
    # resize gives (``test_shifted_crops_are_each_crops_own_resize``), in half the time.
    out = cv2.resize(crops.reshape(-1, extent), (CROP_PX, CROP_PX * len(crops)),
                     interpolation=cv2.INTER_AREA).reshape(-1, CROP_PX, CROP_PX)
    return ink_maps(out)


PRINT_BAND = 0.15  # of a cell: the printed lines lie within this of a cell's edge (PRINTED_CROSSINGS)


def print_contrast(rectified: np.ndarray) -> np.ndarray:
    """(49,) how much darker the printed grid lines along each cell's edges are than its paper, relative
    to the paper (5th percentile of the edge band against the cell's 80th): about 0.2-0.5 on a board in
    plain light, near 0 where glare washes the print out (and would wash a drawing out just as well)."""
    gray = rectified if rectified.ndim == 2 else cv2.cvtColor(rectified, cv2.COLOR_BGR2GRAY)
    # Halved first (2 x 2 averages): the figure moves by 5 % at most (correlation 0.994 over 60 boards of
    # generated tables), in a quarter of the time (0.4 ms a board, not 1.5).
    gray = cv2.resize(gray, (gray.shape[1] // 2, gray.shape[0] // 2), interpolation=cv2.INTER_AREA)
    cell = gray.shape[0] // SIZE
    cells = gray[:cell * SIZE, :cell * SIZE].reshape(SIZE, cell, SIZE, cell).transpose(0, 2, 1, 3)
    cells = cells.reshape(SIZE * SIZE, cell, cell)
    band = max(1, int(round(PRINT_BAND * cell)))
    edge = np.ones((cell, cell), bool)
    edge[band:-band, band:-band] = False
    paper = percentile_last_axis(cells.reshape(SIZE * SIZE, -1), PAPER_PERCENTILE) + 1.0
    line = percentile_last_axis(cells[:, edge], 5)
    return (paper - line) / paper


def crop_features(crops: np.ndarray) -> np.ndarray:
    """Feature vectors for ink maps (n, CROP_PX, CROP_PX)."""
    n = len(crops)
    small = np.stack([cv2.resize(c, (PIXELS_PX, PIXELS_PX), interpolation=cv2.INTER_AREA) for c in crops])
    gradients = hog(crops)
    stats = np.stack([crops.reshape(n, -1).mean(1), crops.reshape(n, -1).std(1),
                      (crops.reshape(n, -1) > 0.3).mean(1)], axis=1)
    return np.hstack([small.reshape(n, -1), gradients, stats]).astype(np.float32)


def board_features(rectified: np.ndarray) -> np.ndarray:
    """(49, n_features) for a rectified board."""
    return crop_features(cell_crops(rectified))
