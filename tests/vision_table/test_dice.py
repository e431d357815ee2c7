from __future__ import annotations

import numpy as np
import pytest

from vision.dice.reader import PX_PER_MM, DiceReader, segment_dice
from vision.marker_plane import detect_markers
from vision.observation import DIE_FACES
from vision.synth.dice import tray_scene


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    return DiceReader()


def _read(reader: DiceReader, frame: np.ndarray):
    return reader.read(frame, detect_markers(frame))


def test_every_face_read_at_random_rotations(reader):
    rng = np.random.default_rng(101)
    wrong = 0
    for k in range(24):
        # All five dice show the same face: a miss on any face shows up directly.
        face = DIE_FACES[k % len(DIE_FACES)]
        frame, dice, _ = tray_scene(rng, [face] * 5, touching=False)
        readings = _read(reader, frame)
        assert readings is not None
        assert len(readings) == 5
        wrong += sum(r.face != face for r in readings)
    assert wrong == 0


def test_touching_dice_are_split_and_read(reader):
    rng = np.random.default_rng(202)
    exact = 0
    for _ in range(20):
        faces = [DIE_FACES[int(i)] for i in rng.integers(0, 6, 5)]
        frame, dice, _ = tray_scene(rng, faces, touching=True)
        readings = _read(reader, frame)
        assert readings is not None and len(readings) == 5
        exact += sorted(r.face for r in readings) == sorted(faces)
    assert exact >= 19


def test_dice_are_found_where_they_lie(reader):
    rng = np.random.default_rng(303)
    frame, dice, _ = tray_scene(rng, ["log", "crate", "wall", "cross", "head"], touching=False)
    readings = _read(reader, frame)
    tops = np.array([d.top_mm for d in dice])
    for r in readings:
        nearest = int(np.argmin(np.hypot(*(tops - np.array(r.centre)).T)))
        assert np.hypot(*(tops[nearest] - np.array(r.centre))) < 4.0
        assert r.face == dice[nearest].face
        assert 0.0 <= r.confidence <= 1.0


def test_empty_tray_reads_no_dice_and_no_tray_reads_none(reader):
    rng = np.random.default_rng(404)
    frame, _, _ = tray_scene(rng, [], touching=False)
    assert _read(reader, frame) == ()
    blank = np.full((400, 600, 3), 120, np.uint8)
    assert reader.read(blank) is None


def test_segmentation_counts_dice_blob_by_blob():
    rng = np.random.default_rng(505)
    for n in (1, 3, 5):
        frame, dice, _ = tray_scene(rng, ["swords"] * n, touching=True)
        tray = DiceReader.__new__(DiceReader).rectify(frame)
        assert tray is not None
        blobs = segment_dice(tray)
        assert len(blobs) == n
        tops = np.array([d.top_mm for d in dice]) * PX_PER_MM
        for blob in blobs:
            assert np.min(np.hypot(*(tops - np.array(blob.centre)).T)) < 5 * PX_PER_MM
