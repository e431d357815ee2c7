"""Something lying on a board (a pen put down, a ruler): the cells it covers, from what changed since the board's
last read.

A pen left on a board is still, so the stability filter commits whatever the cells under it read as; before this
the pipeline read them (``bench_mishaps``: a reading with the pen committed on 24 of 30 tables). One picture of a
board does not tell a pen from drawings well: straight lines of the printed grid and of the drawings pair up as its
edges (tried at stop 67, hardware.md). What changed since the board was last read does: a player's new drawings
change cells, each symbol inside its own cell with the grid's paper between them, where a pen lying down changes
one long straight band of the board, as wide all along, across the grid lines. So the board's thumbnail
(``vision.board.thumbnail``) as it was last read, in the pipeline's cache, against the thumbnail now: a connected
change at least ``MIN_LENGTH_CELLS`` long, at most ``MAX_WIDTH_CELLS`` wide, filling most of its box (``MIN_FILL``)
and as wide along nearly all of its length (``MIN_EVEN``) is a thing lying there. The cells it covers, and the cells within
a crop's reach of it, are not read while it lies there: the board reports them covered (``BoardReading.covered``),
the tracker takes them as the game has them and asks the players to take it off. A board seen for the first time
with a pen on it has no earlier view, and is read as before.

A pen along an outer row or column, inside it, is missed (``_along_one_row``): a row of walls looks the same. So
is a pen over a board's corner sticker, at times: the board is then placed from its other stickers, a pixel or so
off, and every drawing's edges change with the pen's band (the one pen of 30 missed in ``bench_mishaps``).

Chosen on pens at dev seed 7000 (40 tables, 120 boards: every pen found, no false one, every drawable cell under
a pen covered) and on moves of bot games at dev seeds 7100 and 7200, a family at a time (363 moves, none taken for a
pen; the board before the move is the board after it with the move's ink painted out, so that the light is the
same: ``bench_mishaps``); measured on other seeds in ``bench_mishaps``.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.layout import SIZE
from vision.board.thumbnail import THUMB_CHANGE, cells_within_reach

MIN_LENGTH_CELLS = 3.0  # a pen is 115-145 mm, 4-5 cells of 28 mm (4.2-6.3 with its shadow, dev seed 7000)
MAX_WIDTH_CELLS = 1.5  # a marker and its shadow: 0.6-1.3 cells
MIN_FILL = 0.55  # of the band's box: a pen is solid (0.63-1.0); loose drawings are mostly paper
MIN_EVEN = 0.7  # of the band's length where it is at least half its usual width (a pen 0.83-1.0)
# A band within this many degrees of an outer row or column and inside it is walls drawn side by side, never taken
# for a pen (``_along_one_row``): walls, the one symbol drawn solid, lie on the outer spaces only, and a row of them
# drawn in one move is as long, solid and even as a pen (the dev moves: 5.1 cells, 0.56-0.64 filled, 0.81-0.9 even;
# four walls drawn down a board's edge, 3 of 60 boards taken for a pen before this rule, 0 after).
ALONG_GRID_DEGREES = 12.0


def covered_cells(before: np.ndarray, now: np.ndarray) -> list[int]:
    """The drawable cells (indices row by row) that something lying on the board covers in ``now`` and did not in
    ``before`` (board thumbnails, grey, 7 cells square), or [] when nothing lies there. Thumbnails that do not
    compare (other sizes) give []."""
    if before.shape != now.shape or before.ndim != 2 or before.shape[0] % SIZE:
        return []
    cell = before.shape[0] / SIZE
    changed = (cv2.absdiff(before, now) > THUMB_CHANGE).astype(np.uint8)
    changed = cv2.morphologyEx(changed, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
    band = np.zeros_like(changed)
    for label in range(1, count):
        area = int(stats[label, cv2.CC_STAT_AREA])
        if area < MIN_LENGTH_CELLS * cell * 2:  # (too small to be a band that long: skip the work)
            continue
        mask = labels == label
        if _lies_there(mask, area, cell):
            band |= mask.astype(np.uint8)
    if not band.any():
        return []
    return cells_within_reach(band)


def _lies_there(mask: np.ndarray, area: int, cell: float) -> bool:
    """Whether one connected change (``mask``, ``area`` pixels) is a long, straight, solid band as wide all along,
    and not along an outer row or column (``_along_one_row``)."""
    ys, xs = np.nonzero(mask)
    (cx, cy), (w, h), angle = cv2.minAreaRect(np.stack([xs, ys], axis=1).astype(np.float32))
    length, width = max(w, h), max(min(w, h), 1.0)
    if length < MIN_LENGTH_CELLS * cell or width > MAX_WIDTH_CELLS * cell or area < MIN_FILL * length * width:
        return False
    direction = (angle if w >= h else angle + 90.0) % 180.0
    if _along_one_row(xs, ys, direction, cell):
        return False
    theta = np.radians(direction)
    along = np.floor((xs - cx) * np.cos(theta) + (ys - cy) * np.sin(theta)).astype(np.int64)
    across = np.bincount(along - along.min())  # the band's width, pixel by pixel along it
    usual = float(np.median(across[across > 0]))
    return float(np.mean(across >= 0.5 * usual)) >= MIN_EVEN


def _along_one_row(xs: np.ndarray, ys: np.ndarray, direction: float, cell: float) -> bool:
    """Whether a band running ``direction`` (degrees, 0 along a row) lies along the grid and inside one outer row or
    column of cells, as walls drawn side by side do (four walls down a board's edge, each in its cell, the gaps
    between them a pixel of the thumbnail)."""
    off_axis = min(direction % 90.0, 90.0 - direction % 90.0)
    if off_axis > ALONG_GRID_DEGREES:
        return False
    across = ys if min(direction, 180.0 - direction) <= ALONG_GRID_DEGREES else xs
    low, high = np.percentile(across, (5, 95))
    row = int(low // cell)
    # Walls, the one symbol drawn solid, go on the outer spaces only: a band along an inner row or column is no
    # row of walls (a move's other drawings side by side are outlines, and part at the grid: ``MIN_EVEN``).
    return row == int(high // cell) and row in (0, SIZE - 1)
