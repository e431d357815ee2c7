"""Evaluate the dice reader end to end on held-out synthetic trays: ``python -m vision.dice.evaluate``.

A die counts as right only when it is found (its top face within MATCH_MM of where the reader puts
it) and its face is read right; missed and spurious dice count as errors. Also reports the share of
trays whose five faces are all right.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from dataclasses import dataclass

import numpy as np

from vision.dice.reader import DiceReader
from vision.marker_plane import detect_markers
from vision.synth.dice import tray_scene

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

    @property
    def accuracy(self) -> float:
        return self.right / max(self.dice + self.spurious, 1)

    def lines(self) -> list[str]:
        out = [
            f"dice faces right: {self.right}/{self.dice} ({100 * self.accuracy:.3f} %, spurious {self.spurious}, "
            f"missed {self.missed})",
            f"trays all right: {self.trays_exact}/{self.trays} ({100 * self.trays_exact / max(self.trays, 1):.2f} %)",
            f"reader time: {self.ms_per_tray:.1f} ms per tray view",
        ]
        if self.confusions:
            out.append("confusions (true -> read): " + ", ".join(f"{a}->{b}: {n}" for (a, b), n in self.confusions.most_common()))
        return out


def evaluate(n_trays: int = 400, seed: int = 1_000_003, touching: bool | None = None) -> DiceReport:
    rng = np.random.default_rng(seed)
    reader = DiceReader()
    report = DiceReport(0, 0, 0, 0, 0, 0, Counter(), 0.0)
    spent = 0.0
    for _ in range(n_trays):
        frame, dice, _ = tray_scene(rng, touching=touching)
        t0 = time.perf_counter()
        readings = reader.read(frame, detect_markers(frame)) or ()
        spent += time.perf_counter() - t0
        report.trays += 1
        report.dice += len(dice)
        tops = np.array([d.top_mm for d in dice])
        used: set[int] = set()
        right_here = 0
        for reading in readings:
            dist = np.hypot(*(tops - np.array(reading.centre)).T)
            j = int(np.argmin(dist))
            if dist[j] > MATCH_MM or j in used:
                report.spurious += 1
                continue
            used.add(j)
            if reading.face == dice[j].face:
                right_here += 1
            else:
                report.confusions[(dice[j].face, reading.face)] += 1
        report.right += right_here
        report.missed += len(dice) - len(used)
        report.trays_exact += right_here == len(dice) == len(readings)
    report.ms_per_tray = 1000 * spent / max(n_trays, 1)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trays", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1_000_003)
    args = parser.parse_args(argv)
    for line in evaluate(args.trays, args.seed).lines():
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
