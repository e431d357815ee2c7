"""Board geometry as flat index tables, built once from ``companion.layout``.

The engine keeps a city as a 49-byte ``bytearray`` (row-major, index = row * 7 + column) holding the
city-notation characters; these tables let every rule look at neighbours and sides with plain indexing.
"""

from __future__ import annotations

from companion.layout import ALL_CELLS, LAYOUT, SIZE, Side

N_CELLS = SIZE * SIZE
CELL_NAMES: tuple[str, ...] = ALL_CELLS
CELL_INDEX: dict[str, int] = {name: i for i, name in enumerate(ALL_CELLS)}

EMPTY = ord(".")
TOWER = ord("#")
WALL = ord("W")
CRATE = ord("G")
HOUSE = ord("H")
SOLDIER = ord("s")

PERSONS = "cspamjn"
PERSON_LEVEL: dict[str, int] = {"c": 1, "s": 2, "p": 2, "a": 3, "m": 3, "j": 4, "n": 5}
PERSONS_BY_LEVEL: dict[int, str] = {1: "c", 2: "sp", 3: "am", 4: "j", 5: "n"}
CHURCHES = "12345"
# Every character a city may hold, for validating STATE.json.
CITY_CHARS = frozenset("#.WGH" + CHURCHES + PERSONS)
# Items a move may draw.
ITEMS = frozenset("WGH" + CHURCHES + PERSONS)
PERSON_CODES = frozenset(ord(c) for c in PERSONS)
CHURCH_CODES = frozenset(ord(c) for c in CHURCHES)

TOWER_CELLS: frozenset[int] = frozenset(CELL_INDEX[t] for t in LAYOUT.towers)
SPACES: tuple[int, ...] = tuple(i for i in range(N_CELLS) if i not in TOWER_CELLS)
N_SPACES = len(SPACES)


def _neighbours(i: int, diagonal: bool) -> tuple[int, ...]:
    r, c = divmod(i, SIZE)
    out = []
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if (dr, dc) == (0, 0) or (not diagonal and dr and dc):
                continue
            rr, cc = r + dr, c + dc
            if 0 <= rr < SIZE and 0 <= cc < SIZE and rr * SIZE + cc not in TOWER_CELLS:
                out.append(rr * SIZE + cc)
    return tuple(out)


# Orthogonal (crates, houses connect) and 8-neighbourhoods (persons count), towers excluded.
N4: tuple[tuple[int, ...], ...] = tuple(_neighbours(i, False) for i in range(N_CELLS))
N8: tuple[tuple[int, ...], ...] = tuple(_neighbours(i, True) for i in range(N_CELLS))
N8_SETS: tuple[frozenset[int], ...] = tuple(frozenset(n) for n in N8)

SIDES: tuple[Side, ...] = LAYOUT.sides
SIDE_CELLS: tuple[tuple[int, ...], ...] = tuple(tuple(CELL_INDEX[c] for c in s.cells) for s in SIDES)
OUTER: frozenset[int] = frozenset(i for cells in SIDE_CELLS for i in cells)
OUTER_LIST: tuple[int, ...] = tuple(sorted(OUTER))


def _as_slice(cells: tuple[int, ...]) -> slice:
    """Each side is an evenly spaced run of flat indices; a slice compares five cells in one step."""
    step = cells[1] - cells[0]
    if any(b - a != step for a, b in zip(cells, cells[1:], strict=False)) or step <= 0:
        raise ValueError(f"side cells {cells} are not a straight run")
    return slice(cells[0], cells[-1] + 1, step)


SIDE_SLICES: tuple[slice, ...] = tuple(_as_slice(cells) for cells in SIDE_CELLS)
_SIDE_ALL_WALLS: tuple[bytes, ...] = tuple(bytes([WALL]) * len(cells) for cells in SIDE_CELLS)
SIDE_OF: dict[int, int] = {i: k for k, cells in enumerate(SIDE_CELLS) for i in cells}
# The side whose bonus is a person (the top side on the printed board), or -1.
PERSON_SIDE: int = next((k for k, s in enumerate(SIDES) if s.bonus_person_levels), -1)
PERSON_BONUS_LEVELS: tuple[int, int] = (
    (SIDES[PERSON_SIDE].bonus_person_levels or (1, 3)) if PERSON_SIDE >= 0 else (1, 3)
)


def side_complete(cells: bytearray, side: int) -> bool:
    """All five outer cells of the side are walls: bonus taken, 2 defence."""
    return cells[SIDE_SLICES[side]] == _SIDE_ALL_WALLS[side]


def complete_sides(cells: bytearray) -> int:
    return sum(1 for k in range(len(SIDES)) if side_complete(cells, k))


def defence(cells: bytearray) -> int:
    """Soldiers + 2 per complete side (a side with anything but walls is destroyed for good)."""
    return cells.count(SOLDIER) + 2 * complete_sides(cells)


def city_to_cells(city: list[str] | tuple[str, ...]) -> bytearray:
    return bytearray("".join(city), "ascii")


def cells_to_city(cells: bytearray) -> list[str]:
    text = cells.decode("ascii")
    return [text[r * SIZE:(r + 1) * SIZE] for r in range(SIZE)]


def names(indices: object) -> str:
    """'C5', 'C5 and E5', 'C5, D5 and E5' in board order."""
    parts = [CELL_NAMES[i] for i in sorted(indices)]  # type: ignore[call-overload]
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def components(indices: list[int] | set[int] | tuple[int, ...]) -> list[list[int]]:
    """Orthogonally connected groups among the given cells."""
    remaining = set(indices)
    groups: list[list[int]] = []
    while remaining:
        start = min(remaining)
        remaining.discard(start)
        group, stack = [start], [start]
        while stack:
            i = stack.pop()
            for j in N4[i]:
                if j in remaining:
                    remaining.discard(j)
                    group.append(j)
                    stack.append(j)
        groups.append(sorted(group))
    return groups
