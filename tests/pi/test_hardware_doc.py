"""hardware.md's geometry agrees with the kit's cell size and keeps the recommended height above 24 px."""

from __future__ import annotations

import math
import re
from pathlib import Path

from vision.kit import CELL_MM, MARKER_MM

DOC = (Path(__file__).resolve().parents[2] / "hardware.md").read_text()
HFOV_DEG = 102.0  # Camera Module 3 Wide, horizontal
FRAME_W = 1920


def px_per_cell(height_cm: float) -> float:
    seen_width_mm = 2 * height_cm * 10 * math.tan(math.radians(HFOV_DEG / 2))
    return CELL_MM * FRAME_W / seen_width_mm


def test_doc_states_the_kit_cell_size():
    assert f"**{CELL_MM / 10:g} cm**" in DOC and "CELL_MM" in DOC
    assert f"{MARKER_MM / 10:.2f} cm" in DOC


def test_recommended_height_gives_at_least_24_px_per_cell():
    match = re.search(r"Recommendation: lens (\d+) cm above the table", DOC)
    assert match is not None
    height = float(match.group(1))
    assert px_per_cell(height) >= 24
    assert f"**{px_per_cell(height):.1f}**" in DOC  # the table row for it shows the same figure
    assert px_per_cell(90) >= 24 > px_per_cell(95)  # "never above 90 cm" is the real limit


def test_every_row_of_the_height_table_is_right():
    rows = re.findall(r"^\| (?:\*\*)?(\d+) cm(?:\*\*)? \| .*? \| (?:\*\*)?([\d.]+)(?:\*\*)? \| \*\*([\d.]+)\*\* \|", DOC, re.M)
    assert len(rows) >= 5
    for height, per_cm, per_cell in rows:
        assert float(per_cell) == round(px_per_cell(float(height)), 1), height
        assert float(per_cm) == round(px_per_cell(float(height)) / (CELL_MM / 10), 2), height
