"""Shared fixtures for the vision-table tests (sources, dice, pirates, stability, pipeline, scan)."""

from __future__ import annotations

import numpy as np
import pytest

EMPTY_CITY = ["#.....#", ".GG....", ".G.....", ".G.....", ".......", ".......", "#.....#"]


class FixedCellReader:
    """Stands in for vision.cells.CellReader where a test is about the table, not the handwriting:
    it reads every board as the empty starting city and counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def read(self, rectified: np.ndarray) -> tuple[list[str], list[list[float]], list[str]]:
        assert rectified.ndim in (2, 3) and rectified.shape[0] == rectified.shape[1]
        self.calls += 1
        return list(EMPTY_CITY), [[1.0] * 7 for _ in range(7)], []


@pytest.fixture
def cell_stub() -> FixedCellReader:
    return FixedCellReader()


@pytest.fixture(scope="session")
def table_spec():
    from vision.synth.table import TableSpec

    return TableSpec(
        cities=(tuple(EMPTY_CITY), tuple(EMPTY_CITY), tuple(EMPTY_CITY)),
        dice=("head", "head", "wall", "cross", "swords"),
        pirate_boxes=7,
        seed=20240611,
        max_tilt_deg=20.0,
    )
