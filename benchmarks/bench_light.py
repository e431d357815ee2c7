"""Whole tables under another light and through another camera: ``.venv/bin/python benchmarks/bench_light.py``.

    .venv/bin/python benchmarks/bench_light.py                     # 16 tables, every condition (about a minute)
    .venv/bin/python benchmarks/bench_light.py --tables 40 --only "bluish daylight" "defocus 1.0"

The same generated tables (two to four boards, the pirate track and a tray of a floor the dice reader never
trained on, the camera 60-90 cm up), each frame changed afterwards as a table's light or a camera changes it, and
read whole by the pipeline as a first frame (``TableReader.read``). Printed for each condition: cells misread (and
of those, how many the reader was sure of), the cells of boards not found at all, the dice read right (faces as a
multiset) and the pirate tracks read exactly.

How the test data differs from the training data: no network and no threshold was trained or chosen on these
changes. The generator's own light varies each colour channel by about a tenth and the brightness by a fifth; here
a tungsten lamp (blue 0.65, red 1.1) and a window's daylight (blue 1.12, red 0.8) tint the frame as a camera whose
white balance was locked at calibration sees them (``vision.camera_settings``), the room goes dim (0.45, with a
camera's noise) or bright (1.4, whites clipped), the tone curve bends (gamma 0.6, 1.6), the lens darkens the
corners (vignetting), the frame comes as a heavy JPEG (quality 35), out of focus (Gaussian blur of 1.0 and 1.3
px), or from a camera of half the resolution scaled up. The hands are the generator's first hands: a hand never
seen is ``bench_hands.py``'s figure, not this one's.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.layout import ALL_CELLS, SIZE  # noqa: E402
from vision.observation import Observation  # noqa: E402
from vision.pipeline import TableReader  # noqa: E402
from vision.synth.dice import HELD_OUT_FLOORS, TrayLook  # noqa: E402
from vision.synth.table import TableSpec, render_table  # noqa: E402

Change = Callable[[np.ndarray, np.random.Generator], np.ndarray]


def _scaled(frame: np.ndarray, gains: tuple[float, float, float]) -> np.ndarray:
    return np.clip(frame * np.array(gains, np.float32), 0, 255).astype(np.uint8)


def _vignetted(frame: np.ndarray, depth: float) -> np.ndarray:
    height, width = frame.shape[:2]
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    reach = ((x - width / 2) / (width / 2)) ** 2 + ((y - height / 2) / (height / 2)) ** 2  # 2 at the corners
    return np.clip(frame * (1 - depth * reach / 2)[..., None], 0, 255).astype(np.uint8)


def _jpeg(frame: np.ndarray, quality: int) -> np.ndarray:
    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


def _gamma(frame: np.ndarray, gamma: float) -> np.ndarray:
    return (255 * (frame / 255.0) ** gamma).astype(np.uint8)


CONDITIONS: dict[str, Change] = {
    "as rendered": lambda f, rng: f,
    "tungsten lamp": lambda f, rng: _scaled(f, (0.65, 0.92, 1.1)),
    "bluish daylight": lambda f, rng: _scaled(f, (1.12, 1.0, 0.8)),
    "dim and noisy": lambda f, rng: np.clip(f * 0.45 + rng.normal(0, 7, f.shape), 0, 255).astype(np.uint8),
    "overexposed": lambda f, rng: _scaled(f, (1.4, 1.4, 1.4)),
    "gamma 0.6": lambda f, rng: _gamma(f, 0.6),
    "gamma 1.6": lambda f, rng: _gamma(f, 1.6),
    "vignetting 0.5": lambda f, rng: _vignetted(f, 0.5),
    "JPEG quality 35": lambda f, rng: _jpeg(f, 35),
    "defocus 1.0": lambda f, rng: cv2.GaussianBlur(f, (0, 0), 1.0),
    "defocus 1.3": lambda f, rng: cv2.GaussianBlur(f, (0, 0), 1.3),
    "half resolution": lambda f, rng: cv2.resize(cv2.resize(f, (f.shape[1] // 2, f.shape[0] // 2),
                                                            interpolation=cv2.INTER_AREA), (f.shape[1], f.shape[0])),
}


def tables(n: int, seed: int) -> list[tuple[np.ndarray, Observation]]:
    """``n`` rendered tables (frame, truth): 2-4 boards, the camera 60-90 cm up, trays of the held-out floors."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        spec = TableSpec.random(rng, n_boards=int(rng.integers(2, 5)), camera_cm=float(rng.uniform(60, 90)),
                                tray=TrayLook(HELD_OUT_FLOORS[k % len(HELD_OUT_FLOORS)]))
        out.append(render_table(spec, rng))
    return out


def measure(reader: TableReader, scenes: list[tuple[np.ndarray, Observation]], change: Change,
            seed: int) -> dict[str, float]:
    """The reader's figures on ``scenes`` changed by ``change``, each read as another table's first frame."""
    rng = np.random.default_rng(seed)
    cells = misread = sure = lost = dice = dice_right = tracks = 0
    for frame, truth in scenes:
        reader.reset()
        seen = reader.read(change(frame, rng))
        boards = {b.seat: b for b in seen.boards}
        for board in truth.boards:
            read = boards.get(board.seat)
            for i, name in enumerate(ALL_CELLS):
                row, col = divmod(i, SIZE)
                if board.city[row][col] == "#":
                    continue
                cells += 1
                if read is None:
                    misread, lost = misread + 1, lost + 1
                elif read.city[row][col] != board.city[row][col]:
                    misread += 1
                    sure += name not in read.uncertain
        wanted, found = Counter(truth.dice_faces), Counter(d.face for d in seen.dice or ())
        dice += sum(wanted.values())
        dice_right += sum((wanted & found).values())
        tracks += seen.pirate_boxes == truth.pirate_boxes
    return {"misread": misread / cells, "sure": sure / cells, "lost": lost, "cells": cells,
            "dice": dice_right / max(dice, 1), "tracks": tracks, "tables": len(scenes)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--seed", type=int, default=5150)
    parser.add_argument("--only", nargs="+", choices=list(CONDITIONS), default=list(CONDITIONS))
    args = parser.parse_args()
    started = time.perf_counter()
    scenes = tables(args.tables, args.seed)
    reader = TableReader()
    print(f"{args.tables} tables (seed {args.seed}), each read whole under every condition")
    print(f"  {'condition':<18}{'cells misread':>15}{'of them sure':>14}{'cells of boards lost':>22}"
          f"{'dice right':>12}{'tracks exact':>14}")
    for name in args.only:
        got = measure(reader, scenes, CONDITIONS[name], args.seed + 1)
        print(f"  {name:<18}{got['misread']:>14.2%}{got['sure']:>14.2%}{got['lost']:>15} of {got['cells']:<5}"
              f"{got['dice']:>12.1%}{got['tracks']:>9}/{got['tables']}", flush=True)
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
