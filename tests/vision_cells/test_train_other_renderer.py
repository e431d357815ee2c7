"""The other renderer's boards as training cells (``vision.cells.train_other_renderer``): the crops a camera frame
gives, labelled by the board's truth, the drawings table-kit.md does not describe left out, whole boards kept to one
side of the train / validation split."""

from __future__ import annotations

import json

import cv2
import numpy as np

from companion.layout import ALL_CELLS, SIZE
from vision.board.dataset import photograph
from vision.cells.dataset import SPACE_INDEX
from vision.cells.labels import GLYPH_CLASSES, glyph_for_char
from vision.cells.letters import LETTERS
from vision.cells.train_hands import split_by_board
from vision.cells.train_other_renderer import (
    NOT_LEARNED,
    _unlearned,
    other_renderer_cells,
    other_renderer_close_crops,
    turned_to_the_sides,
)
from vision.synth.board import render_board

CITY = ["#WW.WW#", "WGGHc1.", "WG2sp.W", ".Ga3m.W", "W.4jn5.", "HG.H.c.", "#WW.W.#"]


def test_styles_table_kit_does_not_describe_are_not_learned():
    assert _unlearned("person.bust|font:handlee") and _unlearned("wall.edge_line") and _unlearned("person.letter_only")
    assert _unlearned("wall.edge_band")  # the third renderer's band along the edge
    assert not _unlearned("wall.crenel") and not _unlearned("person.circle_open|font:caveat") and not _unlearned("")


def test_a_folder_of_photos_becomes_labelled_cells(tmp_path):
    """Two photographed boards (our generator's stand in for the other renderer's, whose fonts CI does not fetch) go
    the product's way: found by their markers, rectified, cut into the 45 spaces a player can draw on or that are
    printed; each labelled as the truth says, a cell in a style not learned labelled NOT_LEARNED; kept in cells.npz."""
    lines = []
    for k, seat in enumerate((1, 3)):
        rng = np.random.default_rng(40 + k)
        board = render_board(CITY, rng, cell_px=48, seat=seat)
        cv2.imwrite(str(tmp_path / f"board_{k}.png"), photograph(board.image, board.alpha, rng, fill=(0.7, 0.8)).frame)
        lines.append({"image": f"board_{k}.png", "seat": seat, "city": CITY,
                      "styles": {"E3": "person.bust|font:x", "B1": "wall.crenel"}})
    lines.append({"image": "missing.png", "seat": 0, "city": CITY})  # unreadable: not a board, not a crash
    (tmp_path / "truth.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    x, y = other_renderer_cells(tmp_path, workers=1)
    assert x.shape[0] == y.shape[0] == 2 * len(SPACE_INDEX) == 90
    expected = [GLYPH_CLASSES.index(glyph_for_char(CITY[i // 7][i % 7], "en")) for i in SPACE_INDEX]
    bust = list(SPACE_INDEX).index(ALL_CELLS.index("E3"))
    expected[bust] = NOT_LEARNED
    assert y.tolist() == expected * 2
    assert (tmp_path / "cells.npz").is_file()
    # Kept: a second call reads the same cells back without the photos.
    for k in range(2):
        (tmp_path / f"board_{k}.png").unlink()
    x2, y2 = other_renderer_cells(tmp_path, workers=1)
    assert np.array_equal(y2, y) and np.array_equal(x2, x)


def test_a_folder_of_photos_becomes_labelled_letter_crops(tmp_path):
    """The letter stage's close crops of the same photos: one for each person the truth names, in the order of the
    board's spaces, labelled by its letter, then the same persons' wider crops (the stage reads both sides:
    ``LETTERS.wide_crops``); a person in a style not learned (a bust) left out; the crops are the letter stage's own
    (``LETTERS.crops`` of the rectified board), kept in letters.npz."""
    rng = np.random.default_rng(40)
    board = render_board(CITY, rng, cell_px=48, seat=2)
    cv2.imwrite(str(tmp_path / "board_0.png"), photograph(board.image, board.alpha, rng, fill=(0.7, 0.8)).frame)
    line = {"image": "board_0.png", "seat": 2, "city": CITY, "styles": {"E3": "person.bust|font:x"}}
    (tmp_path / "truth.jsonl").write_text(json.dumps(line) + "\n")
    x, y = other_renderer_close_crops(tmp_path, "letters", workers=1)
    persons = [ALL_CELLS[i] for i in range(49) if CITY[i // 7][i % 7] in "acjmnps"]
    assert "E3" in persons and len(persons) == 8
    expected = [GLYPH_CLASSES.index(glyph_for_char(CITY[i // 7][i % 7], "en")) for i in range(49)
                if CITY[i // 7][i % 7] in "acjmnps" and ALL_CELLS[i] != "E3"]
    assert y.tolist() == expected + expected
    assert x.shape == (14, *LETTERS.crops(np.zeros((7 * 48, 7 * 48), np.uint8), [0]).shape[1:])
    assert float(x.astype(np.float32).std()) > 0.05  # ink in them, not blank paper
    close, wide = x[:7].astype(np.float32), x[7:].astype(np.float32)
    assert all(np.abs(c - w).mean() > 0.01 for c, w in zip(close, wide, strict=True))  # each seen at both sides
    assert (tmp_path / "letters.npz").is_file()


def test_validation_takes_whole_boards():
    per = len(SPACE_INDEX)
    x = np.arange(10 * per, dtype=np.float32)[:, None, None]
    y = np.repeat(np.arange(10), per)  # each board's cells carry its number
    train_x, train_y, val_x, val_y = split_by_board(x, y, 0.2, np.random.default_rng(0))
    assert len(val_y) == 2 * per and len(train_y) == 8 * per
    assert not set(val_y) & set(train_y)
    assert sorted(np.unique(val_y)) == sorted({int(v) for v in val_x.ravel() // per})


def test_top_and_bottom_walls_crates_and_empty_spaces_are_turned_to_the_sides():
    """Of two boards' crops (in ``SPACE_INDEX`` order), every top and bottom row wall, crate and empty space comes back
    turned a quarter (share 1), the board's edge (the crop's top in the top row, its bottom in the bottom row) now on its
    left or right, its label kept; nothing of the other rows, nor a person or church of those rows."""
    per = len(SPACE_INDEX)
    labels = {"W": GLYPH_CLASSES.index("W"), "G": GLYPH_CLASSES.index("G"), ".": GLYPH_CLASSES.index("."),
              "1": GLYPH_CLASSES.index(glyph_for_char("1", "en"))}
    y = np.array([labels[CITY[i // 7][i % 7] if CITY[i // 7][i % 7] in "WG." else "1"] for i in SPACE_INDEX] * 2)
    x = np.zeros((2 * per, 8, 8), np.float16)
    x[:, 0, :] = 1.0  # a mark along each crop's top
    rows = np.array(SPACE_INDEX * 2) // SIZE
    x[rows == SIZE - 1] = x[rows == SIZE - 1][:, ::-1]  # ... along the bottom in the bottom row (the board's edge)
    turned_x, turned_y = turned_to_the_sides(x, y, 1.0, np.random.default_rng(3))
    edge = (rows == 0) | (rows == SIZE - 1)
    kinds = np.isin(y, [labels["W"], labels["G"], labels["."]])
    assert len(turned_y) == int((edge & kinds).sum()) > 0
    assert sorted(turned_y.tolist()) == sorted(y[edge & kinds].tolist())
    sides = [(c[:, 0].min() == 1.0, c[:, -1].min() == 1.0) for c in turned_x.astype(np.float32)]
    assert all(left != right for left, right in sides)  # the mark runs down one side, never across
    assert {left for left, _ in sides} == {True, False}  # both sides turn up
    assert all(float(c[0, 1:-1].max()) == 0.0 for c in turned_x.astype(np.float32))  # no longer along the top
    none_x, none_y = turned_to_the_sides(x, y, 0.0, np.random.default_rng(3))
    assert len(none_y) == 0 == len(none_x)
