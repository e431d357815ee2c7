"""A marker left lying on a board (``vision.synth.pen``, ``TableSpec.pen_on``): drawn where its truth says, over the
cells it covers, and nothing else on the table changes (``benchmarks/bench_mishaps.py`` measures what the camera
makes of it)."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from vision.synth.pen import PenLook, render_pen
from vision.synth.table import TableSpec, pen_cells, render_table


def _pen(centre: tuple[float, float], angle: float, length: float = 130.0, diameter: float = 14.0) -> PenLook:
    return PenLook(length_mm=length, diameter_mm=diameter, cap_mm=40.0, barrel=(235, 235, 232), cap=(40, 40, 190),
                   clip=True, centre_mm=centre, angle_deg=angle)


def test_a_pen_covers_the_cells_under_it():
    # Along row 4 from the middle of D4, 130 mm long: B4 to F4 (28 mm cells, the board's 7 x 7).
    assert pen_cells(_pen((98.0, 98.0), 0.0)) == ("B4", "C4", "D4", "E4", "F4")
    # Upright through D4: D2 to D6.
    assert pen_cells(_pen((98.0, 98.0), 90.0)) == ("D2", "D3", "D4", "D5", "D6")
    # A slim pen, corner to corner: a diagonal of cells and some of their neighbours, never a far cell.
    diagonal = pen_cells(_pen((98.0, 98.0), 45.0, length=140.0, diameter=10.0))
    assert {"C3", "D4", "E5"} <= set(diagonal) and not {"A7", "G1", "A1", "G7"} & set(diagonal)


def test_a_pen_picture_is_shaded_across_and_its_cap_has_the_ink_colour():
    image, alpha = render_pen(_pen((98.0, 98.0), 0.0), 4.0, np.random.default_rng(1))
    assert image.shape[:2] == alpha.shape == (round(15.5 * 4), round(130 * 4))
    middle, side = image[alpha.shape[0] // 2, 300], image[alpha.shape[0] // 2 - 24, 300]
    assert middle.mean() > side.mean() + 20, "darker at its sides"
    cap = image[alpha.shape[0] // 2 + 12, 60]
    assert cap[2] > cap[0] + 40, "the cap red (BGR)"
    assert alpha[0, alpha.shape[1] // 2] == 0 and alpha[0, 80] == 255, "the cap wider than the barrel"


def test_a_pen_is_drawn_over_its_board_and_changes_nothing_else():
    rng = np.random.default_rng(8)
    spec = TableSpec.random(rng, n_boards=3, camera_cm=75)
    clean, truth = render_table(spec, np.random.default_rng(1))
    penned, pen_truth = render_table(dataclasses.replace(spec, pen_on=1), np.random.default_rng(1))
    pen = pen_truth.extra["pen"]
    assert "pen" not in truth.extra and pen["seat"] == spec.seat_list[1] and len(pen["cells"]) >= 4
    assert pen_truth.boards == truth.boards, "the drawings under it are what was drawn"
    changed = cv2.absdiff(clean, penned).max(axis=2) > 25
    outline = np.array(pen["outline"], np.float32)
    near = np.zeros(changed.shape, np.uint8)
    cv2.fillConvexPoly(near, np.round(outline).astype(np.int32), 1)
    near = cv2.dilate(near, np.ones((41, 41), np.uint8)).astype(bool)  # and its shadow beside it
    assert changed[near].mean() > 0.2, "the pen is seen where it lies"
    assert not changed[~near].any(), "nothing else on the table moved"
