"""A board photographed alone, without markers: its printed grid fixes it; no board where there is none."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.board import find_single_board, locate
from vision.board.dataset import BoardPhoto, photograph, rectified_error
from vision.board.evaluate import cropped_to_board
from vision.synth.art import reference_art_dir
from vision.synth.board import render_board

# Without the board's scan the generator draws an evenly printed look-alike.
HAVE_SCAN = (reference_art_dir() / "city-board.png").is_file()


def _photo(city: list[str], seed: int, *, tilt: float = 20.0, use_art: bool = True, **kwargs) -> BoardPhoto:
    rng = np.random.default_rng(seed)
    board = render_board(city, rng, cell_px=64, use_art=use_art)
    return photograph(board.image, board.alpha, rng, tilt_deg=tilt, **kwargs)


def _corners(board_to_frame: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(locate._BOARD_SQUARE[None], board_to_frame)[0]


def _best_outline_error(photo: BoardPhoto) -> float:
    """The best outline of the rim alone, any way round: its largest corner error in cells."""
    scale = 800 / max(photo.frame.shape[:2])
    small = cv2.resize(photo.frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    side = np.linalg.norm(photo.corners[1] - photo.corners[0]) / 7
    return min(float(np.max(np.linalg.norm(np.roll(quad / scale, -turn, axis=0) - photo.corners, axis=1))) / side
               for quad in locate._outline_candidates(small) for turn in range(4))


@pytest.mark.skipif(not HAVE_SCAN, reason="the photo was chosen on the board's scan")
def test_the_printed_grid_puts_the_corners_where_the_outline_cannot(busy_city):
    """The rim's best outline is still ~0.3 cell off here (a side on the table's grain); the crossings of
    the printed grid bring every corner within 0.05 cell."""
    photo = _photo(busy_city, 31)
    assert _best_outline_error(photo) > 0.2
    board = find_single_board(photo.frame)
    assert board is not None and board.seat == 0 and board.markers == 0
    assert rectified_error(board.corners, photo.corners) < 0.05


def test_the_grid_fit_pulls_a_rough_guess_onto_the_board(busy_city):
    photo = _photo(busy_city, 12, tilt=25)
    gray = cv2.cvtColor(photo.frame, cv2.COLOR_BGR2GRAY)
    cell = np.linalg.norm(photo.corners[1] - photo.corners[0]) / 7
    # Each corner about a quarter of a cell out, as a rim outline on table grain can be.
    off = np.array([[0.2, -0.15], [-0.15, 0.2], [0.2, 0.15], [-0.2, -0.2]]) * cell
    rough = locate._homography(locate._BOARD_SQUARE, photo.corners + off)
    assert rectified_error(_corners(rough), photo.corners) > 0.25
    crossings = locate.PRINTED_CROSSINGS if HAVE_SCAN else locate.EVEN_CROSSINGS
    fit = locate._fit_printed_grid(gray, rough, crossings, 0.45, 32)
    assert fit is not None
    fit = locate._fit_printed_grid(gray, fit.board_to_frame, crossings, 0.15, 64)
    assert fit is not None and fit.on_lattice >= 30
    assert rectified_error(_corners(fit.board_to_frame), photo.corners) < 0.05


def test_an_evenly_printed_board_is_located_too(busy_city):
    """The look-alike's grid is at exact k/7: fitted with the real board's print it would be ~0.3 cell off."""
    photo = _photo(busy_city, 4, use_art=False)
    board = find_single_board(photo.frame)
    assert board is not None and rectified_error(board.corners, photo.corners) < 0.1


def test_a_large_or_grey_photo(busy_city):
    photo = _photo(busy_city, 3, frame_size=(2400, 1800))
    for frame in (photo.frame, cv2.cvtColor(photo.frame, cv2.COLOR_BGR2GRAY)):
        board = find_single_board(frame)
        assert board is not None and rectified_error(board.corners, photo.corners) < 0.1
        assert board.rectified.shape == (7 * 64, 7 * 64, 3)


@pytest.mark.parametrize("sheet", ["bare table", "blank card", "squared paper"])
def test_no_board_where_there_is_none(sheet):
    """Squared paper at the board's own pitch has a perfect 7 x 7 grid: only the board's print (crates,
    A1's icon, the tan rim) tells them apart."""
    rng = np.random.default_rng(5)
    card = np.full((448, 448, 3), 235, np.uint8)
    alpha = np.full((448, 448), 0 if sheet == "bare table" else 255, np.uint8)
    if sheet == "squared paper":
        for k in range(8):
            at = min(64 * k, 447)
            cv2.line(card, (at, 0), (at, 447), (80, 80, 80), 2)
            cv2.line(card, (0, at), (447, at), (80, 80, 80), 2)
    photo = photograph(card, alpha, rng, tilt_deg=15)
    assert find_single_board(photo.frame) is None
    assert find_single_board(cv2.cvtColor(photo.frame, cv2.COLOR_BGR2GRAY)) is None


@pytest.mark.parametrize(("seed", "rotation"), [(3, 2.0), (8, 91.0), (21, 178.0), (5, 268.0)])
def test_a_board_that_fills_the_picture(busy_city, seed, rotation):
    """A board cut out of its photo, about square to the picture's edges (a scan, a photo cropped to the
    board): with no table around it no outline is segmented, and the picture's own edges are the outline the
    printed grid is fitted from."""
    picture, corners = cropped_to_board(_photo(busy_city, seed, tilt=8, rotation_deg=rotation), inside=0.02)
    board = find_single_board(picture)
    assert board is not None and rectified_error(board.corners, corners) < 0.1


@pytest.mark.skipif(not HAVE_SCAN, reason="the board's scan itself is the picture")
def test_the_boards_scan_reads_as_an_empty_city():
    from vision.cells import CellReader

    scan = cv2.imread(str(reference_art_dir() / "city-board.png"))
    board = find_single_board(scan)
    assert board is not None
    city, _, _ = CellReader("en").read(board.rectified)
    assert city == ["#.....#", ".GG....", ".G.....", ".G.....", ".......", ".......", "#.....#"]
