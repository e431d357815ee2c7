"""Where the reference pictures of the real components are (``shared/reference-art``).

Used at generation time only; the pictures are never packaged. Looked up in this order:
``$COMPANION_REFERENCE_ART``; ``shared/reference-art`` beside this repository; and, for a local clone
made for a test run (``git clone . /tmp/x``), the folder beside the repository it was cloned from.
Without them the generators draw look-alikes.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from vision.observation import DIE_FACES

REPO = Path(__file__).resolve().parents[2]
BOARD_ART = "city-board.png"
DIE_ART = "die-{face}.png"


def _beside(repo: Path) -> Path:
    return repo.parent / "shared" / "reference-art"


def reference_art_dir() -> Path:
    env = os.environ.get("COMPANION_REFERENCE_ART")
    if env:
        return Path(env)
    here = _beside(REPO)
    if here.is_dir() or not (REPO / ".git").exists():
        return here
    try:
        origin = subprocess.run(
            ["git", "-C", str(REPO), "config", "--get", "remote.origin.url"],
            capture_output=True, text=True, timeout=5, check=False,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return here
    if origin and Path(origin).is_dir() and _beside(Path(origin)).is_dir():
        return _beside(Path(origin))
    return here


def art_summary() -> str:
    """One line for a benchmark's output: which pictures the generators drew on. Figures measured with
    the reference art and without it differ (look-alikes are easier), so a printed figure says which."""
    folder = reference_art_dir()
    wanted = [BOARD_ART, *(DIE_ART.format(face=face) for face in DIE_FACES)]
    found = sum((folder / name).is_file() for name in wanted)
    if found == 0:
        return f"synthetic art: drawn look-alikes (no reference pictures in {folder})"
    return f"synthetic art: {found} of {len(wanted)} reference pictures from {folder}"
