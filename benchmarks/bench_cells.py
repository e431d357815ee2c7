"""City-board reading benchmark: held-out synthetic boards through the whole path.

    .venv/bin/python benchmarks/bench_cells.py [--boards 200] [--seed 999]

Each board is rendered in a fresh random hand, photographed at 24-46 px a cell (hardware.md: the Pi
camera from 90 cm down to 50 cm; 29 px at the recommended 75 cm) with perspective up to 30 degrees,
light, shadow, glare, blur and noise, located by its markers with ``find_boards`` and read by
``CellReader``. Only the 41 spaces a player can draw on are counted.
Prints the per-cell error (target <= 0.1 %), the share of boards read without any error (target
>= 98 %), the same by distance (``--band-boards`` boards in each third of the camera's range), the
church accuracy on scikit-learn's ``load_digits`` test split drawn into churches (never seen in
training), and the time to locate and to read one board.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from vision.board import find_boards
from vision.board.dataset import photograph
from vision.cells.evaluate import evaluate
from vision.cells.reader import DEFAULT_MODEL_PATH, CellReader
from vision.synth.art import art_summary
from vision.synth.board import random_city, render_board

# The camera's range in three (hardware.md: 24 px a cell at 90 cm, 29 px at the recommended 75 cm).
DISTANCE_BANDS = ((24.0, 30.0), (30.0, 38.0), (38.0, 46.0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=200)
    parser.add_argument("--digit-boards", type=int, default=40)
    parser.add_argument("--seed", type=int, default=999)
    parser.add_argument("--band-boards", type=int, default=100,
                        help="boards for each distance band (0: none); where in the camera's range the misreads are")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL_PATH,
                        help="model file (default: the shipped one; vision/cells/model.npz is the older MLP)")
    args = parser.parse_args()

    reader = CellReader("en", model_path=args.model)
    print(f"model {args.model.name}")
    print(art_summary())
    t0 = time.perf_counter()
    report = evaluate(reader, args.boards, args.seed, digit_boards=args.digit_boards)
    elapsed = time.perf_counter() - t0
    print(f"held-out seed {args.seed}: {args.boards} boards + {args.digit_boards} with load_digits churches "
          f"({elapsed:.0f} s)")
    for line in report.lines():
        print("  " + line)

    for k, band in enumerate(DISTANCE_BANDS if args.band_boards else ()):
        part = evaluate(reader, args.band_boards, args.seed + 100 + k, cell_px_range=band)
        print(f"  at {band[0]:.0f}-{band[1]:.0f} px a cell: per-cell error "
              f"{part.cell_errors / max(part.cells, 1):.3%}, boards without error "
              f"{part.boards_perfect / max(part.boards, 1):.1%} ({part.boards} boards, {part.not_found} not found)")

    rng = np.random.default_rng(args.seed + 1)
    times = []
    for _ in range(20):
        board = render_board(random_city(rng), rng, seat=int(rng.integers(5)))
        photo = photograph(board.image, board.alpha, rng, frame_size=(1920, 1080), fill=(0.3, 0.4))
        t = time.perf_counter()
        find_boards(photo.frame)
        times.append(time.perf_counter() - t)
    print(f"  find_boards on a 1920x1080 frame: {1000 * np.median(times):.1f} ms (median of 20)")


if __name__ == "__main__":
    main()
