"""Teach mode: the teaching board, and an odd hand read better once taught."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.errors import UserError
from companion.layout import LAYOUT, SIZE
from vision.board import find_boards
from vision.board.dataset import photograph
from vision.cells import CellReader
from vision.synth.board import render_board
from vision.synth.drawings import Hand
from vision.teach import TEACH_LAYOUT, teach_from_images, teach_from_rectified, teaching_city

# Walls drawn as rows of stones and houses as tents (styles the generator never uses for training),
# thick and slanted.
ODD_HAND = Hand(wall_style=4, house_style=3, crate_style=0, church_style=1, stroke=0.07, slant=0.3,
                wobble=0.01, size=0.75)


def test_teaching_layout_has_each_symbol_once():
    values = list(TEACH_LAYOUT.values())
    assert sorted(values) == sorted("WGH12345cspamjn")
    assert not set(TEACH_LAYOUT) & set(LAYOUT.printed_crates)
    assert not set(TEACH_LAYOUT) & set(LAYOUT.towers)
    assert all((cell in LAYOUT.outer_cells) == (char == "W") for cell, char in TEACH_LAYOUT.items())
    city = teaching_city()
    assert sum(ch not in "#." for row in city for ch in row) == len(TEACH_LAYOUT) + len(LAYOUT.printed_crates)


def _photo(city, seed, hand):
    rng = np.random.default_rng(seed)
    board = render_board(city, rng, cell_px=64, seat=0, hand=hand, ghost_rate=0.0)
    return photograph(board.image, board.alpha, rng, tilt_deg=15, fill=(0.7, 0.8)).frame


TEST_CITIES = [
    ["#WWWWW#", "HGGH..W", "WG.HH.W", ".G....H", "W..H..W", "W.H...W", "#W.WWW#"],
    ["#.WW.W#", "WGG.H..", "HG.H.HW", "WGH...W", "..H.H.W", "W..H...", "#WW.WW#"],
]


def _errors(reader, frames):
    wrong = 0
    for city, frame in frames:
        (board,) = find_boards(frame)
        read, _, _ = reader.read(board.rectified)
        wrong += sum(city[r][c] != read[r][c] for r in range(SIZE) for c in range(SIZE))
    return wrong


@pytest.fixture(scope="module")
def odd_frames():
    return [(city, _photo(city, 40 + i, ODD_HAND)) for i, city in enumerate(TEST_CITIES)]


def test_teach_improves_an_odd_hand(tmp_path, odd_frames):
    before = _errors(CellReader("en"), odd_frames)
    assert before >= 4, "the odd hand should fool the untaught reader, or this test proves nothing"
    teach_frame = _photo(teaching_city(), 7, ODD_HAND)
    path = tmp_path / "teach.png"
    cv2.imwrite(str(path), teach_frame)
    summary = teach_from_images([path], tmp_path / "data", "en")
    assert (tmp_path / "data" / "teach.npz").is_file()
    assert summary["misread_after"] == [] and summary["taught_cells"] == len(TEACH_LAYOUT)
    taught = CellReader("en", tmp_path / "data")
    assert taught.taught
    after = _errors(taught, odd_frames)
    assert after <= before // 4, (before, after)


def test_teach_keeps_ordinary_hands(tmp_path, busy_city):
    """Teaching one table's hand does not break reading a neat ordinary hand."""
    neat = Hand(stroke=0.05, wobble=0.01, size=0.72)
    (teach_board,) = find_boards(_photo(teaching_city(), 8, ODD_HAND))
    teach_from_rectified([teach_board.rectified], tmp_path, "en")
    (board,) = find_boards(_photo(busy_city, 9, neat))
    read, _, uncertain = CellReader("en", tmp_path).read(board.rectified)
    wrong = {(r, c) for r in range(SIZE) for c in range(SIZE) if busy_city[r][c] != read[r][c]}
    assert len(wrong) <= 1


def test_teach_bad_images(tmp_path):
    not_image = tmp_path / "notes.txt"
    not_image.write_text("hello")
    with pytest.raises(UserError, match="notes.txt"):
        teach_from_images([not_image], tmp_path, "en")
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((300, 400, 3), 128, np.uint8))
    with pytest.raises(UserError, match="no city board"):
        teach_from_images([blank], tmp_path, "en")
    with pytest.raises(UserError):
        teach_from_images([], tmp_path, "en")


def test_broken_teach_file_falls_back_to_the_shipped_model(tmp_path):
    (tmp_path / "teach.npz").write_bytes(b"not a model")
    reader = CellReader("en", tmp_path)
    assert not reader.taught
    city, _, _ = reader.read(np.full((448, 448, 3), 220, np.uint8))
    assert len(city) == SIZE
