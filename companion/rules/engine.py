"""Judging and resolving one turn.

Readings of the rulebooks (seeds/ 000 IT, 003 FR) taken here, where the text leaves room:
- A player must choose a symbol and use at least one die of it whenever some use is possible
  ("vous devez choisir d'utiliser un seul de ces cinq symboles"). Only when no symbol can be used at all
  (e.g. five swords, or only logs/walls showing with too few coins and no empty outer space) is the
  pass legal: ``symbol`` null (or a symbol with nothing used), nothing drawn; the swords are still scored.
- The number of dice used is what was drawn: crates and walls one per die, one church of size n, a
  person of level n, n logs delivered. Turned dice make up the shortfall only: ``turned`` must equal
  max(0, used - showing); a turned die that is then not used is flagged (``dice.turn_unused``).
- Logs: 2 coins per delivery, paid after any turning (coins left after turning must be >= 2).
- The top tower bonus (a person of level 1-3 with its full effect) can only be earned in a wall action,
  so in a wall action any person in ``place`` IS the bonus person; an architect taken as bonus builds
  houses with logs like one from three heads (the H cells in ``place``; each H uses one log). ``logs``
  stays the log action's delivery count. Taking the bonus person is optional (a table may decline it).
- Persons count their neighbours on the city as it stands after this turn's drawing (a legal turn has
  only one person, and houses/walls drawn with it are never counted, so order does not matter).
- Swords are marked after the action resolves, so a soldier or a side completed this turn defends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from companion.errors import UserError
from companion.rules.actions import SYMBOLS, Action, validate_action
from companion.rules.board import (
    CELL_INDEX,
    CELL_NAMES,
    CHURCH_CODES,
    CRATE,
    EMPTY,
    N8,
    N8_SETS,
    OUTER,
    OUTER_LIST,
    PERSON_BONUS_LEVELS,
    PERSON_CODES,
    PERSON_LEVEL,
    PERSON_SIDE,
    SIDE_CELLS,
    SIDES,
    TOWER_CELLS,
    WALL,
    components,
    defence,
    names,
    side_complete,
)
from companion.rules.state import GameState, PlayerState

_DESCRIBE = {
    "W": "a wall", "G": "a crate", "H": "a house", "#": "a tower", "c": "a citizen", "s": "a soldier",
    "p": "a priest", "a": "an architect", "m": "a merchant", "j": "a juggler", "n": "a noble",
    **{str(k): f"a church of size {k}" for k in range(1, 6)},
}
_PERSON_NAME = {"c": "citizen", "s": "soldier", "p": "priest", "a": "architect", "m": "merchant",
                "j": "juggler", "n": "noble"}
_ORD_W, _ORD_G, _ORD_H = ord("W"), ord("G"), ord("H")


class RuleViolation(NamedTuple):
    rule: str
    message: str

    def to_json(self) -> dict[str, str]:
        return {"rule": self.rule, "message": self.message}


@dataclass
class Effects:
    vp: int = 0
    coins: int = 0
    logs: int = 0
    pirate_boxes: int = 0
    attacks: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"vp": self.vp, "coins": self.coins, "logs": self.logs, "pirate_boxes": self.pirate_boxes,
                "attacks": [dict(a, lost_cannon=list(a["lost_cannon"])) for a in self.attacks]}


@dataclass
class Verdict:
    legal: bool
    errors: list[RuleViolation]
    effects: Effects
    state: GameState

    def to_json(self) -> dict[str, Any]:
        return {"legal": self.legal, "errors": [e.to_json() for e in self.errors],
                "effects": self.effects.to_json(), "state": self.state.to_json()}


class IllegalMove(UserError):
    """``apply`` of a move that breaks rules; ``errors`` lists every broken rule."""

    def __init__(self, errors: list[RuleViolation]) -> None:
        super().__init__("; ".join(f"{e.rule}: {e.message}" for e in errors))
        self.errors = errors


# ----------------------------------------------------------------------------------------------- resolve

def resolve(state: GameState, action: Action) -> Effects:
    """Apply ``action`` to ``state`` IN PLACE (no legality checks) and return its effects.

    Also the table override: placements a city cannot hold (on a tower, a wall on an inner space) are
    skipped, a filled space is overdrawn, and coins/logs never go below zero.
    """
    player = state.players[action.player]
    cells = player.cells
    vp0, coins0, logs0 = player.vp, player.coins, player.logs
    walls_drawn = False
    if action.turned:
        player.coins = max(0, player.coins - 2 * action.turned)
    if action.symbol == "log" and action.logs > 0:
        player.coins = max(0, player.coins - 2)
        player.logs += action.logs
    placed: list[tuple[int, int]] = []
    for cell, item in action.place:
        i = CELL_INDEX[cell]
        code = ord(item)
        if i in TOWER_CELLS or (code == _ORD_W and i not in OUTER):
            continue
        if code == _ORD_W:
            walls_drawn = True
        placed.append((i, code))
    if walls_drawn:
        sides_before = [side_complete(cells, k) for k in range(len(SIDES))]
    for i, code in placed:
        cells[i] = code
    for i, code in placed:
        if code in PERSON_CODES:
            _person_effect(player, cells, i, code)
        elif code == _ORD_H:
            player.vp += 3
            player.logs = max(0, player.logs - 1)
    if walls_drawn:
        for k, side in enumerate(SIDES):
            if not sides_before[k] and side_complete(cells, k):
                player.coins += side.bonus_coins
                player.vp += side.bonus_vp
    effects = Effects(player.vp - vp0, player.coins - coins0, player.logs - logs0)
    swords = action.dice.count("swords")
    if swords:
        before = state.pirate_boxes
        state.pirate_boxes, attacks = state.track.mark(before, swords)
        effects.pirate_boxes = state.pirate_boxes - before
        for row, strength in attacks:
            lost = [k for k, p in enumerate(state.players) if defence(p.cells) < strength]
            for k in lost:
                state.players[k].cannons_lost += 1
            effects.attacks.append({"row": row, "strength": strength, "lost_cannon": lost})
    _advance(state, action.player)
    return effects


def _person_effect(player: PlayerState, cells: bytearray, i: int, code: int) -> None:
    ch = chr(code)
    if ch == "c":
        player.vp += 1
    elif ch == "p":
        player.vp += sum(1 for j in N8[i] if cells[j] in CHURCH_CODES)
    elif ch == "m":
        player.coins += sum(1 for j in N8[i] if cells[j] == CRATE)
    elif ch == "j":
        player.vp += 2 * len({cells[j] for j in N8[i] if cells[j] in PERSON_CODES})
    elif ch == "n":
        player.vp += 7


def _advance(state: GameState, acted: int) -> None:
    """Next player; the round is finished once someone's city is full, then the game ends."""
    if EMPTY not in state.players[acted].cells:
        state.final_round = True
    state.turn += 1
    nxt = (acted + 1) % len(state.players)
    state.current_player = nxt
    if state.final_round and nxt == state.start_player:
        state.finished = True


# ------------------------------------------------------------------------------------------------- judge

def judge(state: GameState, action: Action) -> Verdict:
    """Every broken rule of ``action`` on ``state``; the state after it when legal.

    Raises ActionError only for malformed input (unknown cell/face/item, bad player index, not 5 dice).
    """
    validate_action(action, len(state.players))
    errors = violations(state, action)
    if errors:
        return Verdict(False, errors, Effects(), state)
    after = state.copy()
    effects = resolve(after, action)
    return Verdict(True, [], effects, after)


def apply(state: GameState, action: Action) -> GameState:
    verdict = judge(state, action)
    if not verdict.legal:
        raise IllegalMove(verdict.errors)
    return verdict.state


def apply_forced(state: GameState, action: Action) -> GameState:
    """What was drawn stands (the players overrode the judge): apply it and its effects unchecked."""
    validate_action(action, len(state.players))
    after = state.copy()
    resolve(after, action)
    return after


def free_option(player: PlayerState, dice: tuple[str, ...] | list[str]) -> str | None:
    """An action the player can take with the dice as they fell, turning none (a sentence), or None.

    Turning is optional ("potete decidere di ruotarne uno o più"): when only a paid turn would allow an
    action, the player may pass.
    """
    cells = player.cells
    any_empty = EMPTY in cells
    any_outer = any(cells[i] == EMPTY for i in OUTER_LIST)
    for sym in SYMBOLS:
        k = dice.count(sym)
        if k == 0:
            continue
        shown = f"{_dice(k)} show{'s' if k == 1 else ''} {sym}"
        if sym == "log":
            if player.coins >= 2:
                return f"{shown}: a log delivery (2 coins) was possible"
        elif sym == "wall":
            if any_outer:
                return f"{shown}: a wall in an empty outer space was possible"
        elif any_empty:
            what = {"crate": "a crate", "cross": "a church of size 1", "head": "a citizen"}[sym]
            return f"{shown}: {what} in an empty space was possible"
    return None


def has_option(player: PlayerState, dice: tuple[str, ...] | list[str]) -> bool:
    """Can the player use at least one die of some symbol, turning none (else the pass is allowed)?"""
    return free_option(player, dice) is not None


def violations(state: GameState, action: Action) -> list[RuleViolation]:
    errors: list[RuleViolation] = []
    add = errors.append
    if state.finished:
        add(RuleViolation("game.over", "The game is over: the round in which a city was filled has been finished."))
    if action.player != state.current_player:
        mover = state.players[action.player].name or "unnamed"
        add(RuleViolation("turn.not_current", f"It is player {state.current_player}'s turn "
                          f"({state.players[state.current_player].name or 'unnamed'}), but this move was made by "
                          f"player {action.player} ({mover})."))
    player = state.players[action.player]
    who = f"{player.name} (player {action.player})" if player.name else f"player {action.player}"
    cells = player.cells
    dice, sym, turned = action.dice, action.symbol, action.turned
    swords = dice.count("swords")

    # where things are drawn: filled, towers, twice in one turn
    seen: set[int] = set()
    ok_cells: list[tuple[int, str]] = []
    for cell, item in action.place:
        i = CELL_INDEX[cell]
        if i in seen:
            add(RuleViolation("place.duplicate", f"{cell} is drawn twice this turn; each item takes its own empty space."))
            continue
        seen.add(i)
        if i in TOWER_CELLS:
            add(RuleViolation("place.tower", f"{cell} is a tower, not a space; nothing is drawn on towers."))
            continue
        if cells[i] != EMPTY:
            add(RuleViolation("place.filled", f"{cell} already holds {_DESCRIBE.get(chr(cells[i]), repr(chr(cells[i])))}; "
                              "everything is drawn in an empty space and a filled space is never reused."))
        ok_cells.append((i, item))

    if sym == "swords":
        add(RuleViolation("dice.turn_swords", "Swords is not a symbol you can choose: no die can be turned to "
                          "swords and swords are never used for an action (they are only marked on the pirate track)."))
        return errors
    if action.logs and sym != "log":
        add(RuleViolation("log.not_log_action", f"{action.logs} logs delivered, but logs are only delivered "
                          "with the log symbol."))

    used = 0
    sized: tuple[int, str] | None = None  # the church or person whose size sets the dice used
    houses: list[int] = []
    architect: int | None = None
    if sym is None:
        for i, item in ok_cells:
            add(RuleViolation("place.wrong_item", f"{CELL_NAMES[i]}: {_DESCRIBE[item]} is drawn but no symbol was chosen."))
        if turned:
            # dice are turned only to the symbol chosen, never to or from swords, and a pass chooses none
            add(RuleViolation("pass.turned", f"{_dice(turned)} turned in a pass: dice are turned only to the symbol "
                              "chosen to use, so a turn that uses no symbol turns none (and pays nothing)."))
    elif sym == "log":
        used = action.logs
        for i, item in ok_cells:
            add(RuleViolation("place.wrong_item", f"{CELL_NAMES[i]}: a log action draws nothing in the city, "
                              f"but {_DESCRIBE[item]} is drawn."))
    elif sym == "crate":
        crates = [i for i, item in ok_cells if item == "G"]
        used = sum(1 for p in action.place if p.item == "G")
        for i, item in ok_cells:
            if item != "G":
                add(RuleViolation("place.wrong_item", f"{CELL_NAMES[i]}: a crate action draws only crates, "
                                  f"but {_DESCRIBE[item]} is drawn."))
        groups = components(crates)
        if len(groups) > 1:
            add(RuleViolation("crate.connected", f"Crates {_groups_text(groups)} are not connected to each other; "
                              "all crates of one turn must form one orthogonally connected group."))
    elif sym == "wall":
        walls = [i for i, item in ok_cells if item == "W"]
        used = sum(1 for p in action.place if p.item == "W")
        inner = [i for i in walls if i not in OUTER]
        if inner:
            add(RuleViolation("wall.outer_only", f"Wall{'s' if len(inner) > 1 else ''} at {names(inner)}: walls go "
                              "only in the outer (dark) spaces, never in the inner ones."))
        persons = [(i, item) for i, item in ok_cells if item in PERSON_LEVEL]
        for i, item in ok_cells:
            if item not in PERSON_LEVEL and item not in "WH":
                add(RuleViolation("place.wrong_item", f"{CELL_NAMES[i]}: a wall action draws only walls (and the top "
                                  f"tower's bonus person), but {_DESCRIBE[item]} is drawn."))
        if persons:
            errors.extend(_bonus_person_errors(cells, walls, persons))
            architect = next((i for i, item in persons if item == "a"), None)
    elif sym == "cross":
        churches = [(i, item) for i, item in ok_cells if item in "12345"]
        all_churches = [p for p in action.place if p.item in "12345"]
        for i, item in ok_cells:
            if item not in "12345":
                add(RuleViolation("place.wrong_item", f"{CELL_NAMES[i]}: a cross action draws one church, "
                                  f"but {_DESCRIBE[item]} is drawn."))
        if len(all_churches) > 1:
            add(RuleViolation("cross.one_church", f"Churches at {names(i for i, _ in churches)}: the crosses make one "
                              "church only (3 crosses are one church of size 1, 2 or 3, never two churches)."))
        used = max((int(p.item) for p in all_churches), default=0)
        sized = next(((CELL_INDEX[p.cell], p.item) for p in all_churches if int(p.item) == used), None)
    elif sym == "head":
        persons = [(i, item) for i, item in ok_cells if item in PERSON_LEVEL]
        all_persons = [p for p in action.place if p.item in PERSON_LEVEL]
        for i, item in ok_cells:
            if item not in PERSON_LEVEL and item != "H":
                add(RuleViolation("place.wrong_item", f"{CELL_NAMES[i]}: a head action draws one person, "
                                  f"but {_DESCRIBE[item]} is drawn."))
        if len(all_persons) > 1:
            add(RuleViolation("head.one_person", f"Persons at {names(i for i, _ in persons)}: the heads make one person "
                              "only (4 heads are a juggler or fewer heads used, never a citizen plus an architect)."))
        used = max((PERSON_LEVEL[p.item] for p in all_persons), default=0)
        sized = next(((CELL_INDEX[p.cell], p.item) for p in all_persons if PERSON_LEVEL[p.item] == used), None)
        architect = next((i for i, item in persons if item == "a"), None)
    if sym in ("wall", "head"):  # the only actions that can bring an architect (3 heads, or the top tower)
        houses = [i for i, item in ok_cells if item == "H"]
        if houses and architect is None:
            add(RuleViolation("house.no_architect", f"House{'s' if len(houses) > 1 else ''} at {names(houses)}: "
                              "houses are built only by an architect placed this turn."))
            houses = []
    if architect is not None and houses:
        errors.extend(_house_errors(player, architect, houses, len([p for p in action.place if p.item == "H"])))

    # dice: used, shown, turned, coins
    if sym is not None:
        shown = dice.count(sym)
        turnable_total = 5 - shown
        turnable = turnable_total - swords
        if turned > turnable_total:
            add(RuleViolation("dice.turn_count", f"{_dice(turned)} turned to {sym}, but only {_dice(turnable_total)} "
                              f"show something other than {sym}."))
        elif turned > turnable:
            add(RuleViolation("dice.turn_swords", f"{_dice(turned)} turned to {sym}, but {swords} of the "
                              f"{turnable_total} other dice show swords, which can never be turned; at most "
                              f"{turnable} can be turned."))
        if used > shown + turned:
            have = (f"only {shown} show{'s' if shown == 1 else ''} {sym} and {turned} "
                    f"{'was' if turned == 1 else 'were'} turned (2 coins each)")
            if sized is not None and sym == "cross":
                need = (f"The church of size {used} at {CELL_NAMES[sized[0]]} needs {used} crosses (a church's size "
                        f"is the number of crosses used), but {have}.")
            elif sized is not None and sym == "head":
                need = (f"The {_PERSON_NAME[sized[1]]} at {CELL_NAMES[sized[0]]} is a level-{used} person and needs "
                        f"{used} heads (a person's level is the number of heads used), but {have}.")
            else:
                need = f"{_dice(used)} used for {sym} (one die per item drawn), but {have}."
            add(RuleViolation("dice.too_few", need))
        elif turned > max(0, used - shown):
            add(RuleViolation("dice.turn_unused", f"{_dice(turned)} turned to {sym} but only {max(0, used - shown)} "
                              f"needed: {shown} already show {sym} and {used} {'is' if used == 1 else 'are'} used; "
                              "dice are turned only to be used."))
        if 2 * turned > player.coins:
            add(RuleViolation("dice.turn_coins", f"Turning {_dice(turned)} costs {2 * turned} coins, but {who} "
                              f"has {player.coins}."))
        if sym == "log" and used > 0 and player.coins - 2 * turned < 2:
            add(RuleViolation("log.coins", f"A log delivery costs 2 coins; {who} has {player.coins}"
                              + (f" and pays {2 * turned} for turning" if turned else "") + "."))
    possible = free_option(player, dice) if used == 0 else None
    if possible is not None:
        add(RuleViolation("action.must_use", f"No die is used, but {possible}: a player must choose a symbol and "
                          "use at least one die of it (only swords alone may be scored when nothing can be used "
                          "without turning a die)."))
    return errors


def _groups_text(groups: list[list[int]]) -> str:
    """'C5 and E5', 'B2, C5 and E5+E6' (a group of several cells joined by '+')."""
    parts = ["+".join(CELL_NAMES[i] for i in g) for g in groups]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _dice(n: int) -> str:
    return f"{n} die" if n == 1 else f"{n} dice"


def _bonus_person_errors(cells: bytearray, walls: list[int], persons: list[tuple[int, str]]) -> list[RuleViolation]:
    out: list[RuleViolation] = []
    lo, hi = PERSON_BONUS_LEVELS
    if len(persons) > 1:
        out.append(RuleViolation("bonus.one_person", f"Persons at {names(i for i, _ in persons)}: a wall action "
                                 "brings at most one person, the top tower's bonus."))
    for i, item in persons:
        if not lo <= PERSON_LEVEL[item] <= hi:
            out.append(RuleViolation("bonus.level", f"{CELL_NAMES[i]}: the tower bonus is a person of level {lo}-{hi} "
                                     f"(citizen, soldier, priest, architect or merchant), not a {_PERSON_NAME[item]}."))
    earned = False
    if PERSON_SIDE >= 0 and not side_complete(cells, PERSON_SIDE):
        side = SIDE_CELLS[PERSON_SIDE]
        wall_set = set(walls)
        earned = all(cells[i] == WALL or i in wall_set for i in side)
    if not earned:
        side_name = SIDES[PERSON_SIDE].name if PERSON_SIDE >= 0 else "top"
        out.append(RuleViolation("bonus.not_earned", f"Person at {names(i for i, _ in persons)}: in a wall action a "
                                 f"person is drawn only as the bonus of the {side_name} side "
                                 f"({names(SIDE_CELLS[PERSON_SIDE])}), which these walls do not complete."))
    return out


def _house_errors(player: PlayerState, architect: int, houses: list[int], n_houses: int) -> list[RuleViolation]:
    out: list[RuleViolation] = []
    if n_houses > 3:
        out.append(RuleViolation("architect.max_houses", f"{n_houses} houses drawn at {names(houses)}; an architect "
                                 "builds at most 3."))
    if n_houses > player.logs:
        out.append(RuleViolation("architect.logs", f"{n_houses} house{'s' if n_houses > 1 else ''} at {names(houses)} "
                                 f"need{'s' if n_houses == 1 else ''} {n_houses} log{'s' if n_houses > 1 else ''}; "
                                 f"the lumber store holds {player.logs}."))
    groups = components(houses)
    if len(groups) > 1:
        out.append(RuleViolation("house.connected", f"Houses {_groups_text(groups)} are not connected to each other; "
                                 "the houses of one turn must form one orthogonally connected group."))
    if not any(h in N8_SETS[architect] for h in houses):
        out.append(RuleViolation("architect.adjacent", f"None of the houses at {names(houses)} touches the new architect "
                                 f"at {CELL_NAMES[architect]}; at least one must be in its 8 neighbouring cells."))
    return out


