"""Finding city boards in a frame and rectifying them to a fixed top-down square.

With the kit's markers (table-kit.md): ids 4s..4s+3 sit centred on towers A1, G1, G7, A7 of seat s,
each 70 % of a cell, upright. Every detected marker gives four known board points, so two markers
already fix the homography and three or four make it robust (a hand over one tower loses nothing).

Without markers (a phone photo of one board): outlines of the board's rim (convex quadrilaterals from
a few segmentations) only say roughly where it is. The board's own printed grid then fixes it: the 6 + 6
lines are found near where an outline puts them and the homography is re-estimated from their 36
crossings, whose places on the real board are measured constants (the print is up to 0.15 cell off an
even k/7 lattice). Its rotation is read from the board itself: the four printed starting crates B2, C2,
B3, B4 look identical (printed) and sit in an L next to tower A1, and tower A1 carries the only green
icon (the person bonus). A grid without that print (squared paper) or no grid at all gives no board.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

import cv2
import numpy as np

from companion.layout import KIT_SEATS, LAYOUT, SIZE, TOWER_MARKER_FRACTION, cell_index, seat_marker_ids
from vision import marker_plane
from vision.imaging import shrunk_for_warp
from vision.marker_plane import LocatedPlane, PlaneLayout
from vision.pirates.geometry import TRACK_LAYOUT

MARKER_FRACTION = TOWER_MARKER_FRACTION
TOWER_ORDER: tuple[str, ...] = LAYOUT.towers  # the order of a seat's marker ids (seat_marker_ids)
SEAT_COUNT = KIT_SEATS
RECT_CELL_PX = 64  # rectified board = 7 * 64 = 448 px square
MIN_MARKERS = 2  # each marker gives 4 points: two markers fix the homography
# A sticker is measured on its board only from most of the printed grid (of 36 crossings), and only where
# it lies within STICKER_REACH of the kit's place (cells, 5.6 mm: nearly three times the 2 mm a hand sticks it
# off by, each way; a grid found a line off would put it a whole cell off). 0.4 cell (11 mm) until stop 78: on
# the benchmark renderer's boards (their own print, their stickers within a millimetre and a few degrees of
# the kit's place) the grid fit put stickers 0.3-0.4 cell off, the homography then skewed each board it was
# taken for, and the spaces beside the G1 tower (E1, F1) carried a fifth of all the misreads. Its spent seeds
# 1 and 6, misread of 10,004 cells (right cells doubted): 0.4 396 (36 %), 0.25 287, 0.2 290 (29 %), 0.15 279
# (28 %), none measured 286. Not 0.15: the generator's stickers stuck 2 mm off (bench_frame) then kept the
# kit's place more often, boards' corners p90 1.2 -> 4.8 px (0.2: 1.35 px; cells misread 0.034 % at 0.4 and
# 0.15, 0.052 % at 0.2: a cell of 5,800, 40 tables). It is placed where it was measured only when its centre
# lies more than STICKER_SLACK off (1.1 mm): the grid measures a sticker's place to 0.016 cell (median;
# 0.034 at most over 48 stickers stuck exactly), where the markers alone put a board's corners within
# 0.26 px at 75 cm. A board whose grid does not show is measured again at most STICKER_TRIES times.
MIN_GRID_FOR_STICKERS = 24
STICKER_REACH = 0.2
STICKER_SLACK = 0.04
STICKER_TRIES = 5
_TRACK = -1  # the pirate track's key in StickerPlaces.tries


@dataclass(frozen=True)
class LocatedBoard:
    """A board found in a frame.

    ``corners``: the board's outer corners in the frame, A1's first then clockwise as the owner sees
    it (A1, G1, G7, A7). ``homography`` maps frame pixels to ``rectified`` pixels. ``rectified`` is
    the top-down board, 7 * ``cell_px`` square, A1 top-left. ``markers`` counts markers used (0 = grid).
    """

    seat: int
    corners: np.ndarray
    homography: np.ndarray
    rectified: np.ndarray
    cell_px: int = RECT_CELL_PX
    markers: int = 0


# A cell is out of view when the frame's edge cuts more than this much (a fraction of a cell) off any side of it. A
# board pushed past the frame's edge is still found by the markers left in view, and the warp fills what the camera
# does not see with the frame's edge pixels stretched out: read, those streaks were a church 1 or an empty space (12
# tables cut to 4:3, 45 cells of 5 boards). A sliver cut off is still read (a board photographed to its very edge, a
# drawing that keeps to its cell).
OUT_OF_VIEW_CUT = 0.1


def cells_out_of_view(board: LocatedBoard, frame_shape: tuple[int, ...]) -> list[int]:
    """The cells (indices row by row) of ``board`` that the frame of ``frame_shape`` does not show: more than
    ``OUT_OF_VIEW_CUT`` of the cell lies beyond the frame's edge on some side (or behind the camera)."""
    inside = marker_plane.in_frame(_cell_squares_in_frame(board), frame_shape)
    return [int(i) for i in np.flatnonzero(~inside.reshape(SIZE * SIZE, 4).all(axis=1))]


def cells_under(board: LocatedBoard, other: LocatedBoard) -> list[int]:
    """The cells (indices row by row) of ``board`` that ``other`` board overlaps in the frame (more than
    ``OUT_OF_VIEW_CUT`` of the cell under its outline): one board pushed onto another, where the camera sees only the
    top one and cannot tell which it is (both boards' cells there are taken as not seen)."""
    points = _cell_squares_in_frame(board)
    xy = points[:, :2] / points[:, 2:]
    outline = np.asarray(other.corners, np.float64).reshape(4, 2)
    edges = np.roll(outline, -1, axis=0) - outline
    # Inside a convex outline: on the same side of each of its four edges.
    sides = edges[None, :, 0] * (xy[:, None, 1] - outline[None, :, 1]) - edges[None, :, 1] * (xy[:, None, 0] - outline[None, :, 0])
    inside = (sides > 0).all(axis=1) | (sides < 0).all(axis=1)
    return [int(i) for i in np.flatnonzero(inside.reshape(SIZE * SIZE, 4).any(axis=1))]


def _cell_squares_in_frame(board: LocatedBoard) -> np.ndarray:
    """(49 * 4, 3): the corners of every cell's square less ``OUT_OF_VIEW_CUT`` a side (``_CELL_SQUARES``), as
    homogeneous points in the frame's pixels."""
    cells_to_frame = np.linalg.inv(board.homography) @ np.diag([board.cell_px, board.cell_px, 1.0])
    return _CELL_SQUARES @ cells_to_frame.T


def _cell_squares(cut: float) -> np.ndarray:
    """(49 * 4, 3): each cell's square (in cells, row by row; its corners clockwise) less ``cut`` on every side, as
    homogeneous points."""
    corners = []
    for i in range(SIZE * SIZE):
        row, col = divmod(i, SIZE)
        for dx, dy in ((cut, cut), (1 - cut, cut), (1 - cut, 1 - cut), (cut, 1 - cut)):
            corners.append((col + dx, row + dy))
    return np.column_stack([np.array(corners, np.float64), np.ones(len(corners))])


_CELL_SQUARES = _cell_squares(OUT_OF_VIEW_CUT)


def _marker_board_corners(tower_index: int) -> np.ndarray:
    """The 4 corners (TL, TR, BR, BL) of a tower's marker, in cell units on the board."""
    col, row = cell_index(TOWER_ORDER[tower_index])
    half = MARKER_FRACTION / 2
    cx, cy = col + 0.5, row + 0.5
    return np.array([[cx - half, cy - half], [cx + half, cy - half], [cx + half, cy + half],
                     [cx - half, cy + half]], np.float64)


def _board_layout(seat: int) -> PlaneLayout:
    """Where seat ``seat``'s markers lie on its board, in cell units (a 7 x 7 plane, A1 top-left)."""
    ids = seat_marker_ids(seat)
    origins = {ids[tower]: (float(c[0, 0]), float(c[0, 1])) for tower, c in
               zip(TOWER_ORDER, (_marker_board_corners(k) for k in range(len(TOWER_ORDER))), strict=True)}
    return PlaneLayout(width_mm=SIZE, height_mm=SIZE, marker_side_mm=MARKER_FRACTION, marker_origins=origins)


BOARD_LAYOUTS: tuple[PlaneLayout, ...] = tuple(_board_layout(seat) for seat in range(SEAT_COUNT))


def doubled_seats(doubled: set[int]) -> list[int]:
    """The seats whose stickers are on two boards at once: two or more of a seat's ids each seen at two places
    (``marker_plane.doubled_ids``). Read, such a board was put together from both boards' stickers or was one of
    the two, which the seat cannot tell (``bench_mishaps.py``: 30 generated tables, a board reported for the seat at
    every one, 13 of them neither of the two). One id seen twice is a drawing that decodes as a sticker, which
    ``marker_plane`` settles."""
    return sorted(seat for seat, layout in enumerate(BOARD_LAYOUTS) if len(doubled & layout.marker_origins.keys()) >= 2)


def detect_markers(frame: np.ndarray) -> dict[int, np.ndarray]:
    """Marker id -> 4 corners (TL, TR, BR, BL of the printed marker) in frame pixels, float32 (4, 2).

    The kit's one detector (``vision.marker_plane``), with a second look where a board shows only some
    of its markers.
    """
    return marker_plane.detect_markers(frame, BOARD_LAYOUTS)


def _rectify(frame: np.ndarray, board_to_frame: np.ndarray, cell_px: int) -> tuple[np.ndarray, np.ndarray]:
    scale = np.diag([cell_px, cell_px, 1.0])
    frame_to_rect = scale @ np.linalg.inv(board_to_frame)
    frame_to_rect /= frame_to_rect[2, 2]
    side = SIZE * cell_px
    source, source_to_rect = _board_at_rectified_scale(frame, board_to_frame, cell_px)
    if source_to_rect is None:
        source, source_to_rect = frame, frame_to_rect
    rectified = cv2.warpPerspective(source, source_to_rect, (side, side), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE)
    return rectified, frame_to_rect


def _board_at_rectified_scale(frame: np.ndarray, board_to_frame: np.ndarray,
                              cell_px: int) -> tuple[np.ndarray, np.ndarray | None]:
    """The board's part of the frame averaged down to about the rectified scale (``shrunk_for_warp``), and the
    homography from it to the rectified board; (frame, None) when the board is not larger in the frame than
    rectified (the camera's usual 24-46 px a cell).

    ``warpPerspective`` samples one point a pixel: shrinking a phone's photo (150 px a cell) to 64 px a cell
    that way would break a thin pen stroke into dashes, or drop it."""
    corners = _board_corners(board_to_frame)
    height, width = frame.shape[:2]
    margin = float(np.ptp(corners, axis=0).max()) * 0.05
    x0, y0 = np.maximum(np.floor(corners.min(axis=0) - margin), 0).astype(int)
    x1, y1 = np.minimum(np.ceil(corners.max(axis=0) + margin), [width, height]).astype(int)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return frame, None
    crop = frame[y0:y1, x0:x1]  # a view: nothing is copied unless it is shrunk
    crop_to_rect = (np.diag([cell_px, cell_px, 1.0]) @ np.linalg.inv(board_to_frame)
                    @ np.array([[1, 0, x0], [0, 1, y0], [0, 0, 1]], np.float64))
    small, small_to_rect = shrunk_for_warp(crop, crop_to_rect)
    if small is crop:
        return frame, None
    return small, small_to_rect / small_to_rect[2, 2]


def _board_corners(board_to_frame: np.ndarray) -> np.ndarray:
    unit = np.array([[[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]]], np.float64)
    return cv2.perspectiveTransform(unit, board_to_frame)[0]


def find_boards(
    frame: np.ndarray,
    markers: dict[int, np.ndarray] | None = None,
    *,
    cell_px: int = RECT_CELL_PX,
    stickers: Mapping[int, np.ndarray] | None = None,
) -> list[LocatedBoard]:
    """Every city board whose markers (at least two of ids 4s..4s+3) are in view, by seat.

    ``markers`` (id -> 4 corners) lets a caller that already ran the detector skip a second run.
    ``stickers``: where a marker really lies on its board (id -> its 4 corners in board cells,
    ``measure_stickers``) where that is known; the others are where the kit puts them.
    """
    if frame is None or frame.ndim not in (2, 3) or frame.size == 0:
        raise ValueError("find_boards needs an image")
    markers = detect_markers(frame) if markers is None else markers
    gray = frame if frame.ndim == 2 else None  # a colour frame is turned grey only if a board needs its grid
    boards: list[LocatedBoard] = []
    for seat in range(SEAT_COUNT):
        board_pts, frame_pts = [], []
        for k, marker_id in enumerate(seat_marker_ids(seat).values()):
            corners = markers.get(marker_id)
            if corners is not None:
                placed = None if stickers is None else stickers.get(marker_id)
                board_pts.append(_marker_board_corners(k) if placed is None else placed)
                frame_pts.append(np.asarray(corners, np.float64).reshape(4, 2))
        if len(board_pts) < MIN_MARKERS:
            continue
        board_to_frame, _ = cv2.findHomography(np.vstack(board_pts), np.vstack(frame_pts), 0)
        if board_to_frame is None:
            continue
        if len(board_pts) == 2:
            # Two markers on one side fix the far side poorly (at 22-28 px a cell, corners up to 0.6 cell
            # off, 0.43 for one board in ten): the printed grid, where it shows, puts it right.
            if gray is None:
                gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
            board_to_frame = _refined_by_print(gray, board_to_frame)
        rectified, frame_to_rect = _rectify(frame, board_to_frame, cell_px)
        boards.append(LocatedBoard(seat=seat, corners=_board_corners(board_to_frame).astype(np.float32),
                                   homography=frame_to_rect, rectified=rectified, cell_px=cell_px,
                                   markers=len(board_pts)))
    return boards


def measure_stickers(gray: np.ndarray, board: LocatedBoard, markers: Mapping[int, np.ndarray]) -> dict[int, np.ndarray] | None:
    """Where ``board``'s stickers really lie on it (marker id -> its 4 corners in board cells), measured
    against the board's printed grid; None when the grid does not show well enough to say (a hand over
    the board, a board drawn full).

    A person sticks the kit's stickers on by hand: a millimetre or two off the tower's centre and a degree
    or two turned, which the homography from the markers passes on to every cell (2 mm and 2 degrees each
    way: cells misread 0.076 -> 0.166 % on the generator's own hands, corners 0.27 -> 2.85 px off at 75 cm;
    measured, 0.072 % and 0.75 px: ``benchmarks/bench_frame.py``). The
    stickers stay where they were stuck, so a board is measured once and its markers then placed where
    they really are (``find_boards``'s ``stickers``).
    """
    board_to_frame = np.linalg.inv(board.homography) @ np.diag([board.cell_px, board.cell_px, 1.0])
    # Three or four markers put the grid within a tenth of a cell of where it is: a narrow look first (half
    # the time of a wide look and a narrow one after it), the wide one only when that misses it.
    fit = _fit_printed_grid(gray, board_to_frame, PRINTED_CROSSINGS, 0.15, 32)
    if fit is None or fit.on_lattice < MIN_GRID_FOR_STICKERS:
        fit = _printed_grid_widely(gray, board_to_frame)
    if fit is None or fit.on_lattice < MIN_GRID_FOR_STICKERS:
        return None
    frame_to_board = np.linalg.inv(fit.board_to_frame)
    placed: dict[int, np.ndarray] = {}
    for k, marker_id in enumerate(seat_marker_ids(board.seat).values()):
        corners = markers.get(marker_id)
        if corners is None:
            continue
        on_board = cv2.perspectiveTransform(np.asarray(corners, np.float64).reshape(1, 4, 2), frame_to_board)[0]
        # A sticker stuck turned a quarter or a half (its text not upright) shows its corners in another
        # order: compared with the kit's square every way round, and placed as it lies when turned.
        square = _marker_board_corners(k)
        turns = [np.roll(square, turn, axis=0) for turn in range(4)]
        turn = int(np.argmin([np.abs(on_board - t).max() for t in turns]))
        off = on_board - turns[turn]
        if np.abs(off).max() <= STICKER_REACH and (turn or np.hypot(*off.mean(axis=0)) > STICKER_SLACK):
            placed[marker_id] = on_board
    return placed


class StickerPlaces:
    """Where a table's stickers really lie on their boards and around the pirate track: each measured once
    (``measure_stickers``, ``vision.pirates.reader.measure_track_stickers``), the first time its board or
    the track is found with its print showing, then used by every ``locate`` and ``track``. One whose print
    stays hidden (a hand over it, a board drawn full) keeps the kit's places."""

    def __init__(self) -> None:
        self.placed: dict[int, np.ndarray] = {}  # marker id -> its 4 corners on its board (cells), off the kit's place
        # The track's markers off their places: id -> its top-left corner (mm on the track's plane).
        self.track_placed: dict[int, tuple[float, float]] = {}
        self.measured: set[int] = set()  # marker ids measured (placed, or found where the kit puts them)
        self.tries: dict[int, int] = {}  # seat (the track: -1) -> measurements that found too little of its print

    def clear(self) -> None:
        self.placed.clear()
        self.track_placed.clear()
        self.measured.clear()
        self.tries.clear()

    def locate(self, frame: np.ndarray, markers: dict[int, np.ndarray] | None = None, *,
               cell_px: int = RECT_CELL_PX) -> list[LocatedBoard]:
        """``find_boards`` with the stickers where they were measured, measuring those not yet measured."""
        markers = detect_markers(frame) if markers is None else markers
        boards = find_boards(frame, markers, cell_px=cell_px, stickers=self.placed)
        gray: np.ndarray | None = frame if frame.ndim == 2 else None
        for i, board in enumerate(boards):
            own = {m: markers[m] for m in range(4 * board.seat, 4 * board.seat + 4) if m in markers}
            if not self._due(set(own), board.seat):
                continue
            if gray is None:
                gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
            placed = measure_stickers(gray, board, own)
            if not self._took(placed, set(own), board.seat):
                continue
            if placed:
                self.placed.update(placed)
                boards[i] = find_boards(frame, own, cell_px=cell_px, stickers=self.placed)[0]
        return boards

    def track(self, gray: np.ndarray, markers: dict[int, np.ndarray]) -> LocatedPlane | None:
        """The pirate track's plane (``vision.pirates.reader.locate_track``) with its stickers where they
        were measured against its printed boxes (``measure_track_stickers``), measuring those not yet."""
        from vision.pirates.reader import locate_track, measure_track_stickers

        plane = locate_track(markers, self.track_placed)
        own = {m for m in markers if m in TRACK_LAYOUT.marker_origins}
        if plane is None or not self._due(own, _TRACK):
            return plane
        measured = measure_track_stickers(gray, plane, markers)
        if not self._took(measured, own, _TRACK) or not measured:
            return plane
        self.track_placed.update(measured)
        return locate_track(markers, self.track_placed)

    def _due(self, own: set[int], key: int) -> bool:
        """Whether the markers ``own`` of a board (``key``: its seat, the track's -1) want measuring: one of
        them not measured yet, and its print not missed STICKER_TRIES times."""
        return not own <= self.measured and self.tries.get(key, 0) < STICKER_TRIES

    def _took(self, measured: Mapping[int, Any] | None, own: set[int], key: int) -> bool:
        """Books a measurement of ``own`` (None: the print did not show, one try more); whether it took."""
        if measured is None:
            self.tries[key] = self.tries.get(key, 0) + 1
            return False
        self.measured |= own
        return True


def rectified_from_detail(detail: np.ndarray, board: LocatedBoard, frame_shape: tuple[int, ...]) -> np.ndarray | None:
    """``board`` (found in a frame of ``frame_shape``) rectified again, grey, from ``detail``: the same moment
    seen at a higher resolution (the camera's whole sensor, where the frame is its 1080p view). None when
    ``detail`` is not that frame scaled up (no larger, or another aspect ratio: another camera mode).

    The markers are found in the frame; only the board's pixels come from the detail. At the recommended
    75 cm the Camera Module 3's 4608 px sensor gives a cell 70 px instead of 1080p's 29; on hands the networks
    never saw, a few misreads fewer than from the frame averaged down from the same picture (4.53 -> 4.24 %,
    ``benchmarks/bench_hands.py --full-sensor``)."""
    frame_h, frame_w = frame_shape[:2]
    detail_h, detail_w = detail.shape[:2]
    sx, sy = detail_w / frame_w, detail_h / frame_h
    if sx <= 1.0 or abs(sx / sy - 1.0) > 0.01:
        return None
    cell = board.cell_px
    board_to_frame = np.linalg.inv(board.homography) @ np.diag([cell, cell, 1.0])
    # Pixel centres: frame pixel x covers detail pixels around (x + 0.5) * s - 0.5.
    frame_to_detail = np.array([[sx, 0.0, (sx - 1) / 2], [0.0, sy, (sy - 1) / 2], [0.0, 0.0, 1.0]])
    rectified = _rectify(detail, frame_to_detail @ board_to_frame, cell)[0]
    # Grey once rectified (a 12 MP picture whole would cost a hundred times as much), as the frame's boards
    # are: the cell reader reads grey ink.
    return rectified if rectified.ndim == 2 else cv2.cvtColor(np.ascontiguousarray(rectified[:, :, :3]),
                                                              cv2.COLOR_BGR2GRAY)


# --- A board without markers -------------------------------------------------------------------------

# Where the printed grid lines cross, in board cells: [i][j] = (x, y) where vertical line i (between
# columns i and i + 1, A = 0) meets horizontal line j. Measured on the board's scan with the line finder
# below (``python -m vision.board.evaluate --measure-print``): the print is neither at exact k/7 of the
# board nor square to its rim (up to 0.15 cell off), so an even lattice would put the corners that far out.
PRINTED_CROSSINGS = np.array([
    [[0.944, 1.095], [0.971, 2.070], [0.989, 3.037], [1.008, 3.995], [1.031, 4.954], [1.049, 5.943]],
    [[1.919, 1.103], [1.932, 2.069], [1.950, 3.039], [1.970, 3.984], [1.986, 4.950], [2.013, 5.948]],
    [[2.857, 1.103], [2.865, 2.067], [2.883, 3.035], [2.898, 3.984], [2.910, 4.947], [2.939, 5.943]],
    [[3.815, 1.101], [3.827, 2.065], [3.846, 3.026], [3.862, 3.984], [3.882, 4.952], [3.908, 5.952]],
    [[4.805, 1.092], [4.809, 2.065], [4.821, 3.026], [4.836, 3.983], [4.864, 4.962], [4.896, 5.968]],
    [[5.817, 1.088], [5.817, 2.056], [5.819, 3.039], [5.835, 3.992], [5.852, 4.976], [5.866, 5.961]],
])
# The same lattice printed evenly at k/7 (the synthetic look-alike board, or another print run); also the
# lattice that ranks outlines, before the board's way round is known.
EVEN_CROSSINGS = np.stack(np.meshgrid(np.arange(1.0, SIZE), np.arange(1.0, SIZE), indexing="ij"), axis=-1)
_BOARD_SQUARE = np.array([[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]], np.float64)
_OUTLINE_SIDE = 800  # px: outlines are looked for in a frame this size (the kernels below are tuned to it)
_WORK_SIDE = 1280  # px: larger frames are scaled down first; the grid needs no more than ~100 px a cell
_LINE_KERNEL = 0.08  # cells: printed lines are ~0.04 cell wide, marker strokes ~0.1 (too wide to count)
_CUE_CELL = 32  # px a cell where the print's cues are read (crates and icon need no more)
_CROSSING_TOLERANCE = 0.02  # cells: a crossing further than this from the fitted lattice is an outlier
_EVEN_PRINT_FACTOR = 1.25  # an even print is chosen only if its crossings sit this many times closer
# A found board is kept only with a real grid and this board's own print: bare tables, blank cards,
# scribbles and squared paper each fail at least one of these (measured on generated photos; the figures
# in brackets are the lowest seen on 1,000 generated photos of boards).
MIN_CROSSINGS = 16  # of 36 crossings on one homography within _CROSSING_TOLERANCE (boards: 19; no grid: 13)
MIN_TURN_MARGIN = 0.4  # the upright reading beats every other way round by this much (boards: 0.66)
MIN_RIM_SATURATION = 12.0  # the tan rim is this much more saturated than the white inside (boards: 17.5)


def _order_clockwise(quad: np.ndarray) -> np.ndarray:
    centre = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    quad = quad[np.argsort(angles)]  # clockwise in image coordinates (y down)
    start = int(np.argmin(quad.sum(axis=1)))  # top-left-most first
    return np.roll(quad, -start, axis=0)


def _refine_sides(contour: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Fit a line to each side's middle stretch and intersect: rounded board corners do not count."""
    pts = contour.reshape(-1, 2).astype(np.float64)
    lines = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        d = b - a
        length = np.hypot(*d)
        t = ((pts - a) @ d) / (length**2)
        dist = np.abs(d[0] * (pts[:, 1] - a[1]) - d[1] * (pts[:, 0] - a[0])) / length
        near = pts[(t > 0.12) & (t < 0.88) & (dist < 0.04 * length)]
        if len(near) < 5:
            return quad
        vx, vy, x0, y0 = cv2.fitLine(near.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0]), np.array([vx, vy])))
    out = []
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        m = np.array([d1, -d2]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return quad
        s = np.linalg.solve(m, p2 - p1)
        out.append(p1 + s[0] * d1)
    refined = np.array(out)
    if np.max(np.linalg.norm(refined - quad, axis=1)) > 0.1 * np.sqrt(cv2.contourArea(quad.astype(np.float32))):
        return quad
    return refined


def _largest_quad(polygon: np.ndarray) -> np.ndarray:
    """The 4 vertices of a convex polygon spanning the largest area (a board's corners, even rounded)."""
    n = len(polygon)
    if n > 40:
        polygon = polygon[np.linspace(0, n - 1, 40).astype(int)]
        n = 40
    x, y = polygon[:, 0], polygon[:, 1]
    # area[i, j, k]: twice the area of triangle (i, j, k). Each diagonal (i, k) makes its best
    # quadrilateral with the farthest vertex j on either side of it.
    area = np.abs((x[None, :, None] - x[:, None, None]) * (y[None, None, :] - y[:, None, None]) - (
        x[None, None, :] - x[:, None, None]) * (y[None, :, None] - y[:, None, None]))
    i, j, k = np.ogrid[:n, :n, :n]
    between = np.where((j > i) & (j < k), area, -1.0)
    outside = np.where((j > k) | (j < i), area, -1.0)
    total = between.max(axis=1) + outside.max(axis=1)
    first, last = np.ogrid[:n, :n]
    total = np.where((last >= first + 2) & ((first > 0) | (last < n - 1)), total, -np.inf)
    if not np.isfinite(total).any():
        return polygon[:4]
    a, c = np.unravel_index(int(np.argmax(total)), total.shape)
    return polygon[sorted([int(a), int(between[a, :, c].argmax()), int(c), int(outside[a, :, c].argmax())])]


def _outline_candidates(small_bgr: np.ndarray) -> list[np.ndarray]:
    """Convex quadrilaterals that may be the board's rim, from several segmentations of a small frame."""
    small = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2GRAY)
    blur = cv2.GaussianBlur(small, (5, 5), 0)
    area_total = small.shape[0] * small.shape[1]
    kernel = np.ones((5, 5), np.uint8)
    # 1. Unlike the table: colour distance from the frame's border (the table around the board), at
    # half size: it only has to tell the board's bulk from the table.
    half = cv2.resize(small_bgr, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(cv2.GaussianBlur(half, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    border = np.vstack([lab[:2].reshape(-1, 3), lab[-2:].reshape(-1, 3), lab[:, :2].reshape(-1, 3),
                        lab[:, -2:].reshape(-1, 3)])
    difference = lab - np.median(border, axis=0).astype(np.float32)
    distance = cv2.sqrt(cv2.transform(difference * difference, np.ones((1, 3), np.float32)))
    distance = cv2.resize(distance, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_LINEAR)
    distance = cv2.convertScaleAbs(distance, alpha=255.0 / max(float(distance.max()), 1.0))
    _, unlike_table = cv2.threshold(distance, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    unlike_table = cv2.morphologyEx(cv2.morphologyEx(unlike_table, cv2.MORPH_CLOSE, kernel), cv2.MORPH_OPEN, kernel)
    # 2. Edges; 3. brightness either way.
    edges = cv2.dilate(cv2.Canny(blur, 30, 90), np.ones((3, 3), np.uint8))
    _, otsu = cv2.threshold(blur, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # 4. Edges closed and filled, then opened: streaks of table grain that touch the rim fall away.
    closed = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    outer, _ = cv2.findContours(closed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(closed)
    cv2.drawContours(filled, outer, -1, 255, -1)
    filled = cv2.morphologyEx(filled, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (15, 15)))
    candidates: list[np.ndarray] = []
    for binary in (unlike_table, edges, otsu, 255 - otsu, filled):
        contours, _ = cv2.findContours(binary, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        for contour in contours:
            area = cv2.contourArea(contour)
            if area < 0.08 * area_total:
                continue
            pts = contour.reshape(-1, 2)
            on_edge = (pts[:, 0] <= 1) | (pts[:, 1] <= 1) | (pts[:, 0] >= small.shape[1] - 2) | (
                pts[:, 1] >= small.shape[0] - 2)
            if on_edge.mean() > 0.05:
                continue  # the table around the board, not the board
            hull = cv2.convexHull(contour)
            perimeter = cv2.arcLength(hull, True)
            approx = cv2.approxPolyDP(hull, 0.005 * perimeter, True).reshape(-1, 2).astype(np.float64)
            if len(approx) < 4:
                continue
            quad = _order_clockwise(_largest_quad(approx))
            quad_area = cv2.contourArea(quad.astype(np.float32))
            if quad_area > 0.97 * area_total or quad_area < 0.85 * cv2.contourArea(hull):
                continue  # the whole frame, or not a quadrilateral
            candidates.append(_refine_sides(contour, quad))
            candidates.append(quad)
    # The segmentations often agree: keep one of each outline (within a tenth of a cell).
    distinct: list[np.ndarray] = []
    for quad in candidates:
        tolerance = 0.1 * np.sqrt(cv2.contourArea(quad.astype(np.float32))) / SIZE
        if all(np.max(np.linalg.norm(quad - other, axis=1)) > tolerance for other in distinct):
            distinct.append(quad)
    return distinct


def _filling_outlines(shape: tuple[int, ...]) -> list[np.ndarray]:
    """Outlines of a board that fills the picture (a scan, a photo cropped to the board): the picture's own
    edges, and the centred square of its shorter side. The segmentations above see no table around such a
    board, so they offer nothing there; the printed grid still decides whether a board is there at all."""
    height, width = shape[:2]
    outlines = [np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float64)]
    side = min(width, height)
    if abs(width - height) > 0.05 * side:
        x0, y0 = (width - side) / 2, (height - side) / 2
        outlines.append(np.array([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]], np.float64))
    return outlines


def _homography(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    return cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32)).astype(np.float64)


def _turned(board_to_frame: np.ndarray, turn: int) -> np.ndarray:
    """The same homography with the board's corners renamed ``turn`` places clockwise (A1 elsewhere)."""
    turned = board_to_frame @ _homography(_BOARD_SQUARE, np.roll(_BOARD_SQUARE, -turn, axis=0))
    return turned / turned[2, 2]


@lru_cache(maxsize=16)
def _line_shifts(width: int, along: tuple[float, ...]) -> np.ndarray:
    """Column offsets (lines x rows) of the straight lines whose ends move by -width..width, every other
    pixel; ``along`` is each row's place between the two ends (0..1)."""
    steps = 2 * np.arange(-(width // 2), width // 2 + 1)
    top, bottom = (s.ravel() for s in np.meshgrid(steps, steps, indexing="ij"))
    t = np.array(along)
    return np.round(top[:, None] * (1 - t) + bottom[:, None] * t).astype(np.int32)


def _ridge_samples(response: np.ndarray, course: np.ndarray, rows: np.ndarray, half: int
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Sub-pixel column and height of the ridge nearest ``course`` (lines x rows) on each row."""
    side = response.shape[1]
    x0 = np.clip(np.round(course).astype(int), half + 1, side - half - 2)
    values = response[rows[None, :, None], x0[:, :, None] + np.arange(-half, half + 1)]
    i = np.clip(np.argmax(values, axis=2), 1, 2 * half - 1)
    a, b, c = (np.take_along_axis(values, (i + d)[:, :, None], axis=2)[:, :, 0] for d in (-1, 0, 1))
    curvature = a - 2 * b + c
    offset = np.where(curvature < 0, 0.5 * (a - c) / np.where(curvature < 0, curvature, -1.0), 0.0)
    return x0 - half + i + offset, b


def _local_lines(rows: np.ndarray, x: np.ndarray, weight: np.ndarray, centres: np.ndarray, reach: float,
                 tolerance: float) -> tuple[np.ndarray, np.ndarray]:
    """Robust straight fits x = a + b (row - centre) of each line within ``reach`` of each crossing.

    The printed lines wander a little, so each crossing gets its own short fit. ``x``, ``weight``:
    lines x rows; ``centres``: lines x crossings. Returns (a, b) per line and crossing, and whether
    enough of the line was seen there (a drawing or a glare can hide a stretch of it).
    """
    d = rows[None, None, :] - centres[:, :, None]
    near = (np.abs(d) < reach) & (weight[:, None, :] > 0)
    inlier = near
    x = x[:, None, :]
    for _ in range(3):
        w = weight[:, None, :] * inlier
        s0, s1, s2 = w.sum(axis=2), (w * d).sum(axis=2), (w * d * d).sum(axis=2)
        t0, t1 = (w * x).sum(axis=2), (w * d * x).sum(axis=2)
        det = s0 * s2 - s1 * s1
        solvable = det > 1e-9
        det = np.where(solvable, det, 1.0)
        a, b = (s2 * t0 - s1 * t1) / det, (s0 * t1 - s1 * t0) / det
        inlier = near & (np.abs(x - (a[:, :, None] + b[:, :, None] * d)) < tolerance)
    seen = solvable & (inlier.sum(axis=2) >= np.maximum(5, 0.25 * (np.abs(d) < reach).sum(axis=2)))
    return np.stack([a, b], axis=2), seen


class _Crossings(NamedTuple):
    board: np.ndarray  # (6, 6, 2): where the crossings were found, in the guessed board's cells
    seen: np.ndarray  # (6, 6): whether enough of both lines was seen around each crossing
    strength: float  # mean ridge height along the 12 lines / a bright ridge (~0.4 on a bare table)


class _GridFit(NamedTuple):
    board_to_frame: np.ndarray
    on_lattice: int  # crossings within _CROSSING_TOLERANCE of the fitted homography (of 36)
    residual: float  # median distance of the crossings from it, in cells


def _find_crossings(gray: np.ndarray, board_to_frame: np.ndarray, crossings: np.ndarray, window: float,
                    cell: int, *, strength_only: bool = False) -> _Crossings:
    """Find the printed grid's 36 crossings within ``window`` cells of where ``board_to_frame`` puts them.

    Each line is found in the board rectified at ``cell`` px a cell: a thin-line filter (a blackhat
    narrower than a marker stroke), the straight line of strongest response near its expected course
    (both ends free), then short robust fits around each crossing. ``strength_only`` stops after the
    straight lines (to rank outlines cheaply).
    """
    margin = 0.5
    to_rect = np.array([[cell, 0, margin * cell], [0, cell, margin * cell], [0, 0, 1.0]])
    frame_to_rect = to_rect @ np.linalg.inv(board_to_frame)
    side = int(round((SIZE + 2 * margin) * cell))
    rect = cv2.warpPerspective(gray, frame_to_rect, (side, side), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    expected = (crossings + margin) * cell
    width = max(2, int(round(window * cell)))
    rows = np.arange(int((0.15 + margin) * cell), int((SIZE - 0.15 + margin) * cell))
    along = (rows - rows[0]) / (rows[-1] - rows[0])
    sparse = slice(None, None, max(1, cell // 6))
    shifts = _line_shifts(width, tuple(np.round(along[sparse], 6)))
    steps = 2 * np.arange(-(width // 2), width // 2 + 1)
    nudge_top, nudge_bottom = (m.ravel() for m in np.meshgrid([-1, 0, 1], [-1, 0, 1], indexing="ij"))
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (max(3, int(_LINE_KERNEL * cell) | 1), 1))
    lines = np.arange(6)
    fitted, strengths = [], []
    for family in (0, 1):  # vertical lines (column as a function of row), then horizontal ones
        image = rect if family == 0 else np.ascontiguousarray(rect.T)
        response = cv2.morphologyEx(image, cv2.MORPH_BLACKHAT, kernel)
        ceiling = float(np.percentile(response[::3, ::3], 90)) + 1e-3
        response = np.minimum(response, ceiling)  # a bold marker stroke counts no more than the print
        points = expected if family == 0 else expected.transpose(1, 0, 2)[:, :, ::-1]
        along_line, across = points[:, :, 1], points[:, :, 0]
        centred = along_line - along_line.mean(axis=1, keepdims=True)
        slope = (centred * across).sum(axis=1) / (centred**2).sum(axis=1)
        top = across.mean(axis=1) + slope * (rows[0] - along_line.mean(axis=1))
        bottom = across.mean(axis=1) + slope * (rows[-1] - along_line.mean(axis=1))
        course = top[:, None] + (bottom - top)[:, None] * along[None, :]
        # The strongest straight line near each expected course: every other shift of its two ends,
        # then the eight neighbours of the best.
        sparse_rows = rows[sparse][None, None, :]
        cols = np.clip(np.round(course[:, sparse]).astype(np.int32)[:, None, :] + shifts[None], 0, side - 1)
        best = np.argmax(response[sparse_rows, cols].mean(axis=2), axis=1)
        tops = steps[best // len(steps)][:, None] + nudge_top[None, :]
        bottoms = steps[best % len(steps)][:, None] + nudge_bottom[None, :]
        u = along[sparse]
        cols = np.clip(np.round(course[:, None, sparse] + tops[:, :, None] * (1 - u) + bottoms[:, :, None] * u)
                       .astype(np.int32), 0, side - 1)
        score = response[sparse_rows, cols].mean(axis=2)
        best = np.argmax(score, axis=1)
        strengths.extend(score[lines, best] / ceiling)
        if strength_only:
            continue
        course = course + tops[lines, best][:, None] * (1 - along) + bottoms[lines, best][:, None] * along
        x, height = _ridge_samples(response, course, rows, max(2, cell // 20))
        weight = np.where(height > 0.3 * ceiling, height, 0.0)
        fitted.append(_local_lines(rows.astype(np.float64), x, weight, along_line, cell, max(1.0, 0.04 * cell)))
    strength = float(np.mean(strengths))
    if strength_only:
        return _Crossings(np.zeros((6, 6, 2)), np.zeros((6, 6), bool), strength)
    (vertical, v_seen), (horizontal, h_seen) = fitted
    v_centre, h_centre = expected[:, :, 1], expected[:, :, 0]  # crossing [i][j]: row on line i, column on j
    a, b = vertical[:, :, 0], vertical[:, :, 1]  # x = a + b (y - v_centre)
    c, d = horizontal[:, :, 0].T, horizontal[:, :, 1].T  # y = c + d (x - h_centre)
    # A stretch of line not seen at all (a hand over the board) fits as NaN: its crossings are not seen, and say so
    # without a warning (the no-change check's frames of hands printed one).
    with np.errstate(invalid="ignore", divide="ignore"):
        x = (a + b * (c - v_centre - d * h_centre)) / (1 - b * d)
        y = c + d * (x - h_centre)
    seen = v_seen & h_seen.T & np.isfinite(x) & np.isfinite(y)
    return _Crossings(np.stack([x, y], axis=2) / cell - margin, seen, strength)


def _fit_printed_grid(gray: np.ndarray, board_to_frame: np.ndarray, crossings: np.ndarray, window: float,
                      cell: int) -> _GridFit | None:
    """The homography re-estimated from the printed grid's crossings found near where ``board_to_frame``
    puts them (``_find_crossings``); None when too little of the grid was seen."""
    found = _find_crossings(gray, board_to_frame, crossings, window, cell)
    if found.seen.sum() < 12:
        return None
    src, dst = crossings[found.seen], found.board[found.seen]
    # Robust: a drawing over a line can pull a few crossings off (and a homography would bend to them).
    correction, on_lattice = cv2.findHomography(src, dst, cv2.RANSAC, _CROSSING_TOLERANCE, maxIters=500,
                                                confidence=0.995)
    if correction is None:
        return None
    residual = np.linalg.norm(cv2.perspectiveTransform(src[None], correction)[0] - dst, axis=1)
    fitted = board_to_frame @ correction
    return _GridFit(fitted / fitted[2, 2], int(on_lattice.sum()), float(np.median(residual)))


def _refined_by_print(gray: np.ndarray, board_to_frame: np.ndarray) -> np.ndarray:
    """``board_to_frame`` re-estimated from the printed grid near where it puts the grid; unchanged
    unless most of the grid was found on one homography (a hand or a pile of drawings can hide it).

    Only for a board with two markers: with three or four the markers alone are closer (0.025 cell
    median against 0.032 from the grid, whose crossings are 3.5 cells from the board's corners).
    """
    fit = _printed_grid_widely(gray, board_to_frame)
    if fit is None or fit.on_lattice < MIN_CROSSINGS:
        return board_to_frame
    return fit.board_to_frame


def _printed_grid_widely(gray: np.ndarray, board_to_frame: np.ndarray) -> _GridFit | None:
    """The printed grid looked for up to 0.4 cell from where ``board_to_frame`` puts it, then again
    narrowly where that found it (the coarse fit stands when the narrow window loses the grid)."""
    fit = _fit_printed_grid(gray, board_to_frame, PRINTED_CROSSINGS, 0.4, 32)
    if fit is None:
        return None
    return _fit_printed_grid(gray, fit.board_to_frame, PRINTED_CROSSINGS, 0.12, 32) or fit


def _print_cues(rectified: np.ndarray, cell_px: int) -> tuple[float, float]:
    """The board's own print, read as if A1 were top-left: how alike the four printed crates look (B2 C2
    B3 B4, the same drawing on every board), and how much more of tower A1 is green (the person icon)
    than of any other tower."""
    gray = cv2.cvtColor(rectified, cv2.COLOR_BGR2GRAY).astype(np.float32)
    crops = []
    m = cell_px // 8
    for cell in LAYOUT.printed_crates:
        col, row = cell_index(cell)
        crop = gray[row * cell_px + m:(row + 1) * cell_px - m, col * cell_px + m:(col + 1) * cell_px - m]
        # High-passed: uneven light across a cell correlates too, the crate's planks are what matter.
        crop = crop - cv2.GaussianBlur(crop, (0, 0), 0.1 * cell_px)
        crop = crop - crop.mean()
        crops.append(crop / (np.linalg.norm(crop) + 1e-6))
    sims = [float((crops[i] * crops[j]).sum()) for i in range(len(crops)) for j in range(i + 1, len(crops))]
    # Green in A1 beyond any other tower's: a green table showing in the corners says nothing.
    towers = []
    for col, row in ((0, 0), (SIZE - 1, 0), (SIZE - 1, SIZE - 1), (0, SIZE - 1)):
        hsv = cv2.cvtColor(rectified[row * cell_px:(row + 1) * cell_px, col * cell_px:(col + 1) * cell_px],
                           cv2.COLOR_BGR2HSV)
        towers.append(np.mean((hsv[:, :, 0] > 35) & (hsv[:, :, 0] < 85) & (hsv[:, :, 1] > 80) & (hsv[:, :, 2] > 50)))
    return float(np.mean(sims)), float(towers[0] - max(towers[1:]))


def _rim_saturation(rectified: np.ndarray, cell_px: int) -> float:
    """How much more coloured the board's tan rim is than its white inside (median saturations)."""
    saturation = cv2.cvtColor(rectified, cv2.COLOR_BGR2HSV)[:, :, 1]
    per_cell = np.median(saturation.reshape(SIZE, cell_px, SIZE, cell_px).transpose(0, 2, 1, 3)
                         .reshape(SIZE, SIZE, -1), axis=2)
    rim = np.ones((SIZE, SIZE), bool)
    rim[1:-1, 1:-1] = False
    rim[[0, 0, -1, -1], [0, -1, 0, -1]] = False  # the towers carry their own pictures
    return float(np.median(per_cell[rim]) - np.median(per_cell[1:-1, 1:-1]))


class _Evidence(NamedTuple):
    """What says a found grid is this board's: see MIN_CROSSINGS, MIN_TURN_MARGIN, MIN_RIM_SATURATION."""

    on_lattice: int
    turn_margin: float
    rim_saturation: float | None  # None for a grey frame


def find_single_board(frame: np.ndarray, *, cell_px: int = RECT_CELL_PX) -> LocatedBoard | None:
    """One board photographed alone, without markers: outline, printed grid, way round (seat 0).

    None when no board is in view: no outline whose printed grid shows, or a grid without this board's
    own print (crates, A1's icon, the tan rim).
    """
    # The board's rim as segmented against the table first; then the picture's own edges, for a board that
    # fills the picture (a scan, a photo cropped to the board), where no table shows to segment it from.
    for fills_picture in (False, True):
        found = _single_board(frame, cell_px, fills_picture=fills_picture)
        if found is not None and _is_this_board(found[1]):
            return found[0]
    return None  # a grid that is not this board's, or no grid at all


def _is_this_board(evidence: _Evidence) -> bool:
    """Whether the evidence (``_Evidence``) says the grid found is this board's."""
    return (evidence.on_lattice >= MIN_CROSSINGS and evidence.turn_margin >= MIN_TURN_MARGIN
            and (evidence.rim_saturation is None or evidence.rim_saturation >= MIN_RIM_SATURATION))


def _single_board(frame: np.ndarray, cell_px: int, *, fills_picture: bool = False
                  ) -> tuple[LocatedBoard, _Evidence] | None:
    """``find_single_board`` before its last check: the best reading and the evidence for it.
    ``fills_picture``: the board's outline is taken to be the picture's own edges (``_filling_outlines``)
    instead of segmented against the table around it."""
    if frame is None or frame.ndim not in (2, 3) or frame.size == 0:
        raise ValueError("find_single_board needs an image")
    colour = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR) if frame.ndim == 2 else frame
    scale = min(_WORK_SIDE / max(colour.shape[:2]), 1.0)
    work = cv2.resize(colour, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else colour
    gray = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
    if fills_picture:
        quads = _filling_outlines(work.shape)
    else:
        outline_scale = min(_OUTLINE_SIDE / max(work.shape[:2]), 1.0)
        small = cv2.resize(work, None, fx=outline_scale, fy=outline_scale, interpolation=cv2.INTER_AREA)
        quads = [quad / outline_scale for quad in _outline_candidates(small)]
    # 1. Outlines of the rim, each tried against the even lattice: the one whose grid shows best wins.
    outlines = [_homography(_BOARD_SQUARE, quad) for quad in quads]
    ranked = sorted(outlines, key=lambda guess: -_find_crossings(gray, guess, EVEN_CROSSINGS, 0.45, 32,
                                                                 strength_only=True).strength)
    # 2. The real print fitted each of the four ways round, an even print once (it looks the same every
    # way round); then the crates and A1's icon say which reading is upright.
    views: list[tuple[float, np.ndarray]] = []
    for guess in ranked[:2]:
        fits = [_fit_printed_grid(gray, _turned(guess, turn), PRINTED_CROSSINGS, 0.45, 32) for turn in range(4)]
        even = _fit_printed_grid(gray, guess, EVEN_CROSSINGS, 0.45, 32)
        turns = [fit.board_to_frame for fit in fits if fit is not None]
        if even is not None:
            turns += [_turned(even.board_to_frame, turn) for turn in range(4)]
        for board_to_work in turns:
            crates, green = _print_cues(_rectify(work, board_to_work, _CUE_CELL)[0], _CUE_CELL)
            views.append((crates + 2.0 * green, board_to_work))
        if views:
            break
    if not views:
        return None
    views.sort(key=lambda v: -v[0])
    upright = views[0][1]
    # A reading with A1 at another corner (the even print's views repeat the real one's).
    a1 = upright[:2, 2] / upright[2, 2]
    cell_size = np.sqrt(abs(np.linalg.det(upright[:2, :2]))) / abs(upright[2, 2])
    others = [score for score, h in views[1:] if np.linalg.norm(h[:2, 2] / h[2, 2] - a1) > 2 * cell_size]
    turn_margin = views[0][0] - max(others, default=0.0)
    # 3. Both prints again at full detail; the even one is kept only if its crossings sit clearly better.
    finals: list[_GridFit | None] = []
    for crossings in (PRINTED_CROSSINGS, EVEN_CROSSINGS):
        grid: _GridFit | None = _GridFit(upright, 0, np.inf)
        for window, cell in ((0.25, 32), (0.15, 64)):
            if grid is not None:
                grid = _fit_printed_grid(gray, grid.board_to_frame, crossings, window, cell)
        finals.append(grid)
    printed, even = finals
    grid = printed
    if printed is None or (even is not None and even.residual * _EVEN_PRINT_FACTOR < printed.residual):
        grid = even
    if grid is None:
        return None
    board_to_frame = np.diag([1 / scale, 1 / scale, 1.0]) @ grid.board_to_frame
    rectified, frame_to_rect = _rectify(colour, board_to_frame, cell_px)
    board = LocatedBoard(seat=0, corners=_board_corners(board_to_frame).astype(np.float32), homography=frame_to_rect,
                         rectified=rectified, cell_px=cell_px, markers=0)
    saturation = _rim_saturation(rectified, cell_px) if frame.ndim == 3 else None
    return board, _Evidence(grid.on_lattice, turn_margin, saturation)
