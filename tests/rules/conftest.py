"""Builders for rules tests: cities from a few cells, states, actions."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from companion.layout import cell_index, empty_city
from companion.rules import Action, GameState, Placement


def city_with(cells: dict[str, str] | None = None, base: list[str] | None = None) -> list[str]:
    """The starting city (or ``base``) with the given cells drawn, e.g. {"D4": "a", "E5": "H"}."""
    grid = [list(row) for row in (base or empty_city())]
    for name, item in (cells or {}).items():
        c, r = cell_index(name)
        grid[r][c] = item
    return ["".join(row) for row in grid]


def state_of(*players: dict, pirate_boxes: int = 0, current_player: int = 0, **extra: object) -> GameState:
    """A state from player dicts: {"city": {...cells...} or [7 rows], "coins": .., "logs": .., ...}."""
    raw = []
    for k, p in enumerate(players):
        city = p.get("city", {})
        raw.append({
            "name": p.get("name", f"P{k}"),
            "city": city if isinstance(city, list) else city_with(city),
            "coins": p.get("coins", 3), "logs": p.get("logs", 2), "vp": p.get("vp", 0),
            "cannons_lost": p.get("cannons_lost", 0),
        })
    return GameState.from_json({"players": raw, "pirate_boxes": pirate_boxes, "current_player": current_player,
                                **extra})


def act(symbol: str | None, place: dict[str, str] | list[tuple[str, str]] | None = None, *,
        dice: list[str] | None = None, turned: int = 0, logs: int = 0, player: int = 0) -> Action:
    """An action; dice default to five of the symbol."""
    items = list(place.items()) if isinstance(place, dict) else list(place or [])
    return Action(player, tuple(dice or [symbol or "swords"] * 5), symbol, turned,
                  tuple(Placement(c, i) for c, i in items), logs)


def rules_of(verdict: object) -> set[str]:
    return {e.rule for e in verdict.errors}  # type: ignore[attr-defined]


@pytest.fixture
def h() -> SimpleNamespace:
    """The builders above as one fixture (test modules cannot import conftest under importlib mode)."""
    return SimpleNamespace(city_with=city_with, state_of=state_of, act=act, rules_of=rules_of)
