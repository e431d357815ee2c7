"""Evaluate board localisation on synthetic photos (markers, and single boards without markers).

    .venv/bin/python -m vision.board.evaluate --photos 100 --seed 7
    .venv/bin/python -m vision.board.evaluate --photos 400 --seed 2025 --single-only
    .venv/bin/python -m vision.board.evaluate --measure-print   # re-measure locate.PRINTED_CROSSINGS

Prints, for marker boards and for marker-less single boards, how often the board is found and the right
way round, the corner error in cells of the boards found (median / 95th percentile / worst), the share of
all photos located within 0.1 and 0.25 cell (a board missed or read the wrong way round counts as
located nowhere), and the median time a photo (wall clock and CPU of this process). A third line: the same
kind of board in a picture it fills (``filling_picture``: a scan, or a photo cropped to the board about square
to it), where no table shows around the board to find its outline against.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import TypeVar

import cv2
import numpy as np

from companion.layout import SIZE
from vision.board.dataset import BoardPhoto, photograph, rectified_error
from vision.board.locate import (
    EVEN_CROSSINGS,
    PRINTED_CROSSINGS,
    _find_crossings,
    find_boards,
    find_single_board,
)
from vision.synth.art import reference_art_dir
from vision.synth.board import random_city, render_board

Located = TypeVar("Located")
WRONG_WAY_ROUND = 3.0  # cells: a corner error this large means A1 was put at another corner


def _summary(name: str, errors: list[float], wall: list[float], cpu: list[float]) -> str:
    e = np.array(errors)  # inf where the board was not found
    found = e[np.isfinite(e)]
    right_way = found[found < WRONG_WAY_ROUND]
    spread = (f"median {np.median(right_way):.3f} p95 {np.percentile(right_way, 95):.3f} max {right_way.max():.3f}"
              if right_way.size else "none")
    return (f"{name}: found {found.size}/{e.size}, wrong way round {found.size - right_way.size}; "
            f"corner error (cells) {spread}; of all photos <=0.1 cell {np.mean(e <= 0.1):.1%}, "
            f"<=0.25 cell {np.mean(e <= 0.25):.1%}; {1000 * np.median(wall):.0f} ms wall, "
            f"{1000 * np.median(cpu):.0f} ms CPU a photo")


def filling_picture(board: np.ndarray, alpha: np.ndarray, rng: np.random.Generator, tilt_deg: float
                    ) -> tuple[np.ndarray, np.ndarray]:
    """A photo of the board cut to the board (turned any quarter, give or take 4 degrees, as a scan or a
    cropped photo is): its bounding box, up to 3 % of a side further in or 1 % out. Returns (picture, the
    board's corners in it)."""
    rotation = 90.0 * int(rng.integers(4)) + float(rng.uniform(-4, 4))
    photo = photograph(board, alpha, rng, tilt_deg=tilt_deg, rotation_deg=rotation)
    return cropped_to_board(photo, inside=float(rng.uniform(-0.01, 0.03)))


def cropped_to_board(photo: BoardPhoto, inside: float) -> tuple[np.ndarray, np.ndarray]:
    """The photo cut to the board's bounding box, ``inside`` of its width further in (out when negative): no
    table shows around it. Returns (picture, the board's corners in it)."""
    corners = photo.corners
    cut = inside * float(np.ptp(corners[:, 0]))
    x0, y0 = (int(max(v + cut, 0)) for v in corners.min(axis=0))
    x1, y1 = (int(v - cut) for v in corners.max(axis=0))
    return photo.frame[y0:y1, x0:x1], corners - np.array([x0, y0], np.float32)


def _timed(locate: Callable[[np.ndarray], Located], frame: np.ndarray, wall: list[float], cpu: list[float]
           ) -> Located:
    t, c = time.perf_counter(), time.process_time()
    result = locate(frame)
    wall.append(time.perf_counter() - t)
    cpu.append(time.process_time() - c)
    return result


def measure_print(cell_sizes: tuple[int, ...] = (48, 64, 96), blurs: tuple[float, ...] = (0.0, 0.8, 1.5)
                  ) -> np.ndarray:
    """Where the printed grid lines cross on the board's scan (``reference-art/city-board.png``), in cells,
    as ``locate``'s own line finder sees them: the mean over a few sizes and blurs of the scan."""
    path = reference_art_dir() / "city-board.png"
    art = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if art is None or art.ndim != 3:
        raise SystemExit(f"{path}: the board's scan is needed to measure its print")
    found = []
    for cell in cell_sizes:
        side, pad = SIZE * cell, cell
        scan = cv2.resize(art, (side, side), interpolation=cv2.INTER_AREA)
        alpha = scan[:, :, 3] / 255.0 if scan.shape[2] == 4 else np.ones((side, side))
        gray = np.full((side + 2 * pad, side + 2 * pad), 90.0)  # a plain grey table around it
        gray[pad:pad + side, pad:pad + side] = (cv2.cvtColor(scan[:, :, :3], cv2.COLOR_BGR2GRAY) * alpha
                                                + 90.0 * (1 - alpha))
        board_to_frame = np.array([[cell, 0, pad], [0, cell, pad], [0, 0, 1.0]])
        for blur in blurs:
            image = cv2.GaussianBlur(gray, (0, 0), blur) if blur else gray
            # Start from an even lattice: the print is within 0.15 cell of it.
            crossings = _find_crossings(image.astype(np.uint8), board_to_frame, EVEN_CROSSINGS, 0.25, 64)
            found.append(np.where(crossings.seen[:, :, None], crossings.board, np.nan))
    return np.nanmean(found, axis=0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Evaluate board localisation.")
    parser.add_argument("--photos", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--tilt", type=float, default=35.0)
    parser.add_argument("--single-only", action="store_true",
                        help="only the boards without markers (the same photos as without this flag)")
    parser.add_argument("--measure-print", action="store_true",
                        help="measure where the board's printed grid lines cross, for locate.PRINTED_CROSSINGS")
    args = parser.parse_args(argv)
    if args.measure_print:
        measured = measure_print()
        print(np.array2string(measured, precision=3, separator=", ", floatmode="fixed"))
        print(f"largest change from locate.PRINTED_CROSSINGS: {np.abs(measured - PRINTED_CROSSINGS).max():.3f} cell")
        return 0
    rng = np.random.default_rng(args.seed)
    marker_err: list[float] = []
    single_err: list[float] = []
    marker_wall: list[float] = []
    marker_cpu: list[float] = []
    single_wall: list[float] = []
    single_cpu: list[float] = []
    filling_err: list[float] = []
    filling_wall: list[float] = []
    filling_cpu: list[float] = []
    # Its own stream: the marker and single-board photos are the same with or without it.
    filling_rng = np.random.default_rng([args.seed, 1])
    for _ in range(args.photos):
        city = random_city(rng)
        seat = int(rng.integers(5))
        board = render_board(city, rng, seat=seat)
        photo = photograph(board.image, board.alpha, rng, tilt_deg=args.tilt)
        if not args.single_only:
            found = [b for b in _timed(find_boards, photo.frame, marker_wall, marker_cpu) if b.seat == seat]
            marker_err.append(rectified_error(found[0].corners, photo.corners) if found else np.inf)
        plain = render_board(city, rng)
        photo = photograph(plain.image, plain.alpha, rng, tilt_deg=args.tilt * 0.6)
        single = _timed(find_single_board, photo.frame, single_wall, single_cpu)
        single_err.append(rectified_error(single.corners, photo.corners) if single is not None else np.inf)
        plain = render_board(random_city(filling_rng), filling_rng)
        picture, corners = filling_picture(plain.image, plain.alpha, filling_rng, tilt_deg=args.tilt * 0.3)
        filled = _timed(find_single_board, picture, filling_wall, filling_cpu)
        filling_err.append(rectified_error(filled.corners, corners) if filled is not None else np.inf)
    if not args.single_only:
        print(_summary("markers", marker_err, marker_wall, marker_cpu))
    print(_summary("single board", single_err, single_wall, single_cpu))
    print(_summary("single board filling the picture", filling_err, filling_wall, filling_cpu))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
