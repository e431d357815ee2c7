"""An outer cell torn between a wall, a crate, a house or an empty space is read mirrored along the board's edge too
(``reader.mirrored_along_the_edge``): a wall or a crate mirrored so is one still, a letter is not."""

from __future__ import annotations

import numpy as np
import pytest

from companion.layout import ALL_CELLS, SIZE
from vision.board.locate import RECT_CELL_PX
from vision.cells.labels import GLYPH_CLASSES
from vision.cells.reader import (
    MIRROR_LETTERS_BELOW,
    MIRROR_WEIGHT,
    SECOND_LOOK_SHIFTS,
    CellReader,
    in_board_context,
    mirror_cells,
    mirrored_along_the_edge,
    with_look,
)

WALL, CRATE, EMPTY = (GLYPH_CLASSES.index(g) for g in ("W", "G", "."))
LETTER_S = GLYPH_CLASSES.index("pS")
C1, A4, C4 = (ALL_CELLS.index(name) for name in ("C1", "A4", "C4"))


def _marked_crop() -> np.ndarray:
    """A crop with ink in its top left corner only."""
    crop = np.zeros((6, 6), np.float32)
    crop[0, 0] = 1.0
    return crop


def test_a_top_row_crop_is_mirrored_left_to_right_and_a_sides_top_to_bottom():
    top, side = mirrored_along_the_edge(np.stack([_marked_crop(), _marked_crop()]), [C1, A4])
    assert top[0, -1] == 1.0 and top.sum() == 1.0  # the board's edge (the crop's top) stays on top
    assert side[-1, 0] == 1.0 and side.sum() == 1.0  # the board's edge (the crop's left) stays on the left
    bottom_row, right_side = (ALL_CELLS.index(name) for name in ("D7", "G3"))
    bottom, right = mirrored_along_the_edge(np.stack([_marked_crop(), _marked_crop()]), [bottom_row, right_side])
    assert bottom[0, -1] == 1.0 and right[-1, 0] == 1.0


def test_only_outer_cells_read_without_a_letter_are_mirrored():
    torn = np.zeros(len(GLYPH_CLASSES))
    torn[[WALL, CRATE]] = 0.5
    lettered = torn * (1 - 2 * MIRROR_LETTERS_BELOW)
    lettered[LETTER_S] = 2 * MIRROR_LETTERS_BELOW  # a letter's share over the line: mirrored, it would be another
    faint = torn * (1 - MIRROR_LETTERS_BELOW / 2)
    faint[LETTER_S] = MIRROR_LETTERS_BELOW / 2
    readings = np.stack([torn, lettered, faint, torn])
    assert mirror_cells(readings, [C1, A4, ALL_CELLS.index("E7"), C4]) == [C1, ALL_CELLS.index("E7")]
    assert mirror_cells(readings[:0], []) == []


class _LeaningNetwork:
    """A cell network that reads a crop with more ink on its left half as 0.3 wall, 0.7 crate, and the other way
    round for more ink on the right; a crop it is asked about is kept. (Leaning to the crate: an outer cell leaning to the
    wall is sure of it once the board's context weighs walls up there, and is not looked at again.)"""

    def __init__(self) -> None:
        self.asked: list[np.ndarray] = []

    def probabilities(self, crops: np.ndarray, allowed: np.ndarray, prior_shift: np.ndarray) -> np.ndarray:
        self.asked.append(crops)
        half = crops.shape[2] // 2
        leans_left = crops[:, :, :half].sum(axis=(1, 2)) > crops[:, :, half:].sum(axis=(1, 2))
        out = np.zeros((len(crops), len(GLYPH_CLASSES)))
        out[:, WALL] = np.where(leans_left, 0.3, 0.7)
        out[:, CRATE] = 1.0 - out[:, WALL]
        blank = crops.max(axis=(1, 2)) < 0.5  # (a blank crop's ink map is a faint even tint)
        out[blank] = 0.0
        out[blank, EMPTY] = 1.0
        return out


@pytest.fixture(scope="module")
def shipped_reader() -> CellReader:
    return CellReader("en")


def _leaning_board() -> np.ndarray:
    """A blank board with the same drawing on an outer space (C1) and an inner one (C4): ink on the cell's left half."""
    board = np.full((7 * RECT_CELL_PX, 7 * RECT_CELL_PX, 3), 255, np.uint8)
    for index in (C1, C4):
        row, col = divmod(index, SIZE)
        y, x = row * RECT_CELL_PX, col * RECT_CELL_PX
        board[y + 10:y + RECT_CELL_PX - 10, x + 8:x + RECT_CELL_PX // 2 - 4] = 0
    return board


def _scripted(reader: CellReader, monkeypatch: pytest.MonkeyPatch, look: _LeaningNetwork | None = None) -> _LeaningNetwork:
    """``reader`` with a leaning cell network (returned), ``look`` as its look network, no close-look stage and no
    wall-or-crate networks (``test_walls``)."""
    network = _LeaningNetwork()
    monkeypatch.setattr(reader, "model", network)
    monkeypatch.setattr(reader, "crop_features", lambda crops: np.asarray(crops, np.float64))
    for name in ("letters", "churches", "agreed_uncertain_below", "walls"):
        monkeypatch.setattr(reader, name, None)
    monkeypatch.setattr(reader, "look", None if look is None else (_Crops(), look))
    # (A blank sheet has no printed grid, which the reader takes for glare: not this test's business.)
    monkeypatch.setattr("vision.cells.reader.print_contrast", lambda rectified: np.ones(SIZE * SIZE))
    return network


class _Crops:
    """A look network's trunk that hands the crops on as they are."""

    def features(self, crops: np.ndarray) -> np.ndarray:
        return np.asarray(crops, np.float64)


def test_a_doubtful_outer_cell_is_read_mirrored_too_and_an_inner_one_is_not(shipped_reader, monkeypatch):
    board = _leaning_board()
    network = _scripted(shipped_reader, monkeypatch)
    probs = shipped_reader.probabilities(board)
    # The outer cell: its five looks lean left (0.3 wall), its mirror right (0.7 wall), weighed MIRROR_WEIGHT to five.
    looks = 1 + len(SECOND_LOOK_SHIFTS)
    raw = np.zeros((2, len(GLYPH_CLASSES)))
    raw[0, WALL] = (looks * 0.3 + MIRROR_WEIGHT * 0.7) / (looks + MIRROR_WEIGHT)
    raw[1, WALL] = 0.3  # the inner cell: never mirrored
    raw[:, CRATE] = 1.0 - raw[:, WALL]
    whole = np.zeros((SIZE * SIZE, len(GLYPH_CLASSES)))
    whole[:, EMPTY] = 1.0
    whole[[C1, C4]] = raw
    expected = in_board_context(whole)
    assert probs[C1, WALL] == pytest.approx(expected[C1, WALL])
    assert probs[C4, WALL] == pytest.approx(expected[C4, WALL])
    # Without the mirror the outer cell would be less of a wall than it is read.
    unmirrored = whole.copy()
    unmirrored[C1] = raw[1]
    assert probs[C1, WALL] > in_board_context(unmirrored)[C1, WALL] + 0.05
    # The mirrored crop asked about leans right: the first crop's ink, mirrored left to right.
    mirrored = [crops for crops in network.asked if len(crops) == 1]
    assert len(mirrored) == 1
    half = mirrored[0].shape[2] // 2
    assert mirrored[0][0, :, half:].sum() > mirrored[0][0, :, :half].sum()


def test_the_look_network_reads_the_mirrored_crop_too(shipped_reader, monkeypatch):
    """The outer cell still doubtful after the second look is read by the look network from its crop and its mirror,
    half and half: a look network leaning as the cell network does reads it as even."""
    look = _LeaningNetwork()
    _scripted(shipped_reader, monkeypatch, look)
    probs = shipped_reader.probabilities(_leaning_board())
    looks = 1 + len(SECOND_LOOK_SHIFTS)
    second = np.zeros((1, len(GLYPH_CLASSES)))
    second[0, WALL] = (looks * 0.3 + MIRROR_WEIGHT * 0.7) / (looks + MIRROR_WEIGHT)
    second[0, CRATE] = 1.0 - second[0, WALL]
    looked = np.zeros_like(second)
    looked[0, [WALL, CRATE]] = 0.5  # 0.3 from the crop, 0.7 from its mirror
    whole = np.zeros((SIZE * SIZE, len(GLYPH_CLASSES)))
    whole[:, EMPTY] = 1.0
    whole[C1] = with_look(second, looked)[0]
    whole[C4, WALL], whole[C4, CRATE] = 0.3, 0.7  # inner: never mirrored
    assert [len(crops) for crops in look.asked] == [1, 1]  # C1's crop, then its mirror
    half = look.asked[1].shape[2] // 2
    assert look.asked[1][0, :, half:].sum() > look.asked[1][0, :, :half].sum()
    assert probs[C1, WALL] == pytest.approx(in_board_context(whole)[C1, WALL])
