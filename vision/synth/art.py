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

REPO = Path(__file__).resolve().parents[2]


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
