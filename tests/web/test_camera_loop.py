"""The camera thread end to end: an image replay source -> vision -> tracker -> the dashboard's data."""

from __future__ import annotations

import time

import numpy as np
import pytest

from companion.layout import empty_city
from web.camera_loop import CameraLoop
from web.service import TableService

pytest.importorskip("vision.pipeline", reason="vision pipeline not available")


def only_cell_changed(before: np.ndarray, after: np.ndarray, corners, col: int, row: int) -> np.ndarray:
    """``before`` with one cell taken from ``after``: what a camera sees when one cell is drawn.
    (render_table re-lights the whole synthetic table when its spec changes; a real room does not.)"""
    import cv2

    grid = np.float32([[0, 0], [7, 0], [7, 7], [0, 7]])
    to_frame = cv2.getPerspectiveTransform(grid, np.float32(corners))
    quad = np.float32([[[col, row]], [[col + 1, row]], [[col + 1, row + 1]], [[col, row + 1]]])
    mask = np.zeros(before.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, cv2.perspectiveTransform(quad, to_frame).astype(np.int32).reshape(-1, 2), 255)
    out = before.copy()
    out[mask > 0] = after[mask > 0]
    return out


def test_camera_loop_reads_a_replay_and_records_the_move(tmp_path):
    import cv2

    from vision.synth.table import TableSpec, render_table

    cities = [empty_city() for _ in range(2)]
    dice = ("cross", "cross", "log", "head", "swords")
    rng = np.random.default_rng(3)
    roll, _ = render_table(TableSpec(cities=tuple(tuple(c) for c in cities), dice=dice, seed=11), rng)
    drawn_city = list(cities[0])
    drawn_city[4] = drawn_city[4][:3] + "2" + drawn_city[4][4:]  # a church of 2 at D5
    redrawn, truth = render_table(TableSpec(cities=(tuple(drawn_city), tuple(cities[1])), dice=dice, seed=11), rng)
    drawn = only_cell_changed(roll, redrawn, truth.board(0).corners, col=3, row=4)
    paths = []
    for name, frame in (("roll", roll), ("drawn", drawn)):
        path = tmp_path / f"{name}.png"
        cv2.imwrite(str(path), frame)
        paths += [str(path)] * 20
    service = TableService(str(tmp_path / "data"))
    tracker = service.new_game(["Anke", "Ben"])
    loop = CameraLoop(service, ",".join(paths), hold_seconds=0.1, frame_interval=0.02)
    loop.start()
    try:
        deadline = time.monotonic() + 60
        while tracker.state.turn == 0 and tracker.dispute is None and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        loop.stop()
        loop.join(10)
    assert service.last_frame is not None and service.frame_counter >= 20
    assert service.camera_status in ("ok", "reconnecting", "missing")
    assert tracker.dispute is None, tracker.dispute
    assert tracker.state.players[0].city == drawn_city
    assert tracker.log[-1].kind == "move" and "church 2 D5" in tracker.log[-1].text
    assert tracker.state.pirate_boxes == 1  # the roll's one sword is marked by the engine

    service.close()
