"""Shared fixtures for the city-board reading tests (synthetic boards, photographed)."""

from __future__ import annotations

import numpy as np
import pytest

from companion.layout import empty_city

# A busy city with every kind of drawing, in English letters.
BUSY_CITY = [
    "#WW.WW#",
    "WGGHc1.",
    "WG2sp.W",
    ".Ga3m.W",
    "W.4jn5.",
    "HG.H.c.",
    "#WW.W.#",
]


@pytest.fixture
def busy_city() -> list[str]:
    return list(BUSY_CITY)


@pytest.fixture
def start_city() -> list[str]:
    return empty_city()


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20240611)


@pytest.fixture
def close_up_board():
    """A function: (city, seed) -> the rectified board of that city drawn in a neat hand of the generator's first
    hands and photographed close up (the board 0.7-0.8 of the frame's height)."""
    from vision.board import find_boards
    from vision.board.dataset import photograph
    from vision.synth.board import render_board
    from vision.synth.drawings import Hand

    def make(city: list[str], seed: int) -> np.ndarray:
        rng = np.random.default_rng(seed)
        board = render_board(city, rng, cell_px=64, seat=2, hand=Hand(stroke=0.05, wobble=0.01, size=0.75))
        photo = photograph(board.image, board.alpha, rng, tilt_deg=10.0, fill=(0.7, 0.8))
        (located,) = find_boards(photo.frame)
        return located.rectified

    return make


@pytest.fixture
def stage_says(tmp_path):
    """A function: (stage file stem, glyph) -> the path of a copy of the shipped cell network beside a close-look
    stage network of that name that reads every crop as that glyph class (and no other stage network)."""
    from vision.cells.labels import GLYPH_CLASSES
    from vision.cells.reader import DEFAULT_MODEL_PATH

    def make(stem: str, glyph: str):
        with np.load(DEFAULT_MODEL_PATH) as data:
            arrays = {k: data[k] for k in data.files}
        np.savez(tmp_path / "cnn.npz", **arrays)
        last = int(arrays["n_layers"]) - 1
        arrays[f"W{last}"] = np.zeros_like(arrays[f"W{last}"])
        bias = np.zeros_like(arrays[f"b{last}"])
        bias[GLYPH_CLASSES.index(glyph)] = 50.0
        arrays[f"b{last}"] = bias
        np.savez(tmp_path / f"{stem}.npz", **arrays)
        return tmp_path / "cnn.npz"

    return make
