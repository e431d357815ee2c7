"""Evaluate board localisation on synthetic photos (markers, and single boards without markers).

    .venv/bin/python -m vision.board.evaluate --photos 100 --seed 7

Prints, for marker boards and for marker-less single boards, how often the board is found, the corner
error in cells (median / 95th percentile / worst) and the share within 0.1 and 0.25 cell.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from vision.board.dataset import photograph, rectified_error
from vision.board.locate import find_boards, find_single_board
from vision.synth.board import random_city, render_board


def _summary(name: str, errors: list[float], missed: int, seconds: list[float]) -> str:
    e = np.array(errors) if errors else np.array([np.inf])
    return (f"{name}: found {len(errors)}/{len(errors) + missed}, corner error (cells) median {np.median(e):.3f} "
            f"p95 {np.percentile(e, 95):.3f} max {e.max():.3f}; <=0.1 cell {np.mean(e <= 0.1):.1%}, "
            f"<=0.25 cell {np.mean(e <= 0.25):.1%}; {1000 * np.median(seconds):.0f} ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Evaluate board localisation.")
    parser.add_argument("--photos", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--tilt", type=float, default=35.0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    marker_err, single_err, marker_t, single_t = [], [], [], []
    marker_missed = single_missed = 0
    for _ in range(args.photos):
        city = random_city(rng)
        seat = int(rng.integers(5))
        board = render_board(city, rng, seat=seat)
        photo = photograph(board.image, board.alpha, rng, tilt_deg=args.tilt)
        t = time.perf_counter()
        found = [b for b in find_boards(photo.frame) if b.seat == seat]
        marker_t.append(time.perf_counter() - t)
        if found:
            marker_err.append(rectified_error(found[0].corners, photo.corners))
        else:
            marker_missed += 1
        plain = render_board(city, rng)
        photo = photograph(plain.image, plain.alpha, rng, tilt_deg=args.tilt * 0.6)
        t = time.perf_counter()
        single = find_single_board(photo.frame)
        single_t.append(time.perf_counter() - t)
        if single is not None:
            single_err.append(rectified_error(single.corners, photo.corners))
        else:
            single_missed += 1
    print(_summary("markers", marker_err, marker_missed, marker_t))
    print(_summary("single board", single_err, single_missed, single_t))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
