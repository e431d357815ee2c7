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
