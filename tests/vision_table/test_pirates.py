from __future__ import annotations

import numpy as np
import pytest

from vision.pirates.reader import PirateReader, infer_players
from vision.synth.pirates import track_scene


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


def test_track_out_of_view_is_none(reader):
    assert reader.read(np.full((300, 400, 3), 200, np.uint8)) is None
