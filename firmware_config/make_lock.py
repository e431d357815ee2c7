"""Write requirements.lock: the exact versions of the runtime dependencies (pyproject's ``dependencies`` and
everything they pull in), read from the environment this runs in.

    .venv/bin/python firmware_config/make_lock.py > requirements.lock

install.sh and .ci/run install from the lock first, so a Pi set up next year gets the versions the tests
passed with, not whatever is newest that day.
"""

from __future__ import annotations

import sys
import tomllib
from importlib.metadata import distribution
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]


def runtime_closure() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pinned: dict[str, str] = {}

    def walk(name: str) -> None:
        dist = distribution(name)
        key = dist.metadata["Name"].lower().replace("_", "-")
        if key in pinned:
            return
        pinned[key] = dist.version
        for raw in dist.requires or []:
            req = Requirement(raw)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                walk(req.name)

    for raw in project["dependencies"]:
        walk(Requirement(raw).name)
    return pinned


def main() -> int:
    print("# Runtime dependencies, exact versions (firmware_config/make_lock.py writes this file).")
    print(f"# Python {sys.version_info.major}.{sys.version_info.minor}; used by firmware_config/install.sh and .ci/run.")
    for name, version in sorted(runtime_closure().items()):
        print(f"{name}=={version}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
