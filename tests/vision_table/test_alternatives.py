"""Each drawable cell's likely readings travel from the cell reader through the table pipeline into the
observation, as plain data the tracker weighs against the rules."""

from __future__ import annotations

import numpy as np

from companion.layout import ALL_CELLS, LAYOUT
from vision.cells import CellReader
from vision.pipeline import TableReader
from vision.synth.table import TableSpec, render_table

CITY = ("#.W...#", ".GGs...", ".G..2..", ".G.....", "...G...", ".....W.", "#.....#")


def test_alternatives_reach_the_observation():
    spec = TableSpec(cities=(CITY, CITY), dice=("head", "head", "wall", "cross", "swords"), seed=11,
                     max_tilt_deg=15.0)
    frame, _truth = render_table(spec, np.random.default_rng(11))
    obs = TableReader(cell_reader=CellReader("en")).read(frame)
    assert len(obs.boards) == 2
    for board in obs.boards:
        drawable = [c for c in ALL_CELLS if c not in LAYOUT.towers and c not in LAYOUT.printed_crates]
        assert sorted(board.alternatives) == sorted(drawable)
        for cell, likely in board.alternatives.items():
            assert 1 <= len(likely) <= 6 and all(isinstance(k, str) and 0.0 <= v <= 1.0 for k, v in likely.items())
            assert sum(likely.values()) <= 1.0 + 1e-3
            col, row = "ABCDEFG".index(cell[0]), int(cell[1]) - 1
            # the likeliest alternative is what the city says
            assert max(likely, key=likely.__getitem__) == board.city[row][col]
        assert board.alternatives["D2"].get("s", 0.0) > 0.5 and board.alternatives["C1"].get("W", 0.0) > 0.5


def test_a_reader_without_alternatives_gives_none(cell_stub):
    spec = TableSpec(cities=(CITY, CITY), seed=12, max_tilt_deg=15.0)
    frame, _truth = render_table(spec, np.random.default_rng(12))
    obs = TableReader(cell_reader=cell_stub).read(frame)
    assert obs.boards and all(b.alternatives == {} for b in obs.boards)
