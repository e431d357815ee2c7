"""Synthetic photos of Saint Malo city boards drawn in dry-erase marker, with their truth.

Run from the repo root:
    .venv/bin/python vision/synth/sixth_renderer/render.py --out DIR --boards N --seed S [--start K] [--debug]
Board k uses numpy.random.default_rng([S, k]).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

if __package__ in (None, ""):  # run as a script: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from companion.layout import COLUMNS, LAYOUT, cell_index, empty_city  # noqa: E402
from vision.synth.sixth_renderer import fonts, symbols  # noqa: E402
from vision.synth.sixth_renderer.board import CELL, SIDE, print_board, smooth_noise  # noqa: E402
from vision.synth.sixth_renderer.pen import Hand, Pen  # noqa: E402
from vision.synth.sixth_renderer.photo import shoot  # noqa: E402

INKS = {  # multiplicative BGR tint of each marker colour
    "black": (0.13, 0.13, 0.15), "blue": (0.78, 0.35, 0.12), "red": (0.22, 0.2, 0.8), "green": (0.3, 0.55, 0.18),
}
INK_WEIGHTS = (0.4, 0.25, 0.15, 0.2)
PERSONS = "cspamjn"


def _side_dir(cell: str) -> str:
    """Which board edge an outer cell lies on (top, bottom, left, right)."""
    col, row = cell_index(cell)
    return "top" if row == 0 else "bottom" if row == 6 else "left" if col == 0 else "right"


def make_city(rng: np.random.Generator) -> list[list[str]]:
    """A plausible city: walls only on the outer ring, other things anywhere drawable."""
    grid = [list(r) for r in empty_city()]
    fill = float(rng.choice([rng.uniform(0.05, 0.35), rng.uniform(0.35, 0.75), rng.uniform(0.75, 1.0)]))
    outer = LAYOUT.outer_cells
    for side in LAYOUT.sides:
        all_walls = rng.random() < 0.15 + 0.3 * fill
        for cell in side.cells:
            col, row = cell_index(cell)
            if all_walls or rng.random() < fill:
                grid[row][col] = "W" if all_walls or rng.random() < 0.6 else _thing(rng)
    for cell in LAYOUT.spaces:
        col, row = cell_index(cell)
        if cell in outer or grid[row][col] != ".":
            continue
        if rng.random() < fill:
            grid[row][col] = _thing(rng)
    return grid


def _thing(rng: np.random.Generator) -> str:
    k = rng.choice(4, p=[0.28, 0.14, 0.28, 0.30])
    if k == 0:
        return "G"
    if k == 1:
        return "H"
    if k == 2:
        return str(rng.integers(1, 6))
    return PERSONS[rng.integers(len(PERSONS))]


def make_hand(rng: np.random.Generator) -> Hand:
    return Hand(width=float(rng.uniform(2.8, 6.5)), neat=float(rng.uniform(0.2, 1.0)),
                slant=float(rng.normal(0, 0.12)), size=float(rng.uniform(0.66, 0.9)),
                pressure=bool(rng.random() < 0.4))


def draw_cell(pen: Pen, item: str, cell: str, font_pool: tuple[str, ...]) -> str:
    col, row = cell_index(cell)
    box = (col * CELL, row * CELL, CELL)
    if item == "G":
        return symbols.crate(pen, box)
    if item == "W":
        return symbols.wall(pen, box, _side_dir(cell))
    if item == "H":
        return symbols.house(pen, box)
    if item in "12345":
        return symbols.church(pen, box, int(item), font_pool)
    return symbols.person(pen, box, item, font_pool)


def _streaks(rng: np.random.Generator) -> np.ndarray:
    """A dry marker's streaky coverage (1 = full ink)."""
    n = smooth_noise(rng, (SIDE // 20, SIDE), 1)
    n = cv2.resize(n, (SIDE, SIDE), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.5:
        n = n.T.copy()
    return np.clip(1 - rng.uniform(0.25, 0.6) * np.clip(n, 0, 2), 0.2, 1)


def ink_board(rng: np.random.Generator, flat: np.ndarray, grid: list[list[str]]) -> dict[str, str]:
    """Draws the city on the flat board in place; returns the styles by cell name."""
    hand = make_hand(rng)
    pool_all = fonts.available_fonts()
    font_pool = tuple(str(f) for f in rng.choice(pool_all, size=min(len(pool_all), int(rng.integers(1, 4))),
                                                 replace=False))
    colours = list(rng.choice(list(INKS), size=2, replace=False, p=INK_WEIGHTS))
    layers = [np.zeros((SIDE, SIDE), np.uint8) for _ in colours]
    second = rng.random() < 0.2  # sometimes a second marker for some cells
    styles: dict[str, str] = {}
    printed = set(LAYOUT.printed_crates)
    empties = []
    for row in range(7):
        for col in range(7):
            item, cell = grid[row][col], f"{COLUMNS[col]}{row + 1}"
            if item == "#" or cell in printed:
                continue
            if item == ".":
                empties.append(cell)
                continue
            layer = layers[1] if second and rng.random() < 0.3 else layers[0]
            pen = Pen(layer, rng, hand)
            pen.width = hand.width * rng.uniform(0.8, 1.2)
            pen.wobble = rng.uniform(0.6, 1.4)
            styles[cell] = draw_cell(pen, item, cell, font_pool)
    # half-erased ghosts on a few empty spaces
    if empties and rng.random() < 0.35:
        ghost = np.zeros((SIDE, SIDE), np.uint8)
        gp = Pen(ghost, rng, hand)
        for cell in rng.choice(empties, size=min(len(empties), int(rng.integers(1, 5))), replace=False):
            item = "W" if str(cell) in LAYOUT.outer_cells and rng.random() < 0.5 else _thing(rng)
            draw_cell(gp, item, str(cell), font_pool)
        g = cv2.GaussianBlur(ghost.astype(np.float32) / 255, (0, 0), rng.uniform(1.5, 4))
        wipe = np.clip(0.5 + smooth_noise(rng, (SIDE, SIDE), 10), 0, 1)
        layers_ghost = g * wipe * rng.uniform(0.12, 0.35)
    else:
        layers_ghost = None
    out = flat.astype(np.float32)
    for k, (name, layer) in enumerate(zip(colours, layers, strict=True)):
        a = layer.astype(np.float32) / 255 * rng.uniform(0.82, 0.97)
        if k == 0 and layers_ghost is not None:
            a = np.maximum(a, layers_ghost)
        if rng.random() < 0.3:  # dry, streaky marker
            a *= _streaks(rng)
        tint = np.asarray(INKS[name], np.float32) * rng.uniform(0.85, 1.15)
        out *= 1 - a[..., None] * (1 - np.clip(tint, 0, 1))
    flat[:] = np.clip(out, 0, 255).astype(np.uint8)
    return styles


def render_one(seed: int, k: int, out_dir: Path, debug: bool) -> dict:
    from vision.board.locate import find_boards

    rng = np.random.default_rng([seed, k])
    seat = int(rng.integers(0, 5))
    grid = make_city(rng)
    flat = print_board(rng, seat)
    styles = ink_board(rng, flat, grid)
    found = False
    for attempt in range(5):
        photo = shoot(rng, flat, gentle=attempt >= 3)
        if any(b.seat == seat for b in find_boards(photo)):
            found = True
            break
    name = f"board_{k:05d}.png"
    cv2.imwrite(str(out_dir / name), photo)
    if debug:
        dbg = out_dir / "debug"
        dbg.mkdir(exist_ok=True)
        cv2.imwrite(str(dbg / f"board_{k:05d}_flat.png"), flat)
    return {"image": name, "seat": seat, "city": ["".join(r) for r in grid], "styles": styles,
            "found": found, "shots": attempt + 1}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--boards", type=int, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--debug", action="store_true")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    cv2.setNumThreads(1)
    t0 = time.perf_counter()
    with open(args.out / "truth.jsonl", "a") as truth:
        for k in range(args.start, args.start + args.boards):
            tb = time.perf_counter()
            rec = render_one(args.seed, k, args.out, args.debug)
            truth.write(json.dumps(rec) + "\n")
            truth.flush()
            if args.debug:
                print(f"{rec['image']} seat {rec['seat']} found {rec['found']} shots {rec['shots']} "
                      f"{time.perf_counter() - tb:.3f}s", flush=True)
    n = max(1, args.boards)
    print(f"{args.boards} boards in {time.perf_counter() - t0:.1f}s ({(time.perf_counter() - t0) / n:.3f} s/board)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
