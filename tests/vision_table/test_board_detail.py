"""Boards read from the camera's full resolution (``board_detail``): the frame finds them, the detail is read."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.board import find_boards, rectified_from_detail
from vision.board.locate import RECT_CELL_PX
from vision.camera_health import WatchedSource
from vision.marker_plane import detect_markers
from vision.pipeline import KIT_LAYOUTS, TableReader
from vision.synth.table import render_table

SCALE = 2.4  # the Camera Module 3's 4608 px sensor over the 1920 px frame
D4 = (3, 3)  # (column, row) of the cell painted in the detail only


class RecordingCellReader:
    """Reads every board empty and keeps the rectified boards it was given, by call."""

    def __init__(self) -> None:
        self.seen: list[np.ndarray] = []

    def read(self, rectified: np.ndarray) -> tuple[list[str], list[list[float]], list[str]]:
        self.seen.append(rectified)
        return ["#.....#", *["......."] * 5, "#.....#"], [[1.0] * 7 for _ in range(7)], []


def _cell_darkness(rectified: np.ndarray, cell: tuple[int, int]) -> float:
    """How much darker the middle of ``cell`` is than the board's paper (0 paper, about 1 ink)."""
    gray = rectified if rectified.ndim == 2 else cv2.cvtColor(rectified, cv2.COLOR_BGR2GRAY)
    col, row = cell
    quarter = RECT_CELL_PX // 4
    middle = gray[row * RECT_CELL_PX + quarter:(row + 1) * RECT_CELL_PX - quarter,
                  col * RECT_CELL_PX + quarter:(col + 1) * RECT_CELL_PX - quarter]
    paper = float(np.percentile(gray, 80))
    return 1.0 - float(middle.mean()) / paper


@pytest.fixture(scope="module")
def table(table_spec) -> tuple[np.ndarray, np.ndarray]:
    """(a 1080p frame, the same moment at the sensor's resolution with a dark blot on seat 0's D4 that the
    frame does not show)."""
    frame, _ = render_table(table_spec, np.random.default_rng(5))
    detail = cv2.resize(frame, None, fx=SCALE, fy=SCALE, interpolation=cv2.INTER_LINEAR)
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    seat0 = next(b for b in find_boards(gray, detect_markers(gray, KIT_LAYOUTS)) if b.seat == 0)
    # The middle 60 % of D4, taken back from the rectified board to the frame, then to the detail.
    lo, hi = 0.2 * RECT_CELL_PX, 0.8 * RECT_CELL_PX
    square = np.array([[[D4[0] * RECT_CELL_PX + dx, D4[1] * RECT_CELL_PX + dy] for dx, dy in
                        ((lo, lo), (hi, lo), (hi, hi), (lo, hi))]], np.float64)
    in_frame = cv2.perspectiveTransform(square, np.linalg.inv(seat0.homography))[0]
    cv2.fillConvexPoly(detail, np.round(in_frame * SCALE).astype(np.int32), (20, 20, 20))
    return frame, detail


def test_an_upscaled_frame_rectifies_to_the_frames_own_board(table) -> None:
    """The detail's homography is the frame's scaled about pixel centres: a board rectified from the frame
    enlarged 2.4 times lies where the frame's own lies (one pixel off would double the difference)."""
    frame, _ = table
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    enlarged = cv2.resize(frame, None, fx=SCALE, fy=SCALE, interpolation=cv2.INTER_LINEAR)
    for board in find_boards(gray, detect_markers(gray, KIT_LAYOUTS)):
        sharper = rectified_from_detail(enlarged, board, gray.shape)
        assert sharper is not None and sharper.shape == board.rectified.shape and sharper.ndim == 2
        inner = (slice(20, -20), slice(20, -20))
        here = np.abs(sharper.astype(float) - board.rectified.astype(float))[inner].mean()
        shifted = np.roll(board.rectified.astype(float), 1, axis=1)
        off_by_one = np.abs(sharper.astype(float) - shifted)[inner].mean()
        assert here < 4.0 and off_by_one > 1.8 * here


def test_a_detail_of_another_shape_or_no_larger_is_not_used(table) -> None:
    frame, _ = table
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    board = find_boards(gray, detect_markers(gray, KIT_LAYOUTS))[0]
    assert rectified_from_detail(cv2.resize(frame, (3000, 3000)), board, gray.shape) is None  # not 16:9
    assert rectified_from_detail(frame, board, gray.shape) is None  # the frame itself: nothing sharper


def test_boards_are_read_from_the_detail_and_it_is_made_only_when_a_board_is_read(table) -> None:
    frame, detail = table
    cells = RecordingCellReader()
    reader = TableReader(cell_reader=cells)
    made: list[int] = []

    def make_detail() -> np.ndarray:
        made.append(1)
        return detail

    obs = reader.read(frame, detail=make_detail)
    assert len(made) == 1  # one copy for every board of the frame
    by_seat = {b.seat: b for b in obs.boards}
    assert _cell_darkness(by_seat[0].rectified, D4) > 0.5  # the blot only the detail has was read
    assert _cell_darkness(by_seat[1].rectified, D4) < 0.2
    assert len(cells.seen) == len(obs.boards)
    # The same scene again: the fast path reads nothing, and no 12 MP copy is made.
    reader.read(frame, detail=make_detail)
    assert len(made) == 1

    # Without a detail, the frame's own board (no blot) is what is read.
    plain = TableReader(cell_reader=RecordingCellReader()).read(frame)
    assert _cell_darkness({b.seat: b for b in plain.boards}[0].rectified, D4) < 0.2


def test_a_detail_that_is_not_the_frame_scaled_up_falls_back_to_the_frame(table) -> None:
    frame, _ = table
    square = np.full((2000, 2000, 3), 20, np.uint8)  # dark all over: read from it, every cell would be ink
    obs = TableReader(cell_reader=RecordingCellReader()).read(frame, detail=lambda: square)
    assert obs.boards and all(_cell_darkness(b.rectified, D4) < 0.2 for b in obs.boards)
    obs = TableReader(cell_reader=RecordingCellReader()).read(frame, detail=lambda: None)
    assert len(obs.boards) == 3


class DetailCamera:
    name = "fake"
    is_live = True

    def __init__(self, detail: np.ndarray | Exception) -> None:
        self._detail = detail

    def read(self) -> np.ndarray:
        return np.zeros((4, 4, 3), np.uint8)

    def detail(self) -> np.ndarray:
        if isinstance(self._detail, Exception):
            raise self._detail
        return self._detail

    def close(self) -> None:
        pass


def test_the_watched_camera_passes_its_detail_on_and_never_raises() -> None:
    picture = np.ones((8, 8, 3), np.uint8)
    with WatchedSource("fake", open_fn=lambda spec: DetailCamera(picture)) as source:
        assert source.read() is not None and source.detail() is picture
    with WatchedSource("fake", open_fn=lambda spec: DetailCamera(RuntimeError("gone"))) as source:
        assert source.detail() is None
