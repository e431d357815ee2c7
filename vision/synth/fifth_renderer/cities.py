"""City states for the fifth renderer: game-like histories and random fills, in city notation."""

import numpy as np

SIZE = 7
TOWERS = [(0, 0), (0, 6), (6, 6), (6, 0)]  # (row, col): A1, G1, G7, A7
PRINTED_CRATES = [(1, 1), (1, 2), (2, 1), (3, 1)]  # B2, C2, B3, B4 (row, col)
PERSONS = "cspamjn"
PERSON_WEIGHTS = np.array([0.22, 0.2, 0.14, 0.16, 0.12, 0.1, 0.06])
CHURCH_WEIGHTS = np.array([0.34, 0.28, 0.2, 0.11, 0.07])


def is_outer(r: int, c: int) -> bool:
    return (r in (0, 6) or c in (0, 6)) and (r, c) not in TOWERS


def empty_city() -> list[list[str]]:
    grid = [["."] * SIZE for _ in range(SIZE)]
    for r, c in TOWERS:
        grid[r][c] = "#"
    for r, c in PRINTED_CRATES:
        grid[r][c] = "G"
    return grid


def _empties(grid, outer_only=False):
    return [(r, c) for r in range(SIZE) for c in range(SIZE)
            if grid[r][c] == "." and (not outer_only or is_outer(r, c))]


def _neighbours4(r, c):
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE:
            yield r + dr, c + dc


def _grow_group(grid, rng, start, count, char):
    """Place ``count`` of ``char`` as one orthogonally connected group from ``start``."""
    group = [start]
    grid[start[0]][start[1]] = char
    while len(group) < count:
        frontier = [n for g in group for n in _neighbours4(*g) if grid[n[0]][n[1]] == "."]
        if not frontier:
            break
        r, c = frontier[rng.integers(len(frontier))]
        grid[r][c] = char
        group.append((r, c))
    return group


def game_city(rng: np.random.Generator, turns: int) -> list[list[str]]:
    grid = empty_city()
    action_p = np.array([0.28, 0.27, 0.2, 0.25])  # crate, wall, church, person
    action_p = rng.dirichlet(action_p * 8)
    for _ in range(turns):
        empties = _empties(grid)
        if not empties:
            break
        action = rng.choice(4, p=action_p)
        count = int(rng.choice([1, 2, 3, 4, 5], p=[0.3, 0.3, 0.22, 0.12, 0.06]))
        if action == 0:
            _grow_group(grid, rng, empties[rng.integers(len(empties))], count, "G")
        elif action == 1:
            outer = _empties(grid, outer_only=True)
            for k in rng.permutation(len(outer))[:count]:
                grid[outer[k][0]][outer[k][1]] = "W"
        elif action == 2:
            r, c = empties[rng.integers(len(empties))]
            grid[r][c] = str(rng.choice(5, p=CHURCH_WEIGHTS) + 1)
        else:
            r, c = empties[rng.integers(len(empties))]
            person = PERSONS[rng.choice(7, p=PERSON_WEIGHTS)]
            grid[r][c] = person
            if person == "a":
                near = [(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                        if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE and grid[r + dr][c + dc] == "."]
                houses = int(rng.integers(0, 4))
                if near and houses:
                    _grow_group(grid, rng, near[rng.integers(len(near))], houses, "H")
    return grid


def random_city(rng: np.random.Generator) -> list[list[str]]:
    grid = empty_city()
    fill = rng.uniform(0.2, 1.0)
    inner_chars = list("GH12345" + PERSONS)
    for r, c in _empties(grid):
        if rng.random() > fill:
            continue
        if is_outer(r, c) and rng.random() < 0.5:
            grid[r][c] = "W"
        else:
            grid[r][c] = inner_chars[rng.integers(len(inner_chars))]
    return grid


def make_city(rng: np.random.Generator) -> list[str]:
    if rng.random() < 0.75:
        turns = int(rng.choice([rng.integers(0, 4), rng.integers(3, 14), rng.integers(10, 40)]))
        grid = game_city(rng, turns)
    else:
        grid = random_city(rng)
    return ["".join(row) for row in grid]
