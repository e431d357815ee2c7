"""Run every benchmark of the project, one after the other, and print their figures.

    .venv/bin/python benchmarks/run_all.py            # all
    .venv/bin/python benchmarks/run_all.py rules web  # only these (bench_<name>.py)
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    if argv:
        wanted = {f"bench_{name}.py" for name in argv}
        unknown = wanted - {s.name for s in scripts}
        if unknown:
            print(f"run_all: no such benchmark: {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        scripts = [s for s in scripts if s.name in wanted]
    failed = 0
    for script in scripts:
        print(f"== {script.name}", flush=True)
        failed += subprocess.call([sys.executable, str(script)], cwd=HERE.parent) != 0
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
