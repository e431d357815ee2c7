"""The city board layout: cell names, towers, outer sides and their bonuses, printed crates.

One source of truth, loaded from ``city_layout.json``; the rules engine, the vision reader and the
dashboard all take the board's geometry from here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

COLUMNS = "ABCDEFG"
ROWS = 7
SIZE = 7


@dataclass(frozen=True)
class Side:
    name: str
    cells: tuple[str, ...]
    tower: str
    bonus_coins: int = 0
    bonus_vp: int = 0
    bonus_person_levels: tuple[int, int] | None = None


@dataclass(frozen=True)
class CityLayout:
    towers: tuple[str, ...]
    sides: tuple[Side, ...]
    printed_crates: tuple[str, ...]

    @property
    def outer_cells(self) -> frozenset[str]:
        return frozenset(c for s in self.sides for c in s.cells)

    @property
    def spaces(self) -> tuple[str, ...]:
        """All 45 spaces (every cell but the towers), row by row."""
        return tuple(c for c in ALL_CELLS if c not in self.towers)

    def side_of(self, cell: str) -> Side | None:
        for side in self.sides:
            if cell in side.cells:
                return side
        return None


def cell_name(col: int, row: int) -> str:
    """0-based column and row to a name like ``D4``."""
    return f"{COLUMNS[col]}{row + 1}"


def cell_index(name: str) -> tuple[int, int]:
    """A name like ``D4`` to 0-based (column, row); ``ValueError`` for anything else."""
    if len(name) != 2 or name[0].upper() not in COLUMNS or not name[1].isdigit():
        raise ValueError(f"unknown cell {name!r} (cells are A1..G7)")
    col, row = COLUMNS.index(name[0].upper()), int(name[1]) - 1
    if not 0 <= row < ROWS:
        raise ValueError(f"unknown cell {name!r} (cells are A1..G7)")
    return col, row


ALL_CELLS: tuple[str, ...] = tuple(cell_name(c, r) for r in range(ROWS) for c in range(SIZE))


def _load() -> CityLayout:
    raw = json.loads(resources.files("companion").joinpath("city_layout.json").read_text())
    sides = []
    for name, spec in raw["sides"].items():
        bonus = spec["bonus"]
        person = bonus.get("person")
        sides.append(
            Side(
                name=name,
                cells=tuple(spec["cells"]),
                tower=spec["tower"],
                bonus_coins=int(bonus.get("coins", 0)),
                bonus_vp=int(bonus.get("vp", 0)),
                bonus_person_levels=(int(person[0]), int(person[1])) if person else None,
            )
        )
    return CityLayout(
        towers=tuple(raw["towers"]), sides=tuple(sides), printed_crates=tuple(raw["printed_crates"])
    )


LAYOUT: CityLayout = _load()


# The table kit's stickers on a city board (shared table-kit.md): seat s's board carries ArUco markers 4s .. 4s+3 on
# its towers A1, G1, G7, A7 (``LAYOUT.towers``' order), each centred on its tower, its side 70 % of a cell. Here
# because the kit, the board finder, the generator and the tracker's warnings all name them.
KIT_SEATS = 5
TOWER_MARKER_FRACTION = 0.7


def seat_marker_ids(seat: int) -> dict[str, int]:
    """Tower cell -> marker id for a seat: 4s on A1, 4s+1 on G1, 4s+2 on G7, 4s+3 on A7."""
    return {tower: 4 * seat + k for k, tower in enumerate(LAYOUT.towers)}


def empty_city() -> list[str]:
    """The starting city in city notation: towers, printed crates, everything else empty."""
    grid = [["." for _ in range(SIZE)] for _ in range(ROWS)]
    for t in LAYOUT.towers:
        c, r = cell_index(t)
        grid[r][c] = "#"
    for g in LAYOUT.printed_crates:
        c, r = cell_index(g)
        grid[r][c] = "G"
    return ["".join(row) for row in grid]


def draw_on_city(city: list[str], place: list[dict[str, str]], *, only_empty: bool = False) -> list[str]:
    """``city`` with each ``{"cell", "item"}`` of ``place`` written in (contract notation).

    ``only_empty``: leave filled cells as they are (to show a pending drawing over the game's city).
    """
    rows = [list(r) for r in city]
    for p in place:
        col, row = cell_index(p["cell"])
        if not only_empty or rows[row][col] == ".":
            rows[row][col] = p["item"]
    return ["".join(r) for r in rows]
