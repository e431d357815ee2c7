"""Two boards stuck with one seat's stickers (a kit sheet printed twice): the camera cannot tell which board
is whose, so it reads neither and says so, instead of reporting one of them, or both put together, as the seat's."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from vision.board.locate import doubled_seats
from vision.marker_plane import doubled_ids
from vision.pipeline import TableReader
from vision.synth.table import TableSpec, render_table


@pytest.fixture(scope="module")
def doubled_table():
    """Three boards: seat 0's, and two that both carry seat 1's stickers."""
    rng = np.random.default_rng(3)
    spec = dataclasses.replace(TableSpec.random(rng, n_boards=3), seats=(0, 1, 1), seed=3)
    frame, truth = render_table(spec, rng)
    return frame, truth


def test_a_seat_on_two_boards_is_read_on_neither_and_said(doubled_table):
    frame, truth = doubled_table
    obs = TableReader().read(frame)
    assert obs.extra.get("doubled_seats") == [1]
    assert [b.seat for b in obs.boards] == [0], "neither seat-1 board is read as the seat's"
    assert obs.board(0).city == truth.board(0).city, "the board with its own stickers is read as ever"


def test_one_seat_per_board_is_never_doubled():
    rng = np.random.default_rng(4)
    spec = TableSpec.random(rng, n_boards=4)
    frame, truth = render_table(spec, rng)
    obs = TableReader().read(frame)
    assert "doubled_seats" not in obs.extra
    assert sorted(b.seat for b in obs.boards) == sorted(b.seat for b in truth.boards)


def _quad(x: float, y: float, side: float = 20.0) -> np.ndarray:
    return np.float32([[x, y], [x + side, y], [x + side, y + side], [x, y + side]])


def test_an_id_is_doubled_only_when_seen_apart_and_a_seat_only_by_two_ids():
    # The same sticker found twice a few pixels apart is one sticker; a board's width apart, two.
    assert doubled_ids({5: [_quad(100, 100), _quad(103, 101)]}) == set()
    assert doubled_ids({5: [_quad(100, 100), _quad(400, 120)], 6: [_quad(300, 300)]}) == {5}
    # One id twice is a drawing that decodes as a sticker (settled by the plane's other markers): not a seat.
    assert doubled_seats({5}) == []
    assert doubled_seats({4, 6, 9}) == [1]
    assert doubled_seats({4, 5, 8, 9, 10}) == [1, 2]


def test_scan_says_which_seat_it_did_not_read(doubled_table, tmp_path, capsys):
    import cv2

    from vision.cli import cmd_scan

    frame, _truth = doubled_table
    path = tmp_path / "twice.png"
    cv2.imwrite(str(path), frame)
    assert cmd_scan(type("Args", (), {"images": [str(path)], "language": "en", "data": None})()) == 0
    out, err = capsys.readouterr()
    line = json.loads(out)
    assert [b["seat"] for b in line["boards"]] == [0]
    assert f"companion scan: {path}: two boards carry the stickers of seat 1 (markers 4-7); neither is read" in err


def test_the_camera_view_says_which_seat_is_on_two_boards(doubled_table):
    from web.camera_view import UNSURE, draw_overlay

    frame, _truth = doubled_table
    obs = TableReader().read(frame)
    drawn = draw_overlay(frame, obs)
    plain = draw_overlay(frame, dataclasses.replace(obs, extra={}))
    # The line in the top left corner, in the doubtful colour; nothing else differs.
    differs = np.any(drawn != plain, axis=2)
    ys, xs = np.nonzero(differs)
    assert ys.size and ys.max() < 45 and xs.min() < 20
    near = np.abs(drawn[differs].astype(int) - np.array(UNSURE)).max(axis=1) < 40
    assert near.mean() > 0.5, "the line is drawn in the doubtful colour"
