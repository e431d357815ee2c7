from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.pirates.geometry import BLOCK_H_MM, BLOCK_W_MM, BLOCK_X_MM, BLOCK_Y_MM
from vision.pirates.reader import PX_PER_MM, PirateReader, filled_prefix, infer_players, read_block
from vision.synth.pirates import render_track, track_scene
from vision.synth.table import px_per_mm_at


@pytest.fixture(scope="module")
def reader() -> PirateReader:
    return PirateReader()


def test_marked_boxes_counted_exactly(reader):
    rng = np.random.default_rng(11)
    for _ in range(30):
        frame, players, marked = track_scene(rng)
        reading = reader.read(frame, players_hint=players)
        assert reading is not None
        assert (reading.boxes, reading.players) == (marked, players)


def test_player_count_comes_from_the_marks_alone(reader):
    rng = np.random.default_rng(12)
    for players in (2, 3, 4, 5):
        for marked in (0, 1, 2 * players + 1, 12 * players - 1):
            frame, _, _ = track_scene(rng, players, marked)
            reading = reader.read(frame)
            assert (reading.boxes, reading.players) == (marked, players)


def test_full_track_needs_the_hint_and_uses_it(reader):
    rng = np.random.default_rng(13)
    frame, _, _ = track_scene(rng, 3, 36)
    assert reader.read(frame, players_hint=3).boxes == 36


@pytest.mark.parametrize("camera_cm", [75.0, 90.0])
def test_tracks_seen_from_the_recommended_and_the_highest_camera_read_exactly(reader, camera_cm):
    # 1.04 and 0.86 px/mm at the track's centre: crosses a pen stroke (1-2 px) wide, paled by the blur.
    rng = np.random.default_rng(int(camera_cm))
    found = 0
    for _ in range(30):
        frame, players, marked = track_scene(rng, px_per_mm=px_per_mm_at(camera_cm))
        reading = reader.read(frame, players_hint=players)
        if reading is None:
            continue  # the markers not found: the shared marker detector's part, not the reading's
        found += 1
        assert (reading.boxes, reading.players) == (marked, players)
    assert found >= 27


def _seen_from(track: np.ndarray, px_per_mm: float, blur_px: float) -> np.ndarray:
    """The block of a top-down ``render_track`` picture (5 px/mm) as a camera at ``px_per_mm`` with a lens
    blur of ``blur_px`` gives it, rectified to PX_PER_MM."""
    gray = cv2.cvtColor(track, cv2.COLOR_BGR2GRAY)
    seen = cv2.resize(gray, None, fx=px_per_mm / 5.0, fy=px_per_mm / 5.0, interpolation=cv2.INTER_AREA)
    seen = cv2.GaussianBlur(seen, (0, 0), blur_px)
    size = (round(gray.shape[1] / 5.0 * PX_PER_MM), round(gray.shape[0] / 5.0 * PX_PER_MM))
    rectified = cv2.resize(seen, size, interpolation=cv2.INTER_LINEAR)
    x0, y0 = round(BLOCK_X_MM * PX_PER_MM), round(BLOCK_Y_MM * PX_PER_MM)
    return rectified[y0:y0 + round(BLOCK_H_MM * PX_PER_MM), x0:x0 + round(BLOCK_W_MM * PX_PER_MM)]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_pale_blurred_crosses_from_90_cm_are_marks_and_empty_boxes_are_not(players):
    rng = np.random.default_rng(40 + players)
    for marked in (1, 5 * players, 12 * players - 1):
        block = _seen_from(render_track(players, marked, rng), px_per_mm_at(90.0), blur_px=0.8)
        reading = read_block(block, players)
        assert (reading.boxes, reading.mismatches) == (marked, 0)


def test_the_count_is_the_prefix_the_marks_agree_with():
    assert filled_prefix(np.array([1.0, 1.0, -0.2, 1.0, -1.0, -1.0])) == 4  # a faint mark amid clear ones
    assert filled_prefix(np.array([1.0, 1.0, -1.0, -1.0, 1.0, -1.0])) == 2  # a speck past the last mark
    assert filled_prefix(np.array([-1.0, -0.5, -1.0])) == 0
    assert filled_prefix(np.array([1.0, 0.3, 1.0])) == 3


def _pattern(players: int, marked: int) -> np.ndarray:
    marks = np.zeros((6, 10), bool)
    marks[:, 2 * players:] = True
    for k in range(marked):
        r, c = divmod(k, 2 * players)
        marks[r, c] = True
    return marks


@pytest.mark.parametrize(("players", "marked"), [(2, 0), (2, 5), (3, 13), (4, 47), (5, 0), (5, 59)])
def test_infer_players_from_patterns(players, marked):
    assert infer_players(_pattern(players, marked)) == (players, 0)


def test_one_misread_box_still_fits_the_right_player_count():
    marks = _pattern(4, 10)
    marks[3, 9] = False  # a crossed-out box missed (glare)
    assert infer_players(marks) == (4, 1)


def test_a_mark_missed_amid_others_is_one_mismatch():
    marks = _pattern(3, 20)
    marks[1, 2] = False  # the 9th box: its cross too pale
    assert infer_players(marks) == (3, 1)


def test_track_out_of_view_is_none(reader):
    assert reader.read(np.full((300, 400, 3), 200, np.uint8)) is None
