"""Dice on any plain tray: ``.venv/bin/python benchmarks/bench_dice.py`` (``--trays N`` per floor).

Prints the share of dice read right (found within 6 mm of its top face and its face right; missed and
spurious dice count as errors) per tray floor colour and per tray size / die size, how many of all the dice
were misread without doubt (what the tracker takes as seen), what was wrong (dice missed, found where there was
none, faces confused), and the die size the reader measured against the truth. ``--without-face-network``: the
same with the classifier on the faces' features alone, as read before the face network (``vision.dice.faces``).
Each tray is another table (nothing remembered), except on the last line: the smallest trays' 14 mm dice thrown
ten times on one table, read as the pipeline reads them (the dice's size measured before holds for a throw that
measures none) and each throw alone. Then (``--tables``) the dice of whole tables: two to five boards, the pirate
track and the reference tray in one frame from 75 cm, the tray found among them (a die by the tray's wall, far from
the frame's middle, leans out over the floor's edge).

How the test data differs from the training data (``vision.dice.train``, ``vision.synth.dice``):
- floors: the held-out floors (``HELD_OUT_FLOORS``: light grey, beige, dark grey, dark green felt, light
  wood, brown, orange, pink, purple) are never drawn in training; the five classic floors (green, blue
  and red felt, black, wood), which training draws, are reported apart, marked "(trained)"; a near-white floor
  (white paper, as light as the dice: hardware.md §1 advises against it), never drawn in training, marked "(near white)";
- sizes: training trays are 21.5-28.5 x 14.8-19.2 cm with dice of 15-19 mm; here each floor is read in
  three groups: the smallest tray of the range (20 x 14 cm) with 14 mm dice, the largest (30 x 20 cm)
  with 20 mm dice, and any tray of 20-30 x 14-20 cm with any dice of 14-20 mm (mostly outside training's);
- dice and views: another seed (other throws, turns, leans, lighting, camera heights 48-90 cm);
- whole tables: the reference tray (24 x 16 cm, 16 mm dice) on the floors training draws, but in whole-table frames,
  which training never draws (the tray anywhere in the frame, seen at a slant), at another seed.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.dice.evaluate import DiceReport, evaluate  # noqa: E402
from vision.dice.geometry import TRAY_LAYOUT  # noqa: E402
from vision.dice.reader import PX_PER_MM, DiceReader, TrayView, measure_die  # noqa: E402
from vision.marker_plane import detect_markers  # noqa: E402
from vision.observation import DOUBTFUL_DIE_BELOW  # noqa: E402
from vision.synth.dice import FLOOR_COLOURS, HELD_OUT_FLOORS, TrayLook, tray_scene  # noqa: E402
from vision.synth.table import TableSpec, render_table  # noqa: E402

CLASSIC_FLOORS = ("green felt", "blue felt", "red felt", "black", "wood")
# A floor nearly as white as the dice (hardware.md §1 asks for a darker one; the dashboard warns of it), never drawn in
# training: the dice are found there by their symbols (``vision.dice.reader.dice_by_symbols``).
NEAR_WHITE_FLOORS = ("white paper",)
assert len(CLASSIC_FLOORS) == len(FLOOR_COLOURS)

SIZE_GROUPS = {
    "20x14 cm, 14 mm dice": lambda floor, rng: TrayLook(floor, 200.0, 140.0, 14.0),
    "30x20 cm, 20 mm dice": lambda floor, rng: TrayLook(floor, 300.0, 200.0, 20.0),
    "any 20-30 x 14-20 cm, 14-20 mm": lambda floor, rng: TrayLook(
        floor, float(rng.uniform(200, 300)), float(rng.uniform(140, 200)), float(rng.uniform(14, 20))),
}


def new_reader(face_network: bool = True) -> DiceReader:
    """A reader with the face network's reading multiplied in, or (``face_network`` False) the classifier alone."""
    reader = DiceReader()
    if not face_network:
        reader.face_network = None
    return reader


def die_size_errors(n_trays: int, seed: int) -> np.ndarray:
    """Measured die side less the true one (mm) on trays of held-out floors and any size."""
    rng = np.random.default_rng(seed)
    reader = DiceReader()
    errors = []
    for k in range(n_trays):
        floor = HELD_OUT_FLOORS[k % len(HELD_OUT_FLOORS)]
        look = SIZE_GROUPS["any 20-30 x 14-20 cm, 14-20 mm"](floor, rng)
        frame, _, _ = tray_scene(rng, look=look)
        reader.forget()
        plane = reader.locate(frame, detect_markers(frame, (TRAY_LAYOUT,)))
        measured = None if plane is None else measure_die(plane.rectify(frame, PX_PER_MM), TrayView(plane.layout))
        errors.append(np.nan if measured is None else measured - look.die_mm)
    return np.array(errors)


def same_table(n_tables: int, throws: int, seed: int,
               face_network: bool = True) -> tuple[list[DiceReport], list[DiceReport]]:
    """The smallest trays' 14 mm dice thrown ``throws`` times on each of ``n_tables`` tables a floor (every
    floor): (read by one reader a table, as the pipeline does: the dice measured before held (``dice_side``);
    the same frames each read alone)."""
    kept = new_reader(face_network)
    alone = DiceReader(kept.classifier, face_network=kept.face_network)  # the same networks, loaded once
    alone.face_network = kept.face_network  # (None: the classifier alone, as ``kept`` reads)
    reports: tuple[list[DiceReport], list[DiceReport]] = ([], [])
    for k, floor in enumerate((*HELD_OUT_FLOORS, *CLASSIC_FLOORS)):
        look = TrayLook(floor, 200.0, 140.0, 14.0)
        for t in range(n_tables):
            kept.forget()
            for reader, out in zip((kept, alone), reports, strict=True):
                out.append(evaluate(throws, seed + 100 * k + t, look=lambda rng, look=look: look, reader=reader,
                                    remember=reader is kept))
    return reports


def whole_tables(n_tables: int, seed: int, camera_cm: float = 75.0,
                 face_network: bool = True) -> tuple[int, int, int, int]:
    """(dice read right, dice thrown, trays with every die right, faces read without doubt that the tray does not
    show) on ``n_tables`` whole tables (``TableSpec.random``: two to five boards, the track and the tray in one
    frame from ``camera_cm``, dice touching in three trays of ten), the tray found among the boards as the
    pipeline finds it. Faces are compared as multisets (the table's truth does not place its dice): a die counts
    wrong when its face is missing from the faces read."""
    rng = np.random.default_rng(seed)
    reader = new_reader(face_network)
    right = thrown = exact = sure_wrong = 0
    for _ in range(n_tables):
        spec = TableSpec.random(rng, camera_cm=camera_cm)
        frame, truth = render_table(spec, rng)
        reader.forget()
        readings = reader.read(frame) or ()
        read = Counter(d.face for d in readings)
        wanted = Counter(truth.dice_faces)
        wrong = max(sum((wanted - read).values()), sum((read - wanted).values()))
        thrown += len(truth.dice_faces)
        right += len(truth.dice_faces) - wrong
        exact += wrong == 0
        sure = Counter(d.face for d in readings if d.confidence >= DOUBTFUL_DIE_BELOW)
        sure_wrong += sum((sure - wanted).values())
    return right, thrown, exact, sure_wrong


def tally(reports: list[DiceReport]) -> tuple[int, int]:
    """(dice read right, dice there were to read: those thrown and the spurious ones) over ``reports``."""
    return sum(r.right for r in reports), sum(r.dice + r.spurious for r in reports)


def _percent(right: int, dice: int) -> float:
    return 100 * right / max(dice, 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trays", type=int, default=30, help="trays per floor and size group (5 dice each)")
    parser.add_argument("--seed", type=int, default=20_261_124)
    parser.add_argument("--camera-processing", action="store_true",
                        help="every frame demosaiced, sharpened and JPEG-compressed as a webcam sends it (the same trays)")
    parser.add_argument("--tables", type=int, default=150, help="whole tables read for their dice (0: none)")
    parser.add_argument("--without-face-network", action="store_true",
                        help="the classifier on the faces' features alone, as before the face network (to compare)")
    args = parser.parse_args(argv)
    face_network = not args.without_face_network
    if args.tables < 0:
        print("bench_dice: --tables must be 0 or more", file=sys.stderr)
        return 2
    if args.trays < 1:
        print("bench_dice: --trays must be at least 1", file=sys.stderr)
        return 2
    reader = new_reader(face_network)
    t0 = time.perf_counter()
    by_size: dict[str, list[DiceReport]] = {name: [] for name in SIZE_GROUPS}
    total = [0, 0]
    print(f"dice read right, {args.trays} trays (5 dice) per floor and size group, camera 48-90 cm"
          + (", every frame demosaiced, sharpened and JPEG-compressed as a webcam sends it:" if args.camera_processing
             else ":"))
    floors = (*HELD_OUT_FLOORS, *CLASSIC_FLOORS, *NEAR_WHITE_FLOORS)
    for f, floor in enumerate(floors):
        reports = []
        for g, (name, make) in enumerate(SIZE_GROUPS.items()):
            seed = args.seed + 1000 * g + f
            report = evaluate(args.trays, seed, look=lambda rng, make=make, floor=floor: make(floor, rng), reader=reader,
                              camera_processing=args.camera_processing)
            reports.append(report)
            by_size[name].append(report)
        right, dice = tally(reports)
        total[0] += right
        total[1] += dice
        trained = " (trained)" if floor in CLASSIC_FLOORS else " (near white)" if floor in NEAR_WHITE_FLOORS else ""
        detail = ", ".join(f"{r.right}/{r.dice + r.spurious}" for r in reports)
        print(f"  {floor + trained:24s} {_percent(right, dice):7.2f} %  ({detail})")
    print("by tray and die size (every floor):")
    for name, reports in by_size.items():
        right, dice = tally(reports)
        print(f"  {name:32s} {_percent(right, dice):7.2f} %  ({right}/{dice})")
    every = [r for reports in by_size.values() for r in reports]
    sure = sum(r.misread_sure for r in every)
    doubted = sum(r.right_doubted for r in every)
    print(f"all: {_percent(*total):.3f} % of {total[1]} dice right; misread or spurious without doubt: {sure} "
          f"({_percent(sure, total[1]):.3f} %); read right but doubtful: {doubted} ({_percent(doubted, total[1]):.2f} %)")
    confusions = sum((r.confusions for r in every), Counter())
    missed, spurious = sum(r.missed for r in every), sum(r.spurious for r in every)
    print(f"what was wrong: {missed} missed, {spurious} found where there was none, faces confused (true -> read): "
          + (", ".join(f"{a}->{b} {n}" for (a, b), n in confusions.most_common()) or "none"))
    errors = die_size_errors(max(args.trays, 20), args.seed + 7)
    seen = errors[np.isfinite(errors)]
    print(f"die size measured: {len(seen)}/{len(errors)} trays, error median {np.median(np.abs(seen)):.2f} mm, "
          f"95th percentile {np.percentile(np.abs(seen), 95):.2f} mm, worst {np.abs(seen).max():.2f} mm")
    (over_right, over_dice), (each_right, each_dice) = (tally(r) for r in same_table(2, 10, args.seed + 11,
                                                                                        face_network))
    print(f"the same table over 10 throws (20x14 cm, 14 mm dice, 2 tables a floor): {_percent(over_right, over_dice):.2f} % "
          f"({over_right}/{over_dice}) with the dice measured before held, "
          f"{_percent(each_right, each_dice):.2f} % ({each_right}/{each_dice}) each throw read alone")
    if args.tables:
        right, thrown, exact, sure_wrong = whole_tables(args.tables, args.seed + 13, face_network=face_network)
        print(f"whole tables from 75 cm ({args.tables}, the reference tray among the boards): {_percent(right, thrown):.2f} % "
              f"({right}/{thrown}) of the dice right, {exact} trays all right; faces read without doubt that the tray "
              f"does not show: {sure_wrong}")
    print(f"({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
