"""Final tally: VP from play plus the end-game parts, and the winners with the tie-break."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from companion.rules.board import EMPTY
from companion.rules.state import GameState, PlayerState

SERIES_POINTS: tuple[int, ...] = (0, 1, 4, 8, 13, 20)  # by series length
FULL_CITY_BONUS = 5
CANNON_PENALTY = 5
_CHURCH_CODES = tuple(ord(str(k)) for k in range(1, 6))


def church_series_points(sizes: list[int] | tuple[int, ...] | dict[int, int]) -> int:
    """Ascending series 1, 1-2, ..., 1-5 score 1, 4, 8, 13, 20; formed greedily, longest first.

    ``sizes`` is a list of church sizes or a {size: count} map.
    """
    counts = [0] * 6
    items = sizes.items() if isinstance(sizes, dict) else ((s, 1) for s in sizes)
    for size, n in items:
        if 1 <= size <= 5:
            counts[size] += n
    total = 0
    while counts[1]:
        length = 1
        while length < 5 and counts[length + 1]:
            length += 1
        # all series of this length at once: as many as the scarcest size allows
        times = min(counts[1:length + 1])
        for s in range(1, length + 1):
            counts[s] -= times
        total += times * SERIES_POINTS[length]
    return total


@dataclass(frozen=True)
class PlayerTally:
    name: str
    vp: int
    full_city: int
    coins: int
    logs: int
    churches: int
    cannons: int
    empty_spaces: int

    @property
    def total(self) -> int:
        return self.vp + self.full_city + self.coins + self.logs + self.churches + self.cannons

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "vp": self.vp, "full_city": self.full_city, "coins": self.coins,
                "logs": self.logs, "churches": self.churches, "cannons": self.cannons, "total": self.total,
                "empty_spaces": self.empty_spaces}


@dataclass(frozen=True)
class Tally:
    players: tuple[PlayerTally, ...]
    winners: tuple[int, ...]  # player indices

    @property
    def winner_names(self) -> list[str]:
        return [self.players[k].name for k in self.winners]

    def to_json(self) -> dict[str, Any]:
        return {"players": [p.to_json() for p in self.players], "winners": self.winner_names}


def player_tally(p: PlayerState) -> PlayerTally:
    cells = p.cells
    empty = cells.count(EMPTY)
    return PlayerTally(
        name=p.name,
        vp=p.vp,
        full_city=FULL_CITY_BONUS if empty == 0 else 0,
        coins=p.coins // 2,
        logs=p.logs,
        churches=church_series_points({k + 1: cells.count(code) for k, code in enumerate(_CHURCH_CODES)}),
        cannons=-CANNON_PENALTY * p.cannons_lost,
        empty_spaces=empty,
    )


def final_tally(state: GameState) -> Tally:
    """Most VP wins; a tie goes to the most empty spaces; still tied, all tied players win."""
    parts = tuple(player_tally(p) for p in state.players)
    best = max((t.total, t.empty_spaces) for t in parts)
    winners = tuple(k for k, t in enumerate(parts) if (t.total, t.empty_spaces) == best)
    return Tally(parts, winners)


def is_terminal(state: GameState) -> bool:
    return state.finished
