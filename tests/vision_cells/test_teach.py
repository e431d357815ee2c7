"""Teach mode: one teaching sheet per player teaches that player's seat, and nothing else."""

from __future__ import annotations

import json
from collections import Counter

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.errors import UserError
from companion.layout import LAYOUT, SIZE
from vision.board import find_boards
from vision.board.dataset import photograph
from vision.cells import CellReader
from vision.cells.seat_hand import TableHands
from vision.pipeline import TableReader
from vision.synth.board import render_board
from vision.synth.drawings import Hand
from vision.synth.table import TableSpec, render_table
from vision.teach import TEACH_LAYOUT, teach_from_images, teach_from_rectified, teaching_city

from .test_seat_hand import FIRST_HANDS_ONLY

# Walls drawn as rows of stones and houses as tents (styles the generator never uses for training),
# thick and slanted.
ODD_HAND = Hand(wall_style=4, house_style=3, crate_style=0, church_style=1, stroke=0.07, slant=0.3,
                wobble=0.01, size=0.75)


def test_teaching_sheet_has_each_symbol_twice():
    assert Counter(TEACH_LAYOUT.values()) == Counter({symbol: 2 for symbol in "WGH12345cspamjn"})
    assert not set(TEACH_LAYOUT) & set(LAYOUT.printed_crates)
    assert not set(TEACH_LAYOUT) & set(LAYOUT.towers)
    assert all(cell in LAYOUT.outer_cells for cell, char in TEACH_LAYOUT.items() if char == "W")
    city = teaching_city()
    assert sum(ch not in "#." for row in city for ch in row) == len(TEACH_LAYOUT) + len(LAYOUT.printed_crates)


def _photo(city, seed, hand, seat=0):
    rng = np.random.default_rng(seed)
    board = render_board(city, rng, cell_px=64, seat=seat, hand=hand, ghost_rate=0.0)
    return photograph(board.image, board.alpha, rng, tilt_deg=15, fill=(0.7, 0.8)).frame


TEST_CITIES = [
    ["#WWWWW#", "HGGH..W", "WG.HH.W", ".G....H", "W..H..W", "W.H...W", "#W.WWW#"],
    ["#.WW.W#", "WGG.H..", "HG.H.HW", "WGH...W", "..H.H.W", "W..H...", "#WW.WW#"],
]


def _errors(reader, frames, hand=None):
    wrong = 0
    for city, frame in frames:
        (board,) = find_boards(frame)
        read, _, _ = reader.read(board.rectified, hand)
        wrong += sum(city[r][c] != read[r][c] for r in range(SIZE) for c in range(SIZE))
    return wrong


@pytest.fixture(scope="module")
def odd_frames():
    return [(city, _photo(city, 40 + i, ODD_HAND)) for i, city in enumerate(TEST_CITIES)]


def test_teach_improves_an_odd_hand(tmp_path, odd_frames):
    # A network that never saw stones and tents (the generator's first hands only, test_seat_hand); the
    # sheet's examples are embedded by whichever reader reads with them.
    reader = CellReader("en", model_path=FIRST_HANDS_ONLY)
    before = _errors(reader, odd_frames)
    assert before >= 6, "the odd hand should fool the untaught reader, or this test proves nothing"
    path = tmp_path / "teach.png"
    cv2.imwrite(str(path), _photo(teaching_city(), 7, ODD_HAND))
    summary = teach_from_images([path], tmp_path / "data", "en")
    assert summary["seats"] == [0] and summary["taught_cells"] == len(TEACH_LAYOUT)
    # the sheet itself reads better; a drawing the network is sure of is not overruled by two examples
    assert set(summary["misread_after"]) <= set(summary["misread_before"])
    taught = TableHands.taught(tmp_path / "data", "en")
    assert taught is not None and taught.hand(0).counts() == Counter(
        {"W": 2, "G": 2, "H": 2, **{d: 2 for d in "12345"}, **{"p" + p: 2 for p in "CSPAMJN"}})
    after = _errors(reader, odd_frames, taught.hand(0))
    # Two drawings of a symbol do not overrule what the network is sure of (test_seat_hand): the sheet
    # settles the doubtful cells (10 -> 7 here); the game's confirmed drawings do the rest.
    assert after <= before - 2, (before, after)


def test_teach_keeps_ordinary_hands(tmp_path, busy_city):
    """Teaching one player's odd hand does not break reading a neat ordinary hand at that seat."""
    neat = Hand(stroke=0.05, wobble=0.01, size=0.72)
    (teach_board,) = find_boards(_photo(teaching_city(), 8, ODD_HAND))
    teach_from_rectified([teach_board.rectified], tmp_path, "en")
    (board,) = find_boards(_photo(busy_city, 9, neat))
    hand = TableHands.taught(tmp_path, "en").hand(0)
    read, _, _ = CellReader("en").read(board.rectified, hand)
    wrong = {(r, c) for r in range(SIZE) for c in range(SIZE) if busy_city[r][c] != read[r][c]}
    assert len(wrong) <= 1


def test_teaching_seat_1_never_changes_the_other_seats_readings(tmp_path):
    spec = TableSpec(cities=(tuple(TEST_CITIES[0]), tuple(TEST_CITIES[1]), tuple(TEST_CITIES[0])), seed=5)
    frame, _ = render_table(spec, np.random.default_rng(5))
    before = {b.seat: b for b in TableReader(data_dir=tmp_path).read(frame).boards}
    sheet = tmp_path / "sheet.png"
    cv2.imwrite(str(sheet), _photo(teaching_city(), 11, ODD_HAND, seat=1))
    summary = teach_from_images([sheet], tmp_path, "en")
    assert summary["seats"] == [1]  # the sheet's markers say whose it is
    reader = TableReader(data_dir=tmp_path)
    assert reader.hands.hand(1) is not None and reader.hands.hand(0) is None and reader.hands.hand(2) is None
    after = {b.seat: b for b in reader.read(frame).boards}
    assert sorted(after) == [0, 1, 2]
    for seat in (0, 2):
        assert after[seat].city == before[seat].city
        assert after[seat].confidence == before[seat].confidence


def test_teach_replaces_an_adapted_network_of_an_older_teach(tmp_path, odd_frames):
    (tmp_path / "teach.npz").write_bytes(b"an adapted head of an older teach")
    (board,) = find_boards(_photo(teaching_city(), 7, ODD_HAND))
    summary = teach_from_rectified([(3, board.rectified)], tmp_path, "it")
    assert summary["seats"] == [3] and summary["language"] == "it"
    assert not (tmp_path / "teach.npz").exists() and summary["replaced"].endswith("teach.npz")


def test_teach_command_takes_a_seat_and_a_language(tmp_path, capsys):
    path = tmp_path / "sheet.png"
    cv2.imwrite(str(path), _photo(teaching_city(), 12, ODD_HAND))  # seat 0's markers
    assert main(["teach", str(path), "--data", str(tmp_path / "d"), "--seat", "0", "--language", "es"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["seats"] == [0] and summary["language"] == "es"
    assert main(["teach", str(path), "--data", str(tmp_path / "d"), "--seat", "7"]) == 2
    assert "--seat 7" in capsys.readouterr().err
    assert main(["teach", str(path), "--data", str(tmp_path / "d"), "--seat", "2"]) == 2  # no sheet of seat 2
    assert "seat 2" in capsys.readouterr().err
    assert main(["teach", str(path), "--data", str(tmp_path / "d"), "--language", "de"]) == 2
    assert "'de'" in capsys.readouterr().err


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


def test_a_picture_teaches_the_boards_that_show_the_layout_and_leaves_a_board_in_play_alone(tmp_path):
    # The table camera's frame: seat 1 drew the teaching layout; seat 0's board is a game in play, seat 2's is empty,
    # and seat 3 drew the layout on a board with five walls of a game still on it.
    from companion.layout import draw_on_city, empty_city
    from vision.teach import teach_from_picture

    walls = [{"cell": c, "item": "W"} for c in ("C1", "E1", "F1", "A2", "G2")]
    busy_sheet = draw_on_city(teaching_city(), walls, only_empty=True)
    spec = TableSpec(cities=(tuple(TEST_CITIES[0]), tuple(teaching_city()), tuple(empty_city()), tuple(busy_sheet)),
                     seed=6, hands=(ODD_HAND,) * 4)
    frame, _ = render_table(spec, np.random.default_rng(6))
    hands = TableHands(None, None, "en")
    summary = teach_from_picture(frame, hands)
    assert summary["seats"] == [1]
    assert set(summary["skipped"]) == {"0", "2", "3"}
    assert "of the teaching layout's 30 cells are drawn" in summary["skipped"]["0"]
    assert summary["skipped"]["2"] == "only 0 of the teaching layout's 30 cells are drawn"
    assert summary["skipped"]["3"] == "5 drawings lie outside the teaching layout"
    assert hands.hand(1) is not None and all(hands.hand(s) is None for s in (0, 2, 3))
    # Only a board in play in view (a seat named, or none drawn): nothing is taught, and the answer says why.
    with pytest.raises(UserError, match="no board in the picture shows the teaching layout .seat 0: "):
        teach_from_picture(frame, TableHands(None, None, "en"), seat=0)
    with pytest.raises(UserError, match="no city board of seat 4 found"):
        teach_from_picture(frame, TableHands(None, None, "en"), seat=4)


def test_the_teach_command_leaves_a_board_in_play_beside_the_sheets_alone(tmp_path, capsys):
    spec = TableSpec(cities=(tuple(TEST_CITIES[1]), tuple(teaching_city())), seed=8, hands=(ODD_HAND, ODD_HAND))
    frame, _ = render_table(spec, np.random.default_rng(8))
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), frame)
    assert main(["teach", str(path), "--data", str(tmp_path / "d")]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["seats"] == [1] and list(summary["skipped"]) == ["0"]
    taught = TableHands.taught(tmp_path / "d", "en")
    assert taught.hand(1) is not None and taught.hand(0) is None
    # Only the board in play: nothing is taught and the command says why, in one line.
    assert main(["teach", str(path), "--data", str(tmp_path / "e"), "--seat", "0"]) == 2
    error = capsys.readouterr().err.strip()
    assert "no board in" in error and "shows the teaching layout (seat 0: only" in error and "\n" not in error
    assert TableHands.taught(tmp_path / "e", "en") is None
