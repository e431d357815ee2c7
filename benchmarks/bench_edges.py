"""Boards pushed past the frame's edge: ``.venv/bin/python benchmarks/bench_edges.py [--tables 40] [--seed 5150]``.

A board at a crowded table's edge is often only partly in view. Each generated table (2-5 boards, the camera
75 cm up, the generator's first hands) is cut through the middle of one of its boards, at a random place across it,
keeping the side with two of its corners (a camera that sees a narrower table, or the board slid out), and read by
the whole pipeline as ``companion scan`` reads a photo. Prints, over the boards cut:

- how many were found (two markers are enough), how many of their drawable cells the reader reports out of view
  (``BoardReading.unseen``) and how many of those hold a drawing (lost to view, not misread);
- cells the reader reads as a drawing where the camera sees none of the cell (the warp's stretched edge read as
  a symbol) and, of those, how many it is sure of: the phantoms a tracker could take for a move;
- the cells in view misread, and the cells cut by the frame's edge but still read (a sliver cut off), misread.

Then the same tables cut through the middle of the pirate track: how many tracks are read with a count at all, and
how many with another count than the one marked (and of those, how many sure of it: what the dashboard would show);
and cut across the dice tray at a random place: how many trays give dice, five of them (what the tracker takes for a
roll), and five that are not the roll. And boards pushed over one another (a board of another generated table pasted
half over one of this table's): the cells reported unseen, and the cells misread outside them.

How the test data differs from the training data: the cell networks never saw a board cut by the frame's edge; the
cut's place is drawn at random. The rest is the generator's table as ``bench_frame`` renders it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.layout import ALL_CELLS, SIZE  # noqa: E402
from vision.cells.reader import DRAWABLE_INDEX  # noqa: E402
from vision.pipeline import TableReader  # noqa: E402
from vision.synth.table import TableSpec, cut_across, render_table  # noqa: E402


def _cell_x_ranges(corners: np.ndarray, offset: int) -> np.ndarray:
    """(49, 2): each cell's least and greatest x in the cut frame, from the board's true corners (A1, G1, G7, A7)."""
    import cv2

    board_to_frame = cv2.getPerspectiveTransform(np.float32([[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]]),
                                                 np.float32(corners))
    square = [(0, 0), (1, 0), (1, 1), (0, 1)]
    points = np.float32([[[i % SIZE + dx, i // SIZE + dy] for i in range(SIZE * SIZE) for dx, dy in square]])
    xs = cv2.perspectiveTransform(points, board_to_frame)[0, :, 0].reshape(SIZE * SIZE, 4) - offset
    return np.stack([xs.min(axis=1), xs.max(axis=1)], axis=1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--seed", type=int, default=5150)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    reader = TableReader(language="en")
    counts = dict.fromkeys(("boards", "found", "unseen", "unseen drawn", "phantoms", "sure phantoms",
                            "in view", "in view misread", "cut", "cut misread"), 0)
    for _ in range(args.tables):
        spec = TableSpec.random(rng, camera_cm=75)
        frame, truth = render_table(spec, rng)
        target = truth.boards[int(rng.integers(len(truth.boards)))]
        corners = np.array(target.corners)
        shown, offset = cut_across(frame, corners[:, 0], float(rng.uniform(0.3, 0.7)))
        reader.reset()  # another table: nothing remembered
        board = reader.read(shown).board(target.seat)
        counts["boards"] += 1
        if board is None:
            continue
        counts["found"] += 1
        ranges = _cell_x_ranges(corners, offset)
        width = shown.shape[1]
        unseen = set(board.unseen)
        for i in DRAWABLE_INDEX:
            name, (row, col) = ALL_CELLS[i], divmod(i, SIZE)
            want, got = target.city[row][col], board.city[row][col]
            x0, x1 = ranges[i]
            if name in unseen:
                counts["unseen"] += 1
                counts["unseen drawn"] += want != "."
            if x1 < 0 or x0 > width - 1:  # none of the cell in the frame
                phantom = got != "." and got != want
                counts["phantoms"] += phantom
                counts["sure phantoms"] += phantom and name not in board.uncertain
            elif name not in unseen:
                whole = x0 >= 0 and x1 <= width - 1
                key = "in view" if whole else "cut"
                counts[key] += 1
                counts[f"{key} misread"] += want != got
    print(f"{args.tables} tables at 75 cm, each cut through one board (seed {args.seed})")
    print(f"boards found: {counts['found']} of {counts['boards']}")
    print(f"cells reported out of view: {counts['unseen']} ({counts['unseen drawn']} of them hold a drawing)")
    print(f"cells wholly out of view read as a drawing: {counts['phantoms']} ({counts['sure phantoms']} of them not "
          "uncertain)")
    print(f"cells wholly in view misread: {counts['in view misread']} of {counts['in view']}")
    print(f"cells cut by the frame's edge, still read, misread: {counts['cut misread']} of {counts['cut']}")
    overlaps = _overlapping_boards(args.tables, args.seed + 2)
    print(f"boards half over another ({overlaps['pairs']} pairs, both found {overlaps['found']}): cells read unseen "
          f"{overlaps['unseen']}; cells misread {overlaps['misread']} ({overlaps['sure']} of them not uncertain), "
          f"{overlaps['under']} of them on the board beneath")
    tracks, trays = _cut_planes(args.tables, args.seed + 1)
    print(f"pirate tracks cut in half: {tracks['planes']}; read with a count {tracks['read']}, with another count than "
          f"marked {tracks['wrong']} ({tracks['sure wrong']} of them sure, confidence 0.9 or more)")
    print(f"dice trays cut across: {trays['planes']}; read with dice {trays['read']}, with five dice {trays['five']}, "
          f"five that are not the roll {trays['wrong']}")
    return 0


def _overlapping_boards(tables: int, seed: int) -> dict[str, int]:
    """``tables`` pairs of generated tables: a board of the second (seats 3 and 4) pasted over a board of the first,
    its outline shifted by 0.55-0.85 of a side along the lower one's top edge. Counts each pair's cells that are read
    otherwise than drawn outside the ones reported unseen (the lower board's read from the upper's print before)."""
    import cv2

    rng = np.random.default_rng(seed)
    reader = TableReader(language="en")
    counts = dict.fromkeys(("pairs", "found", "unseen", "misread", "sure", "under"), 0)
    for _ in range(tables):
        frame, truth = render_table(TableSpec.random(rng, n_boards=2, camera_cm=75), rng)
        other = TableSpec.random(rng, n_boards=2, camera_cm=75)
        over, over_truth = render_table(TableSpec(cities=other.cities, seats=(3, 4), seed=other.seed, camera_cm=75), rng)
        source = np.array(over_truth.boards[0].corners, np.float32)
        lower = np.array(truth.boards[0].corners, np.float32)
        shift = lower.mean(axis=0) - source.mean(axis=0) + (lower[1] - lower[0]) * float(rng.uniform(0.55, 0.85))
        moved = cv2.warpAffine(over, np.float32([[1, 0, shift[0]], [0, 1, shift[1]]]), (frame.shape[1], frame.shape[0]))
        mask = np.zeros(frame.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, np.int32(source + shift), 255)
        reader.reset()
        obs = reader.read(np.where(mask[:, :, None] > 0, moved, frame))
        counts["pairs"] += 1
        pair = [(obs.board(0), truth.boards[0], True), (obs.board(3), over_truth.boards[0], False)]
        if any(board is None for board, _, _ in pair):
            continue
        counts["found"] += 1
        for board, drawn, beneath in pair:
            unseen = set(board.unseen)
            counts["unseen"] += len(unseen)
            for i in DRAWABLE_INDEX:
                name, (row, col) = ALL_CELLS[i], divmod(i, SIZE)
                if name in unseen or board.city[row][col] == drawn.city[row][col]:
                    continue
                counts["misread"] += 1
                counts["sure"] += name not in board.uncertain
                counts["under"] += beneath
    return counts


def _cut_planes(tables: int, seed: int) -> tuple[dict[str, int], dict[str, int]]:
    """``tables`` generated tables, each cut through the middle of its pirate track and, in another frame, across its
    dice tray at a random place (keeping two of the plane's markers): the tracks' and the trays' counts."""
    import cv2

    from vision.dice.geometry import TRAY_LAYOUT
    from vision.marker_plane import detect_markers
    from vision.pipeline import KIT_LAYOUTS
    from vision.pirates.geometry import TRACK_LAYOUT

    rng = np.random.default_rng(seed)
    reader = TableReader(language="en")
    tracks = dict.fromkeys(("planes", "read", "wrong", "sure wrong"), 0)
    trays = dict.fromkeys(("planes", "read", "five", "wrong"), 0)
    for _ in range(tables):
        spec = TableSpec.random(rng, camera_cm=75)
        frame, truth = render_table(spec, rng)
        markers = detect_markers(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), KIT_LAYOUTS)
        for layout, share, counts in ((TRACK_LAYOUT, 0.5, tracks), (TRAY_LAYOUT, float(rng.uniform(0.3, 0.7)), trays)):
            ids = [m for m in layout.marker_origins if m in markers]
            if len(ids) < 4:
                continue  # (a sticker not found in the whole frame: no cut to make)
            reader.reset()
            obs = reader.read(cut_across(frame, np.array([markers[m].mean(axis=0)[0] for m in ids]), share)[0])
            counts["planes"] += 1
            if counts is tracks and obs.pirate_boxes is not None:
                wrong = obs.pirate_boxes != truth.pirate_boxes
                tracks["read"] += 1
                tracks["wrong"] += wrong
                tracks["sure wrong"] += wrong and float(obs.extra.get("pirates_confidence", 0.0)) >= 0.9
            elif counts is trays and obs.dice is not None:
                trays["read"] += 1
                trays["five"] += len(obs.dice) == 5
                trays["wrong"] += len(obs.dice) == 5 and sorted(obs.dice_faces) != sorted(truth.dice_faces)
    return tracks, trays


if __name__ == "__main__":
    raise SystemExit(main())
