"""Game state: players' cities, coins, logs, VP, cannons, and the pirate track.

Cities are 49-byte ``bytearray``s internally (fast to copy and count); JSON (contract STATE.json,
7 strings of 7 characters) only at the edges.
"""

from __future__ import annotations

from typing import Any

from companion.errors import UserError
from companion.layout import LAYOUT, cell_index, empty_city
from companion.rules.board import (
    CELL_NAMES,
    CITY_CHARS,
    EMPTY,
    N_CELLS,
    OUTER,
    SIZE,
    TOWER,
    TOWER_CELLS,
    WALL,
    cells_to_city,
    city_to_cells,
    defence,
)

START_COINS = 3
START_LOGS = 2
MIN_PLAYERS, MAX_PLAYERS = 1, 5


class StateError(UserError):
    """A STATE.json (or state dict) that does not describe a table; the message names the field."""


class PirateTrack:
    """The pirate track: 6 rows of 2 x players boxes, attack strengths 1, 3, 6, 8, 10, 12.

    Boxes are marked left to right, row by row; marking the last box of a row makes that row attack.
    After the sixth attack the track is full and further swords are ignored.
    """

    STRENGTHS: tuple[int, ...] = (1, 3, 6, 8, 10, 12)

    __slots__ = ("n_players", "row_size", "total_boxes")

    def __init__(self, n_players: int) -> None:
        self.n_players = n_players
        self.row_size = 2 * n_players
        self.total_boxes = self.row_size * len(self.STRENGTHS)

    def attacks_done(self, boxes: int) -> int:
        return min(boxes // self.row_size, len(self.STRENGTHS))

    def mark(self, boxes: int, swords: int) -> tuple[int, list[tuple[int, int]]]:
        """Mark ``swords`` boxes from ``boxes``; returns (new box count, [(row 1..6, strength), ...])."""
        after = min(boxes + swords, self.total_boxes)
        attacks = [
            (row + 1, self.STRENGTHS[row])
            for row in range(self.attacks_done(boxes), self.attacks_done(after))
        ]
        return after, attacks

    def next_attack(self, boxes: int) -> tuple[int, int, int] | None:
        """(row 1..6, strength, boxes still to mark before it) or None when all six have attacked."""
        row = self.attacks_done(boxes)
        if row >= len(self.STRENGTHS):
            return None
        return row + 1, self.STRENGTHS[row], (row + 1) * self.row_size - boxes


class PlayerState:
    """One player's sheet. ``city`` is 7 strings of 7 characters (city notation); internally the city is
    ``cells``, a 49-byte bytearray. The constructor takes either form."""

    __slots__ = ("name", "cells", "coins", "logs", "vp", "cannons_lost")

    def __init__(self, name: str, city: bytearray | list[str] | tuple[str, ...], coins: int = START_COINS,
                 logs: int = START_LOGS, vp: int = 0, cannons_lost: int = 0) -> None:
        self.name = name
        self.cells = city if isinstance(city, bytearray) else city_to_cells(city)
        self.coins = coins
        self.logs = logs
        self.vp = vp
        self.cannons_lost = cannons_lost

    @classmethod
    def new(cls, name: str) -> PlayerState:
        return cls(name, city_to_cells(empty_city()))

    @property
    def city(self) -> list[str]:
        return cells_to_city(self.cells)

    @city.setter
    def city(self, rows: list[str] | tuple[str, ...]) -> None:
        self.cells = city_to_cells(rows)

    @property
    def defence(self) -> int:
        return defence(self.cells)

    @property
    def empty_spaces(self) -> int:
        return self.cells.count(EMPTY)

    @property
    def city_full(self) -> bool:
        return EMPTY not in self.cells

    def copy(self) -> PlayerState:
        return PlayerState(self.name, bytearray(self.cells), self.coins, self.logs, self.vp, self.cannons_lost)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "city": self.city, "coins": self.coins, "logs": self.logs,
                "vp": self.vp, "cannons_lost": self.cannons_lost}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PlayerState) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PlayerState({self.to_json()!r})"


class GameState:
    """A table at one moment.

    Beyond the contract fields the engine tracks ``start_player`` (who began: the round ends before
    them), ``turn`` (turns played so far), ``final_round`` (someone has filled their city: the round is
    being finished) and ``finished`` (the game is over).
    """

    __slots__ = ("players", "pirate_boxes", "current_player", "start_player", "turn", "final_round",
                 "finished", "track")

    def __init__(self, players: list[PlayerState], pirate_boxes: int = 0, current_player: int = 0,
                 start_player: int = 0, turn: int = 0, final_round: bool = False,
                 finished: bool = False) -> None:
        self.players = players
        self.pirate_boxes = pirate_boxes
        self.current_player = current_player
        self.start_player = start_player
        self.turn = turn
        self.final_round = final_round
        self.finished = finished
        self.track = PirateTrack(len(players))

    @classmethod
    def new(cls, names: list[str], start_player: int = 0) -> GameState:
        if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
            raise StateError(f"players: {len(names)} players; a table has 1 to 5 (the game is for 2 to 5)")
        if not 0 <= start_player < len(names):
            raise StateError(f"start_player: {start_player} is not a player index (0..{len(names) - 1})")
        return cls([PlayerState.new(n) for n in names], 0, start_player, start_player)

    @property
    def n_players(self) -> int:
        return len(self.players)

    @property
    def current(self) -> PlayerState:
        return self.players[self.current_player]

    @property
    def rounds_played(self) -> int:
        return self.turn // len(self.players)

    def copy(self) -> GameState:
        return GameState([p.copy() for p in self.players], self.pirate_boxes, self.current_player,
                         self.start_player, self.turn, self.final_round, self.finished)

    def to_json(self) -> dict[str, Any]:
        return {
            "players": [p.to_json() for p in self.players],
            "pirate_boxes": self.pirate_boxes,
            "current_player": self.current_player,
            "start_player": self.start_player,
            "turn": self.turn,
            "final_round": self.final_round,
            "finished": self.finished,
        }

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"GameState({self.to_json()!r})"

    @classmethod
    def from_json(cls, d: Any, source: str = "STATE.json") -> GameState:
        """Parse contract STATE.json; raises StateError naming the field.

        Without the engine's extra fields, ``start_player`` is 0, ``turn`` 0, ``final_round`` is true
        when some city is already full, and ``finished`` when in that case the turn has come back round
        to the start player.
        """

        def fail(field: str, problem: str) -> StateError:
            return StateError(f"{source}: {field}: {problem}")

        if not isinstance(d, dict):
            raise fail("(top level)", "expected a JSON object with 'players'")
        raw_players = d.get("players")
        if not isinstance(raw_players, list):
            raise fail("players", "missing or not a list")
        if not MIN_PLAYERS <= len(raw_players) <= MAX_PLAYERS:
            raise fail("players", f"{len(raw_players)} players; a table has 1 to 5")
        players = [_player_from_json(p, f"players[{k}]", fail) for k, p in enumerate(raw_players)]
        n = len(players)
        track = PirateTrack(n)
        boxes = _int_field(d, "pirate_boxes", fail, default=0, low=0, high=track.total_boxes)
        current = _int_field(d, "current_player", fail, default=0, low=0, high=n - 1)
        start = _int_field(d, "start_player", fail, default=0, low=0, high=n - 1)
        turn = _int_field(d, "turn", fail, default=0, low=0, high=None)
        any_full = any(p.city_full for p in players)
        final_round = _bool_field(d, "final_round", fail, default=any_full)
        finished = _bool_field(d, "finished", fail, default=any_full and current == start)
        return cls(players, boxes, current, start, turn, final_round or any_full, finished)


def _int_field(d: dict[str, Any], key: str, fail: Any, *, default: int | None, low: int,
               high: int | None, prefix: str = "") -> int:
    if key not in d:
        if default is None:
            raise fail(prefix + key, "missing")
        return default
    v = d[key]
    if isinstance(v, bool) or not isinstance(v, int):
        raise fail(prefix + key, f"expected a whole number, got {v!r}")
    if v < low or (high is not None and v > high):
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        raise fail(prefix + key, f"{v} is out of range ({bound})")
    return v


def _bool_field(d: dict[str, Any], key: str, fail: Any, *, default: bool) -> bool:
    if key not in d:
        return default
    v = d[key]
    if not isinstance(v, bool):
        raise fail(key, f"expected true or false, got {v!r}")
    return v


def _player_from_json(p: Any, where: str, fail: Any) -> PlayerState:
    if not isinstance(p, dict):
        raise fail(where, "expected a JSON object")
    name = p.get("name", "")
    if not isinstance(name, str):
        raise fail(f"{where}.name", f"expected a string, got {name!r}")
    city = p.get("city")
    if not isinstance(city, list) or len(city) != SIZE:
        raise fail(f"{where}.city", f"expected {SIZE} strings of {SIZE} characters")
    for r, row in enumerate(city):
        if not isinstance(row, str) or len(row) != SIZE:
            raise fail(f"{where}.city[{r}]", f"expected a string of {SIZE} characters, got {row!r}")
        for c, ch in enumerate(row):
            if ch not in CITY_CHARS:
                raise fail(f"{where}.city[{r}]", f"unknown character {ch!r} at {CELL_NAMES[r * SIZE + c]}")
    cells = city_to_cells(city)
    for i in range(N_CELLS):
        is_tower = i in TOWER_CELLS
        if is_tower != (cells[i] == TOWER):
            what = "must be a tower '#'" if is_tower else "is not a corner, so it cannot be a tower '#'"
            raise fail(f"{where}.city[{i // SIZE}]", f"{CELL_NAMES[i]} {what}")
        if cells[i] == WALL and i not in OUTER:
            raise fail(f"{where}.city[{i // SIZE}]", f"wall at {CELL_NAMES[i]}, an inner space (walls are outer only)")
    for printed in LAYOUT.printed_crates:  # printed on the board: never erased, never drawn over
        col, row = cell_index(printed)
        if city[row][col] != "G":
            raise fail(f"{where}.city[{row}]", f"{printed} is a crate printed on every city board, so it must be "
                       f"'G', not {city[row][col]!r}")
    pre = f"{where}."
    # a table's coins, logs and points are never guessed: a missing one is a mistake in the file
    coins = _int_field(p, "coins", fail, default=None, low=0, high=None, prefix=pre)
    logs = _int_field(p, "logs", fail, default=None, low=0, high=None, prefix=pre)
    vp = _int_field(p, "vp", fail, default=None, low=0, high=None, prefix=pre)
    cannons = _int_field(p, "cannons_lost", fail, default=0, low=0, high=len(PirateTrack.STRENGTHS), prefix=pre)
    return PlayerState(name, cells, coins, logs, vp, cannons)
