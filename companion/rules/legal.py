"""Every legal option for a roll, a random legal option, and the immediate value of an option.

Crates and houses are enumerated as connected cell sets with the ESU algorithm (Wernicke 2006) on
49-bit masks: each connected set is produced exactly once (grown only from its lowest cell, extended
only through cells outside the current set's closed neighbourhood), so no dedup pass is needed.
"""

from __future__ import annotations

import random
from itertools import combinations

from companion.rules.actions import SYMBOLS, Action, Placement
from companion.rules.board import (
    CELL_NAMES,
    EMPTY,
    N4,
    N8,
    N_CELLS,
    OUTER_LIST,
    PERSON_BONUS_LEVELS,
    PERSON_LEVEL,
    PERSON_SIDE,
    PERSONS_BY_LEVEL,
    SIDE_CELLS,
    SPACES,
    WALL,
    defence,
    side_complete,
)
from companion.rules.engine import has_option, resolve
from companion.rules.state import GameState, PlayerState
from companion.rules.tally import church_series_points

_N4_MASK: tuple[int, ...] = tuple(sum(1 << j for j in N4[i]) for i in range(N_CELLS))
_N8_MASK: tuple[int, ...] = tuple(sum(1 << j for j in N8[i]) for i in range(N_CELLS))
_PL: dict[tuple[int, str], Placement] = {
    (i, item): Placement(CELL_NAMES[i], item) for i in range(N_CELLS) for item in "WGH12345cspamjn"
}
_SPACES_LIST: list[int] = list(SPACES)
_N_SPACES = len(_SPACES_LIST)
_BONUS_PERSONS: str = "".join(
    c for c in "cspamjn" if PERSON_BONUS_LEVELS[0] <= PERSON_LEVEL[c] <= PERSON_BONUS_LEVELS[1]
)


def connected_sets(allowed: int, max_size: int) -> list[list[tuple[int, ...]]]:
    """All orthogonally connected sets of 1..max_size cells within the ``allowed`` mask, by size.

    ``result[n]`` lists the sets of n cells as sorted index tuples; each set appears exactly once.
    """
    result: list[list[tuple[int, ...]]] = [[] for _ in range(max_size + 1)]
    if max_size <= 0:
        return result
    n4 = _N4_MASK

    def grow(sub: tuple[int, ...], ext: int, closed: int, above: int) -> None:
        result[len(sub)].append(tuple(sorted(sub)))
        if len(sub) == max_size:
            return
        while ext:
            bit = ext & -ext
            ext ^= bit
            w = bit.bit_length() - 1
            grow(sub + (w,), ext | (n4[w] & above & ~closed), closed | n4[w], above)

    m = allowed
    while m:
        bit = m & -m
        m ^= bit
        v = bit.bit_length() - 1
        above = allowed & ~((bit << 1) - 1)  # allowed cells after v: v is the set's lowest cell
        grow((v,), n4[v] & above, n4[v] | bit, above)
    return result


def _empty_mask(cells: bytearray) -> int:
    m = 0
    for i in SPACES:
        if cells[i] == EMPTY:
            m |= 1 << i
    return m


def _cells_of(mask: int) -> list[int]:
    out = []
    while mask:
        bit = mask & -mask
        mask ^= bit
        out.append(bit.bit_length() - 1)
    return out


def _dice_range(player: PlayerState, dice: tuple[str, ...], sym: str) -> tuple[int, int]:
    """(dice showing sym, most dice usable incl. turned ones paid with coins)."""
    shown = dice.count(sym)
    turnable = 5 - shown - dice.count("swords")
    coins = player.coins - (2 if sym == "log" else 0)  # the delivery is paid too
    if coins < 0:
        return shown, 0
    return shown, shown + min(turnable, coins // 2)


def _architect_options(a: int, small: list[list[tuple[int, ...]]], exclude: int,
                       max_houses: int) -> list[tuple[Placement, ...]]:
    """The architect at ``a`` alone, or with 1..max_houses connected houses, one of them in N8(a)."""
    out: list[tuple[Placement, ...]] = [(_PL[a, "a"],)]
    near = _N8_MASK[a]
    blocked = exclude | (1 << a)
    for h in range(1, max_houses + 1):
        for group in small[h]:
            gm = 0
            for i in group:
                gm |= 1 << i
            if gm & blocked or not gm & near:
                continue
            out.append((_PL[a, "a"],) + tuple(_PL[i, "H"] for i in group))
    return out


def legal_actions(state: GameState, dice: list[str] | tuple[str, ...]) -> list[Action]:
    """Every legal option of the current player with these five final faces (canonical, no duplicates).

    Turned dice are exactly those needed (max(0, used - showing)); when nothing at all can be used the
    pass (symbol None) is an option too; so it is when only a paid turn would allow an action (turning is
    optional).
    """
    dice = tuple(dice)
    if state.finished:
        return []
    who = state.current_player
    player = state.players[who]
    cells = player.cells
    empty_mask = _empty_mask(cells)
    empties = _cells_of(empty_mask)
    out: list[Action] = []
    max_houses = min(3, player.logs)
    small: list[list[tuple[int, ...]]] | None = None

    for sym in SYMBOLS:
        shown, most = _dice_range(player, dice, sym)
        if most == 0:
            continue
        if sym == "log":
            for n in range(1, most + 1):
                out.append(Action(who, dice, "log", max(0, n - shown), (), n))
        elif sym == "crate":
            sets = connected_sets(empty_mask, most)
            for n in range(1, most + 1):
                t = max(0, n - shown)
                for group in sets[n]:
                    out.append(Action(who, dice, "crate", t, tuple(_PL[i, "G"] for i in group)))
        elif sym == "cross":
            for n in range(1, most + 1):
                t, item = max(0, n - shown), str(n)
                out.extend(Action(who, dice, "cross", t, (_PL[i, item],)) for i in empties)
        elif sym == "head":
            for n in range(1, most + 1):
                t = max(0, n - shown)
                for item in PERSONS_BY_LEVEL[n]:
                    if item == "a":
                        if small is None:
                            small = connected_sets(empty_mask, max_houses)
                        for a in empties:
                            out.extend(Action(who, dice, "head", t, pl)
                                       for pl in _architect_options(a, small, 0, max_houses))
                    else:
                        out.extend(Action(who, dice, "head", t, (_PL[i, item],)) for i in empties)
        else:  # wall
            out.extend(_wall_actions(who, player, dice, shown, most, empty_mask))
    if not has_option(player, dice):  # nothing usable without paying to turn: passing is allowed
        out.append(Action(who, dice, None))
    return out


def _wall_actions(who: int, player: PlayerState, dice: tuple[str, ...], shown: int, most: int,
                  empty_mask: int) -> list[Action]:
    cells = player.cells
    empty_outer = [i for i in OUTER_LIST if cells[i] == EMPTY]
    out: list[Action] = []
    bonus_open = PERSON_SIDE >= 0 and not side_complete(cells, PERSON_SIDE) and all(
        cells[i] in (WALL, EMPTY) for i in SIDE_CELLS[PERSON_SIDE])
    need = [i for i in SIDE_CELLS[PERSON_SIDE] if cells[i] == EMPTY] if bonus_open else []
    max_houses = min(3, player.logs)
    small_cache: list[list[tuple[int, ...]]] | None = None
    for n in range(1, min(most, len(empty_outer)) + 1):
        t = max(0, n - shown)
        for combo in combinations(empty_outer, n):
            walls = tuple(_PL[i, "W"] for i in combo)
            out.append(Action(who, dice, "wall", t, walls))
            if bonus_open and all(i in combo for i in need):
                rest = empty_mask
                for i in combo:
                    rest &= ~(1 << i)
                free = _cells_of(rest)
                for item in _BONUS_PERSONS:
                    if item == "a":
                        if small_cache is None:
                            # computed on all empty cells; the walls of each combo are excluded below
                            small_cache = connected_sets(empty_mask, max_houses)
                        for a in free:
                            out.extend(Action(who, dice, "wall", t, walls + pl) for pl in
                                       _architect_options(a, small_cache, empty_mask & ~rest, max_houses))
                    else:
                        out.extend(Action(who, dice, "wall", t, walls + (_PL[i, item],)) for i in free)
    return out


# ------------------------------------------------------------------------------------- random option

def random_action(state: GameState, dice: list[str] | tuple[str, ...], rng: random.Random) -> Action:
    """One legal option drawn at random (not uniform over all options: a feasible symbol at random, then
    a count 1..most at random, then cells grown at random). Never passes unless it must."""
    dice = tuple(dice)
    who = state.current_player
    player = state.players[who]
    cells = player.cells
    n_empty = cells.count(EMPTY)
    swords = dice.count("swords")
    choices: list[tuple[str, int, int]] = []
    n_outer = -1
    for sym in SYMBOLS:
        shown = dice.count(sym)
        spare = player.coins - 2 if sym == "log" else player.coins  # a delivery costs 2 coins too
        if spare < 0:
            continue
        most = shown + min(5 - shown - swords, spare // 2)
        if sym == "wall":
            if n_outer < 0:
                n_outer = sum(1 for i in OUTER_LIST if cells[i] == EMPTY)
            most = min(most, n_outer)
        elif sym == "crate":
            most = min(most, n_empty)
        elif sym != "log" and not n_empty:
            most = 0
        if most > 0:
            choices.append((sym, shown, most))
    if not choices:
        return Action(who, dice, None)
    sym, shown, most = choices[rng.randrange(len(choices))]
    n = rng.randint(1, most)
    if sym == "log":
        return Action(who, dice, "log", max(0, n - shown), (), n)
    if sym == "cross":
        return Action(who, dice, "cross", max(0, n - shown), (_PL[_random_empty(cells, rng), str(n)],))
    if sym == "crate":
        group = _random_group(cells, _random_empty(cells, rng), n, rng)
        return Action(who, dice, "crate", max(0, len(group) - shown), tuple(_PL[i, "G"] for i in sorted(group)))
    if sym == "head":
        item = rng.choice(PERSONS_BY_LEVEL[n])
        return Action(who, dice, "head", max(0, n - shown),
                      _random_person(player, item, _random_empty(cells, rng), set(), rng))
    empty_outer = [i for i in OUTER_LIST if cells[i] == EMPTY]
    combo = rng.sample(empty_outer, n)
    place = tuple(_PL[i, "W"] for i in sorted(combo))
    if PERSON_SIDE >= 0 and not side_complete(cells, PERSON_SIDE) and all(
            cells[i] == WALL or i in combo for i in SIDE_CELLS[PERSON_SIDE]):
        taken = set(combo)
        free = [i for i in SPACES if cells[i] == EMPTY and i not in taken]
        if free:
            place += _random_person(player, rng.choice(_BONUS_PERSONS), rng.choice(free), taken, rng)
    return Action(who, dice, "wall", max(0, n - shown), place)


def _random_empty(cells: bytearray, rng: random.Random) -> int:
    """A random empty space (the city has one): a few random probes, then a list of them all."""
    for _ in range(6):
        i = _SPACES_LIST[int(rng.random() * _N_SPACES)]
        if cells[i] == EMPTY:
            return i
    return rng.choice([i for i in SPACES if cells[i] == EMPTY])


def _random_group(cells: bytearray, start: int, n: int, rng: random.Random,
                  taken: set[int] | None = None) -> list[int]:
    """A random orthogonally connected group of up to n empty cells grown from ``start``."""
    group = [start]
    inside = {start}
    if taken:
        inside |= taken
    frontier = [j for j in N4[start] if cells[j] == EMPTY and j not in inside]
    while len(group) < n and frontier:
        j = frontier.pop(rng.randrange(len(frontier)))
        if j in inside:
            continue
        group.append(j)
        inside.add(j)
        frontier.extend(k for k in N4[j] if cells[k] == EMPTY and k not in inside)
    return group


def _random_person(player: PlayerState, item: str, a: int, taken: set[int],
                   rng: random.Random) -> tuple[Placement, ...]:
    """The person ``item`` at ``a``; an architect also builds a random number of houses next to it."""
    cells = player.cells
    place: tuple[Placement, ...] = (_PL[a, item],)
    if item == "a" and player.logs:
        h = rng.randint(0, min(3, player.logs))
        starts = [j for j in N8[a] if cells[j] == EMPTY and j not in taken]
        if h and starts:
            group = _random_group(cells, rng.choice(starts), h, rng, taken | {a})
            place += tuple(_PL[i, "H"] for i in sorted(group))
    return place


# --------------------------------------------------------------------------------------- option value

# Weights of the greedy heuristic: a coin is half a VP at the end, a log one VP (or 3 with an
# architect), each filled space brings the end (and the +5 of a full city) closer, defence saves cannons.
_COIN, _LOG, _SPACE, _DEFENCE, _CANNON = 0.5, 1.2, 0.25, 1.5, 5.0


def option_value(state: GameState, action: Action) -> float:
    """Immediate value of an option for its player: VP + 0.5/coin + 1.2/log + church series gained
    + 0.25/space filled + 1.5/defence point while attacks remain - 5 per cannon lost this turn."""
    before = state.players[action.player]
    after = before.copy()
    probe = GameState([after], 0, 0)  # resolve only this player's part: no swords, no turn order
    resolve(probe, action._replace(player=0, dice=("log",) * 5))
    value = (after.vp - before.vp) + _COIN * (after.coins - before.coins) + _LOG * (after.logs - before.logs)
    value += _SPACE * (before.cells.count(EMPTY) - after.cells.count(EMPTY))
    if any(p.item in "12345" for p in action.place):
        value += _church_points(after.cells) - _church_points(before.cells)
    next_attack = state.track.next_attack(state.pirate_boxes)
    d_after = defence(after.cells)
    if next_attack is not None:
        value += _DEFENCE * (d_after - defence(before.cells))
        swords = action.dice.count("swords")
        _, attacks = state.track.mark(state.pirate_boxes, swords)
        value -= _CANNON * sum(1 for _, strength in attacks if d_after < strength)
    return value


def _church_points(cells: bytearray) -> int:
    return church_series_points({k: cells.count(ord(str(k))) for k in range(1, 6)})
