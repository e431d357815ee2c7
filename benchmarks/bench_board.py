"""Board localisation figures: ``.venv/bin/python benchmarks/bench_board.py [--photos 300]``.

Generated phone-style photos of one board, each located twice: by its markers, and without them
(``find_single_board``: outline, then the printed grid). Prints how many are found, the right way round
and within 0.1 cell (a miss or a wrong rotation counts as a failure), and the time per photo.
Seed 4242 was never used while tuning the finder.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.board.evaluate import main as evaluate  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=300)
    parser.add_argument("--seed", type=int, default=4242)
    args = parser.parse_args()
    return evaluate(["--photos", str(args.photos), "--seed", str(args.seed)])


if __name__ == "__main__":
    raise SystemExit(main())
