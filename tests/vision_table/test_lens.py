"""A wide lens bends the frame (barrel distortion): the synthetic camera can, and the reader still reads the table."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from companion.layout import ALL_CELLS
from vision.cells.reader import DRAWABLE_INDEX
from vision.pipeline import TableReader
from vision.synth.table import FRAME_SIZE, TableSpec, _lens_maps, lens_bent_points, render_table


def test_the_truth_is_bent_as_the_picture_is():
    # White dots where a pinhole camera puts them, the picture bent: each dot lies where lens_bent_points says.
    width, height = FRAME_SIZE
    pinhole = np.array([[60.0, 50.0], [1850.0, 1020.0], [960.0, 540.0], [300.0, 900.0], [1500.0, 200.0]])
    picture = np.zeros((height, width), np.float32)
    for x, y in pinhole:
        cv2.circle(picture, (int(x), int(y)), 4, 1.0, -1)
    bent_picture = cv2.remap(picture, *_lens_maps(0.2), cv2.INTER_LINEAR)
    expected = lens_bent_points(pinhole, 0.2)
    for (x, y), (ex, ey) in zip(pinhole, expected, strict=True):
        window = bent_picture[int(ey) - 12:int(ey) + 13, int(ex) - 12:int(ex) + 13]
        ys, xs = np.nonzero(window > 0.5)
        assert len(xs) > 10, (x, y)
        found = np.array([xs.mean() + int(ex) - 12, ys.mean() + int(ey) - 12])
        assert np.abs(found - [ex, ey]).max() < 0.5, (x, y)
    # the middle stays, the corners come in by the share asked for
    assert np.abs(expected[2] - pinhole[2]).max() < 0.5
    centre = np.array([(width - 1) / 2, (height - 1) / 2])
    corner = lens_bent_points(np.array([[0.0, 0.0]]), 0.2)[0]
    assert np.linalg.norm(corner - centre) == pytest.approx(0.8 * np.linalg.norm(centre), rel=1e-3)


@pytest.fixture(scope="module")
def bent_table():
    spec = TableSpec.random(np.random.default_rng(12), n_boards=4, camera_cm=75)
    pinhole_frame, pinhole_truth = render_table(spec, np.random.default_rng(13))
    bent = dataclasses.replace(spec, lens_barrel=0.2)
    frame, truth = render_table(bent, np.random.default_rng(13))
    return spec, frame, truth, pinhole_frame, pinhole_truth


def test_a_lens_bends_the_frame_and_the_boards_corners(bent_table):
    spec, frame, truth, pinhole_frame, pinhole_truth = bent_table
    assert frame.shape == pinhole_frame.shape
    moved = max(float(np.abs(np.array(b.corners) - np.array(p.corners)).max())
                for b, p in zip(truth.boards, pinhole_truth.boards, strict=True))
    assert moved > 5.0  # a board away from the middle is drawn several pixels nearer it
    assert truth.dice_faces == pinhole_truth.dice_faces and truth.pirate_boxes == pinhole_truth.pirate_boxes


def test_a_table_seen_through_a_wide_lens_is_read(bent_table):
    # Twice the bend hardware.md gives the reference camera: every board found where it lies, its cells, the
    # dice and the track read as a pinhole camera's frame is.
    spec, frame, truth, _, _ = bent_table
    reader = TableReader()
    seen = reader.read(frame)
    boards = {b.seat: b for b in seen.boards}
    assert set(boards) == set(spec.seat_list)
    wrong = 0
    for seat, city, true in zip(spec.seat_list, spec.cities, truth.boards, strict=True):
        assert np.abs(np.array(boards[seat].corners) - np.array(true.corners)).max() < 3.0
        wrong += sum(boards[seat].city[i // 7][i % 7] != city[i // 7][i % 7] for i in DRAWABLE_INDEX
                     if ALL_CELLS[i] not in boards[seat].uncertain)
    assert wrong == 0
    assert sorted(seen.dice_faces) == sorted(truth.dice_faces)
    assert seen.pirate_boxes == truth.pirate_boxes
