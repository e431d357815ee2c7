"""The wall-or-crate stage (``vision.cells.walls``): an outer space torn between a wall and a crate is read once more by
networks that learned those two alone, from its crop and the crop mirrored along the edge, and that reading has
``WALLS_WEIGHT`` of the say in how the two split; nothing else is changed, and only the shipped reader has it."""

from __future__ import annotations

import numpy as np
import pytest

from companion.layout import ALL_CELLS, SIZE
from vision.board.dataset import photograph
from vision.board.locate import find_boards
from vision.cells.cnn import CNN_PATH, UNSEEN_DIR
from vision.cells.features import cell_crops
from vision.cells.labels import GLYPH_CLASSES
from vision.cells.reader import (
    DRAWABLE_INDEX,
    OUTER_WALL_PRIOR,
    WALL_OVER_CRATE_ON_THE_EDGE,
    WALLS_SURE_FROM,
    WALLS_WEIGHT,
    CellReader,
    mirrored_along_the_edge,
)
from vision.cells.train_other_renderer import turned_and_mirrored
from vision.cells.walls import WALLS_PATH, WALLS_SECOND_PATH, WallOrCrate, walls_paths_for
from vision.synth.board import render_board

WALL, CRATE, EMPTY, LETTER_S = (GLYPH_CLASSES.index(g) for g in ("W", "G", ".", "pS"))
C1, A4, C4, E7 = (ALL_CELLS.index(name) for name in ("C1", "A4", "C4", "E7"))


class _ScriptedWalls:
    """A wall-or-crate network that gives every cell the same log odds and keeps what it was asked."""

    def __init__(self, log_odds: float) -> None:
        self.log_odds = log_odds
        self.asked: list[tuple[np.ndarray, ...]] = []

    def wall_log_odds(self, *views: np.ndarray) -> np.ndarray:
        self.asked.append(views)
        return np.full(len(views[0]), self.log_odds)


def _row(wall: float, crate: float, letter: float = 0.0) -> np.ndarray:
    row = np.zeros(len(GLYPH_CLASSES))
    row[WALL], row[CRATE], row[LETTER_S] = wall, crate, letter
    row[EMPTY] = 1.0 - row.sum()
    return row


@pytest.fixture(scope="module")
def shipped_reader() -> CellReader:
    return CellReader("en")


@pytest.mark.parametrize("log_odds", [-6.0, 4.0])
def test_a_torn_outer_space_takes_the_networks_say_and_a_sure_inner_or_other_one_does_not(shipped_reader, monkeypatch,
                                                                                         log_odds):
    walls = _ScriptedWalls(log_odds)
    monkeypatch.setattr(shipped_reader, "walls", walls)
    probs = np.tile(_row(0.0, 0.0), (SIZE * SIZE, 1))
    probs[C1] = _row(0.5, 0.4)  # outer, torn: read again
    probs[A4] = _row(0.85, 0.1)  # outer, the wall sure within the two (0.89): left alone
    probs[C4] = _row(0.5, 0.4)  # inner: left alone
    probs[E7] = _row(0.2, 0.2, letter=0.6)  # outer, mostly a letter: left alone
    before = probs.copy()
    reading = list(DRAWABLE_INDEX)
    crops = np.random.default_rng(5).random((len(reading), 8, 8)).astype(np.float32)
    shipped_reader._wall_or_crate(probs, crops, reading, np.ones(SIZE * SIZE, bool))
    (views,) = walls.asked
    assert len(views) == 2 and len(views[0]) == 1  # C1 alone: its crop and the crop mirrored along the edge
    assert np.array_equal(views[0][0], crops[reading.index(C1)])
    assert np.array_equal(views[1], mirrored_along_the_edge(crops[[reading.index(C1)]], [C1]))
    unchanged = [i for i in range(SIZE * SIZE) if i != C1]
    assert np.array_equal(probs[unchanged], before[unchanged])
    # The two keep their share; the split is the networks' with the stage's, weighed as the board weighs an edge wall.
    stage = 1.0 / (1.0 + np.exp(-(log_odds + np.log(OUTER_WALL_PRIOR * WALL_OVER_CRATE_ON_THE_EDGE))))
    split = (1.0 - WALLS_WEIGHT) * 0.5 / 0.9 + WALLS_WEIGHT * stage
    assert probs[C1, WALL] == pytest.approx(0.9 * split)
    assert probs[C1, CRATE] == pytest.approx(0.9 * (1.0 - split))
    assert probs[C1].sum() == pytest.approx(1.0)
    # A crate the stage is sure of turns the torn space into a crate; a wall it is sure of makes it surer a wall.
    assert (probs[C1, CRATE] > probs[C1, WALL]) == (log_odds < 0)
    assert 0.5 / 0.9 < WALLS_SURE_FROM < 0.85 / 0.95


def test_a_space_the_reader_does_not_read_is_not_read_by_the_stage(shipped_reader, monkeypatch):
    walls = _ScriptedWalls(-6.0)
    monkeypatch.setattr(shipped_reader, "walls", walls)
    probs = np.tile(_row(0.5, 0.4), (SIZE * SIZE, 1))
    read_here = np.zeros(SIZE * SIZE, bool)
    reading = list(DRAWABLE_INDEX)
    shipped_reader._wall_or_crate(probs, np.zeros((len(reading), 8, 8), np.float32), reading, read_here)
    assert walls.asked == []
    assert np.allclose(probs[:, WALL], 0.5)


def test_only_the_shipped_cell_network_is_joined_by_the_wall_or_crate_networks():
    assert walls_paths_for(CNN_PATH) == (WALLS_PATH, WALLS_SECOND_PATH)
    # A network trained without a family never reads beside one that learned that family's walls.
    assert walls_paths_for(UNSEEN_DIR / "cnn_without_loose.npz") == ()
    walls = CellReader("en").walls
    assert walls is not None and len(walls.networks) == 2
    assert CellReader("en", model_path=UNSEEN_DIR / "cnn_without_loose.npz").walls is None


def test_the_networks_log_odds_are_averaged_over_networks_and_views():
    """Two networks and two views of the same cells: the reading is the mean of the four log odds, cell by cell."""
    first, second = WallOrCrate.load(WALLS_PATH), WallOrCrate.load(WALLS_SECOND_PATH)
    crops = np.random.default_rng(2).random((3, 40, 40)).astype(np.float32)
    turned = np.ascontiguousarray(np.rot90(crops, 1, axes=(1, 2)))
    alone = [w.wall_log_odds(v) for w in (first, second) for v in (crops, turned)]
    both = WallOrCrate.load(WALLS_PATH, WALLS_SECOND_PATH).wall_log_odds(crops, turned)
    assert both.shape == (3,)
    assert np.allclose(both, np.mean(alone, axis=0), atol=1e-5)
    assert not np.allclose(alone[0], alone[2], atol=1e-3)  # two networks that read differently


def test_the_shipped_network_tells_walls_from_crates():
    """Our generator's walls and crates, photographed and found as a camera frame's are: the network's odds lean to the
    wall for nearly every wall and to the crate for nearly every crate (their reading alone, no board context)."""
    city = ["#WWWWW#", "WGGGGGW", "WG.G.GW", "GGGGGGW", "WG.G.GW", "WGGGGGG", "#WWGWW#"]
    walls = WallOrCrate.load(*walls_paths_for(CNN_PATH))
    right = total = 0
    for seed in (1, 2):
        rng = np.random.default_rng(seed)
        board = render_board(city, rng, cell_px=64, seat=1)
        (located,) = find_boards(photograph(board.image, board.alpha, rng, tilt_deg=10.0, fill=(0.7, 0.8)).frame)
        cells = [i for i in DRAWABLE_INDEX if city[i // SIZE][i % SIZE] in "WG"]
        crops = cell_crops(located.rectified, cells=cells)
        odds = walls.wall_log_odds(crops)
        truth = np.array([city[i // SIZE][i % SIZE] == "W" for i in cells])
        right += int(np.sum((odds > 0) == truth))
        total += len(cells)
    assert total > 60
    assert right >= 0.95 * total


def test_walls_and_crates_are_learned_turned_and_mirrored_at_random():
    """Each crop comes back as one of its eight turns and mirrors, the ink as it was; all eight turn up."""
    crop = np.zeros((6, 6), np.float32)
    crop[0, 1] = 1.0  # a mark that no turn or mirror leaves where it was
    x = np.stack([crop] * 200)
    out = turned_and_mirrored(x, np.random.default_rng(0))
    views = [np.rot90(crop, k) for k in range(4)]
    views += [v[:, ::-1] for v in views]
    seen = set()
    for c in out:
        matches = [k for k, v in enumerate(views) if np.array_equal(c, v)]
        assert len(matches) == 1
        seen.add(matches[0])
    assert seen == set(range(8))
