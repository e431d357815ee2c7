"""Something lying on a board (``vision.board.lying``): found from what changed since the board's last read, its cells
not read while it lies there and reported covered, and a move's drawings never taken for it."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from companion.layout import ALL_CELLS
from vision.board.lying import covered_cells
from vision.cells.reader import DRAWABLE_INDEX
from vision.pipeline import TableReader
from vision.synth.table import TableSpec, render_table

SIDE = 84  # the pipeline's board thumbnail: 12 px a cell
CELL = SIDE // 7


def _board(seed: int = 0) -> np.ndarray:
    """A thumbnail of an empty board: paper with a little noise and the printed grid."""
    rng = np.random.default_rng(seed)
    thumb = np.clip(rng.normal(200, 3, (SIDE, SIDE)), 0, 255).astype(np.uint8)
    for k in range(8):
        thumb[:, min(k * CELL, SIDE - 1)] -= 25
        thumb[min(k * CELL, SIDE - 1), :] -= 25
    return thumb


def _names(cells: list[int]) -> set[str]:
    return {ALL_CELLS[i] for i in cells}


def _band(thumb: np.ndarray, centre: tuple[float, float], length: float, width: float, angle: float) -> np.ndarray:
    out = thumb.copy()
    box = cv2.boxPoints(((centre[0] * CELL, centre[1] * CELL), (length * CELL, width * CELL), angle))
    cv2.fillConvexPoly(out, np.round(box).astype(np.int32), 60)
    return out


def test_a_pen_lying_across_the_board_covers_the_cells_under_it():
    before = _board()
    # Corner to corner through the middle of D4, 4.5 cells long and 0.7 wide.
    now = _band(before, (3.5, 3.5), 4.5, 0.7, 35.0)
    covered = _names(covered_cells(before, now))
    assert {"C3", "D4", "E5"} <= covered, covered
    assert not covered & {"A7", "G1", "A1", "G7", "A4", "G4"}, covered
    # Across a row but not along its middle: it crosses the grid line between rows 3 and 4.
    covered = _names(covered_cells(before, _band(before, (3.5, 3.0), 4.5, 0.8, 4.0)))
    assert {"C3", "D3", "E3", "C4", "D4", "E4"} <= covered, covered
    # Straight down the middle of column D: no row of walls, which lie on the outer spaces only.
    assert {"D2", "D3", "D4", "D5"} <= _names(covered_cells(before, _band(before, (3.5, 3.5), 4.5, 0.6, 90.0)))
    # Down the outer column G, inside it, it is what a row of walls drawn in one move looks like: missed.
    assert covered_cells(before, _band(before, (6.5, 3.7), 4.5, 0.6, 90.0)) == []
    # Across the outer column G at a slant, it is found.
    assert {"F4", "G4"} <= _names(covered_cells(before, _band(before, (5.5, 3.5), 4.0, 0.6, 60.0)))


def test_a_moves_drawings_and_the_room_are_not_taken_for_a_pen():
    before = _board()
    # Three crates drawn down a column, each in its cell.
    crates = before.copy()
    for row in (1, 2, 3):
        cv2.rectangle(crates, (3 * CELL + 2, row * CELL + 2), (4 * CELL - 3, (row + 1) * CELL - 3), 60, 1)
        cv2.line(crates, (3 * CELL + 2, row * CELL + 2), (4 * CELL - 3, (row + 1) * CELL - 3), 60, 1)
    assert covered_cells(before, crates) == []
    # Four walls drawn as solid bands down the board's edge, a pixel of paper between each: a band along its column.
    walls = before.copy()
    for row in (1, 2, 3, 4):
        cv2.rectangle(walls, (6 * CELL + 3, row * CELL + 1), (7 * CELL - 4, (row + 1) * CELL - 1), 60, -1)
    assert covered_cells(before, walls) == []
    # A shadow over half the board (a player leaning in): too wide to be something lying there.
    shadow = before.copy()
    shadow[:, : SIDE // 2] = (shadow[:, : SIDE // 2] * 0.6).astype(np.uint8)
    assert covered_cells(before, shadow) == []
    # A short thing (an eraser, 2 cells long) is not a pen either; nor is nothing changed.
    assert covered_cells(before, _band(before, (3.5, 3.5), 2.0, 0.6, 30.0)) == []
    assert covered_cells(before, before) == []
    assert covered_cells(before, np.zeros((70, 70), np.uint8)) == [], "thumbnails that do not compare"


@pytest.fixture(scope="module")
def pen_table() -> tuple[np.ndarray, np.ndarray, dict, tuple]:
    # A white pen down column D: its barrel hardly differs from the board's paper, only its edges and shadow do.
    spec = TableSpec.random(np.random.default_rng(31), n_boards=2, camera_cm=75)
    clean, truth = render_table(spec, np.random.default_rng(2))
    penned, pen_truth = render_table(dataclasses.replace(spec, pen_on=0), np.random.default_rng(2))
    assert pen_truth.extra["pen"]["cells"] == ("D1", "D2", "D3", "D4", "D5")
    return clean, penned, pen_truth.extra["pen"], truth.boards


def test_a_pen_put_down_on_a_board_leaves_its_cells_as_last_read_and_they_come_back_when_it_is_lifted(pen_table):
    clean, penned, pen, boards = pen_table
    reader = TableReader(language="en")
    first = reader.read(clean)
    assert all(not b.covered for b in first.boards)
    with_pen = reader.read_full(penned)
    board = with_pen.board(pen["seat"])
    under = {name for name in pen["cells"] if ALL_CELLS.index(name) in DRAWABLE_INDEX}
    assert board is not None and under and under <= set(board.covered), (pen["cells"], board.covered)
    assert set(board.covered) <= set(board.unseen) and set(board.covered) <= set(board.uncertain)
    assert all(not b.covered for b in with_pen.boards if b.seat != pen["seat"]), "only the pen's board"
    # The cells around it are read as before; those under it are not read at all.
    before = first.board(pen["seat"])
    seen = [k for k, name in enumerate(ALL_CELLS) if name not in board.unseen]
    assert [("".join(board.city))[k] for k in seen] == [("".join(before.city))[k] for k in seen]
    # Lifted: the board reads as it did, nothing covered.
    after = reader.read_full(clean)
    assert after.board(pen["seat"]).city == before.city and not after.board(pen["seat"]).covered
