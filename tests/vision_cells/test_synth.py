"""The synthetic board generator: size, speed-independent facts, markers where the kit puts them."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.board.locate import detect_markers
from vision.synth.board import render_board, render_city
from vision.synth.drawings import Hand


def on_table(image: np.ndarray, pad: int = 20) -> np.ndarray:
    """The board lying on a grey table (markers at the very edge of an image are not detected)."""
    return cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=(90, 90, 90))


def test_render_city_size_and_markers(busy_city, rng):
    image = render_city(busy_city, rng, cell_px=64, seat=2)
    assert image.shape == (448, 448, 3) and image.dtype == np.uint8
    markers = {i: c - 20 for i, c in detect_markers(on_table(image)).items()}
    assert set(markers) == {8, 9, 10, 11}
    # Marker 8 on A1, 9 on G1, 10 on G7, 11 on A7: centres at the tower centres.
    centres = {i: c.mean(axis=0) for i, c in markers.items()}
    for marker_id, (col, row) in {8: (0, 0), 9: (6, 0), 10: (6, 6), 11: (0, 6)}.items():
        assert np.allclose(centres[marker_id], [(col + 0.5) * 64, (row + 0.5) * 64], atol=2.0)


def test_no_markers_without_seat(busy_city, rng):
    assert detect_markers(on_table(render_city(busy_city, rng))) == {}


def test_drawings_land_in_their_cells(start_city, rng):
    """Ink appears in the cell that holds a drawing, not in an empty one."""
    city = [list(r) for r in start_city]
    city[4][3] = "H"  # D5
    city = ["".join(r) for r in city]
    hand = Hand(wobble=0.0)
    plain = render_board(start_city, np.random.default_rng(1), hand=hand, ghost_rate=0, smudge_rate=0).image
    drawn = render_board(city, np.random.default_rng(1), hand=hand, ghost_rate=0, smudge_rate=0).image
    diff = np.abs(plain.astype(int) - drawn.astype(int)).sum(axis=2)
    assert diff[4 * 64:5 * 64, 3 * 64:4 * 64].sum() > 1000
    diff[4 * 64 - 4:5 * 64 + 4, 3 * 64 - 4:4 * 64 + 4] = 0
    assert diff.sum() == 0


def test_printed_crates_identical_on_every_board(start_city):
    a = render_board(start_city, np.random.default_rng(1), ghost_rate=0, smudge_rate=0).image
    b = render_board(start_city, np.random.default_rng(2), ghost_rate=0, smudge_rate=0).image
    crop = (slice(64, 128), slice(64, 128))  # B2
    assert np.array_equal(a[crop], b[crop])


def test_italian_juggler_is_a_g(rng):
    """Language picks the letter: an Italian juggler is drawn with G, different from an English J."""
    city = ["#.....#", ".GG....", ".G.....", ".G.j...", ".......", ".......", "#.....#"]
    hand = Hand(wobble=0.0, font=0)
    en = render_board(city, np.random.default_rng(3), hand=hand, ghost_rate=0, smudge_rate=0).image
    it = render_board(city, np.random.default_rng(3), hand=hand, ghost_rate=0, smudge_rate=0,
                      language="it").image
    assert not np.array_equal(en[192:256, 192:256], it[192:256, 192:256])


def test_bad_city_rejected(rng):
    with pytest.raises(ValueError):
        render_city(["#....#"] * 7, rng)


def test_fallback_without_reference_art(busy_city, rng, monkeypatch, tmp_path):
    from vision.synth import board

    monkeypatch.setenv("COMPANION_REFERENCE_ART", str(tmp_path))
    board._art.cache_clear()
    try:
        image = render_city(busy_city, rng, seat=0)
    finally:
        board._art.cache_clear()
    assert image.shape == (448, 448, 3)
    assert set(detect_markers(on_table(image))) == {0, 1, 2, 3}
    assert cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).std() > 10


def test_letters_wobble_at_their_own_scale():
    """A shaky hand's letter stays that letter: the tremor is relative to the letter's size, not the
    cell's (a cell-sized wobble on a small 'M' made it an 'N' no person could tell apart)."""
    from vision.synth.drawings import CellPen

    box = (0.3, 0.25, 0.4, 0.5)  # where a person's letter goes
    overlaps = []
    for seed in range(100):
        shaky = np.zeros((200, 200), np.uint8)
        steady = np.zeros((200, 200), np.uint8)
        CellPen(shaky, 0, 0, 200, Hand(stroke=0.03, wobble=0.035), np.random.default_rng(seed)).glyph("M", box)
        CellPen(steady, 0, 0, 200, Hand(stroke=0.03, wobble=0.0), np.random.default_rng(seed)).glyph("M", box)
        a, b = shaky > 127, steady > 127
        overlaps.append((a & b).sum() / (a | b).sum())
    # Measured: 0.58 with the letter-sized tremor, 0.36 with the cell-sized one.
    assert np.mean(overlaps) > 0.5


def test_art_summary_says_which_pictures_the_generators_use(monkeypatch, tmp_path):
    from vision.synth.art import art_summary

    monkeypatch.setenv("COMPANION_REFERENCE_ART", str(tmp_path))
    assert "look-alikes" in art_summary()
    (tmp_path / "city-board.png").write_bytes(b"")
    (tmp_path / "die-log.png").write_bytes(b"")
    assert art_summary() == f"synthetic art: 2 of 7 reference pictures from {tmp_path}"


def test_a_board_drawn_cell_by_cell_changes_only_where_a_drawing_was_added(busy_city):
    """``cell_seed``: the same board with one drawing more differs in that cell alone (the frame after a
    move), while the usual rendering draws every later cell anew."""
    before = [list(row) for row in busy_city]
    row, col = next((r, c) for r in range(1, 6) for c in range(1, 6) if before[r][c] == ".")
    after = [list(r) for r in before]
    after[row][col] = "3"
    cell = 48

    def drawn(city, **kw):
        return render_board(["".join(r) for r in city], np.random.default_rng(5), cell_px=cell, seat=2, **kw).image

    diff = np.abs(drawn(before, cell_seed=77).astype(int) - drawn(after, cell_seed=77).astype(int)).max(axis=2)
    inside = np.zeros(diff.shape, bool)
    inside[row * cell:(row + 1) * cell, col * cell:(col + 1) * cell] = True
    assert diff[inside].max() > 60  # the church is there
    assert diff[~inside].max() == 0  # and nothing else moved
    sequential = np.abs(drawn(before).astype(int) - drawn(after).astype(int)).max(axis=2)
    assert sequential[~inside].max() > 60
