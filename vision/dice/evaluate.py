"""Evaluate the dice reader end to end on held-out synthetic trays: ``python -m vision.dice.evaluate``.

A die counts as right only when it is found (its top face within MATCH_MM of where the reader puts
it) and its face is read right; missed and spurious dice count as errors. Also reports the share of
trays whose five faces are all right. The tray's markers are looked for as the pipeline does (a second
look for those the first misses). Trays are seen from every height the camera may hang at
(``vision.synth.dice.camera_px_per_mm``), or with ``--camera-cm`` from the given heights one by one.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from vision.dice.geometry import TRAY_LAYOUT
from vision.dice.reader import DiceReader
from vision.marker_plane import detect_markers
from vision.observation import DOUBTFUL_DIE_BELOW
from vision.synth.dice import TrayLook, tray_scene
from vision.synth.table import px_per_mm_at

MATCH_MM = 6.0


@dataclass
class DiceReport:
    dice: int
    right: int
    missed: int
    spurious: int
    trays: int
    trays_exact: int
    confusions: Counter[tuple[str, str]]
    ms_per_tray: float
    trays_unseen: int = 0  # no tray located (its markers not found): all its dice missed
    # Faces misread or dice found where there was none, read without doubt (confidence at least
    # DOUBTFUL_DIE_BELOW): what the tracker takes as seen. A doubtful die makes it wait for a steadier view.
    misread_sure: int = 0
    right_doubted: int = 0  # faces read right, but doubtfully: the price of the doubt (the tracker waits longer)

    @property
    def accuracy(self) -> float:
        return self.right / max(self.dice + self.spurious, 1)

    def lines(self) -> list[str]:
        out = [
            f"dice faces right: {self.right}/{self.dice} ({100 * self.accuracy:.3f} %, spurious {self.spurious}, "
            f"missed {self.missed}; misread or spurious without doubt: {self.misread_sure}; read right but doubtful: "
            f"{self.right_doubted})",
            f"trays all right: {self.trays_exact}/{self.trays} ({100 * self.trays_exact / max(self.trays, 1):.2f} %), "
            f"not located: {self.trays_unseen}",
            f"reader time: {self.ms_per_tray:.1f} ms per tray view (rectify and read; markers found beforehand)",
        ]
        if self.confusions:
            out.append("confusions (true -> read): " + ", ".join(f"{a}->{b}: {n}" for (a, b), n in self.confusions.most_common()))
        return out


def evaluate(
    n_trays: int = 400, seed: int = 1_000_003, touching: bool | None = None, camera_cm: float | None = None,
    look: Callable[[np.random.Generator], TrayLook] | None = None, reader: DiceReader | None = None,
    remember: bool = False, camera_processing: bool = False,
) -> DiceReport:
    """The reader on ``n_trays`` synthetic trays; with ``camera_cm``, seen from that height (+-10 %, where
    the tray lies in the frame); with ``look``, trays it draws (floor, size, dice), else the reference
    tray of the drawn floors. Each tray is another table unless ``remember`` (throws on one table: the
    reader keeps what it measured of the tray and dice). ``camera_processing``: every frame as a webcam sends it
    (``tray_scene``), the very same trays."""
    rng = np.random.default_rng(seed)
    reader = reader or DiceReader()
    report = DiceReport(0, 0, 0, 0, 0, 0, Counter(), 0.0)
    spent = 0.0
    for _ in range(n_trays):
        px_per_mm = None if camera_cm is None else px_per_mm_at(camera_cm) * float(rng.uniform(0.9, 1.1))
        tray_look = None if look is None else look(rng)
        frame, dice, _ = tray_scene(rng, touching=touching, px_per_mm=px_per_mm, look=tray_look,
                                    camera_processing=camera_processing)
        markers = detect_markers(frame, (TRAY_LAYOUT,))
        if not remember:
            reader.forget()  # another table: nothing remembered of the last tray and dice
        t0 = time.perf_counter()
        readings = reader.read(frame, markers)
        spent += time.perf_counter() - t0
        report.trays_unseen += readings is None
        readings = readings or ()
        report.trays += 1
        report.dice += len(dice)
        tops = np.array([d.top_mm for d in dice])
        used: set[int] = set()
        right_here = 0
        for reading in readings:
            dist = np.hypot(*(tops - np.array(reading.centre)).T)
            j = int(np.argmin(dist))
            sure = reading.confidence >= DOUBTFUL_DIE_BELOW
            if dist[j] > MATCH_MM or j in used:
                report.spurious += 1
                report.misread_sure += sure
                continue
            used.add(j)
            if reading.face == dice[j].face:
                right_here += 1
                report.right_doubted += not sure
            else:
                report.confusions[(dice[j].face, reading.face)] += 1
                report.misread_sure += sure
        report.right += right_here
        report.missed += len(dice) - len(used)
        report.trays_exact += right_here == len(dice) == len(readings)
    report.ms_per_tray = 1000 * spent / max(n_trays, 1)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trays", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1_000_003)
    parser.add_argument("--camera-cm", type=float, nargs="*", default=None,
                        help="report these camera heights one by one (hardware.md: 60-90 cm)")
    args = parser.parse_args(argv)
    for camera_cm in args.camera_cm or [None]:
        if camera_cm is not None:
            print(f"camera {camera_cm:g} cm above the table ({px_per_mm_at(camera_cm):.3f} px/mm):")
        for line in evaluate(args.trays, args.seed, camera_cm=camera_cm).lines():
            print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
