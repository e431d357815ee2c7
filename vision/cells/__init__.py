"""Reading the 45 spaces of a rectified city board."""

from __future__ import annotations

from typing import Any

__all__ = ["CellReader"]


def __getattr__(name: str) -> Any:
    # Lazy, so that ``vision.cells.labels`` stays importable without the model.
    if name == "CellReader":
        from vision.cells.reader import CellReader

        return CellReader
    raise AttributeError(name)
