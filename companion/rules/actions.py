"""Moves as data: contract ACTION.json <-> ``Action``.

``Action.symbol`` is one of SYMBOLS, or None for the forced pass (no symbol can be used at all, e.g.
five swords): then only the swords are scored. ``place`` lists everything drawn this turn, including
houses of an architect and a person taken as the top-tower bonus (in a wall action; see engine.py).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from companion.errors import UserError
from companion.rules.board import CELL_INDEX, ITEMS

SYMBOLS: tuple[str, ...] = ("log", "crate", "wall", "cross", "head")
FACES: tuple[str, ...] = SYMBOLS + ("swords",)
N_DICE = 5


class ActionError(UserError):
    """An ACTION.json (or Action) that cannot be read as a move; the message names the field."""


class Placement(NamedTuple):
    cell: str
    item: str

    def to_json(self) -> dict[str, str]:
        return {"cell": self.cell, "item": self.item}


class Action(NamedTuple):
    player: int
    dice: tuple[str, ...]
    symbol: str | None
    turned: int = 0
    place: tuple[Placement, ...] = ()
    logs: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "dice": list(self.dice), "symbol": self.symbol,
                "turned": self.turned, "place": [p.to_json() for p in self.place], "logs": self.logs}

    @property
    def swords(self) -> int:
        return self.dice.count("swords")

    @classmethod
    def from_json(cls, d: Any, source: str = "ACTION.json") -> Action:
        """Parse contract ACTION.json; raises ActionError naming the field (never judges legality)."""

        def fail(field: str, problem: str) -> ActionError:
            return ActionError(f"{source}: {field}: {problem}")

        if not isinstance(d, dict):
            raise fail("(top level)", "expected a JSON object")
        player = d.get("player")
        if isinstance(player, bool) or not isinstance(player, int):
            raise fail("player", f"expected a player index, got {player!r}")
        dice = d.get("dice")
        if not isinstance(dice, list):
            raise fail("dice", "missing or not a list of five faces")
        if "symbol" not in d:
            raise fail("symbol", "missing (one of log, crate, wall, cross, head; null when only swords are scored)")
        symbol = d["symbol"]
        if symbol is not None and not isinstance(symbol, str):
            raise fail("symbol", f"expected one of {', '.join(SYMBOLS)}, got {symbol!r}")
        turned = d.get("turned", 0)
        logs = d.get("logs", 0)
        for key, v in (("turned", turned), ("logs", logs)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise fail(key, f"expected a whole number >= 0, got {v!r}")
        raw_place = d.get("place", [])
        if not isinstance(raw_place, list):
            raise fail("place", "expected a list of {cell, item}")
        place = []
        for k, p in enumerate(raw_place):
            if not isinstance(p, dict):
                raise fail(f"place[{k}]", "expected an object {\"cell\": ..., \"item\": ...}")
            cell, item = p.get("cell"), p.get("item")
            if not isinstance(cell, str):
                raise fail(f"place[{k}].cell", f"expected a cell name like 'D4', got {cell!r}")
            if not isinstance(item, str):
                raise fail(f"place[{k}].item", f"expected an item in city notation, got {item!r}")
            place.append(Placement(cell.upper(), item))
        action = cls(player, tuple(dice), symbol, turned, tuple(place), logs)
        validate_action(action, None, source)
        return action


def validate_action(action: Action, n_players: int | None, source: str = "ACTION.json") -> None:
    """Malformed input (not rule breaking): raises ActionError naming the field."""

    def fail(field: str, problem: str) -> ActionError:
        return ActionError(f"{source}: {field}: {problem}")

    if n_players is not None and not 0 <= action.player < n_players:
        raise fail("player", f"{action.player} is not a player index (0..{n_players - 1})")
    if action.player < 0:
        raise fail("player", f"{action.player} is not a player index")
    for key, v in (("turned", action.turned), ("logs", action.logs)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise fail(key, f"expected a whole number >= 0, got {v!r}")
    if len(action.dice) != N_DICE:
        raise fail("dice", f"{len(action.dice)} dice; a roll has exactly {N_DICE}")
    for k, face in enumerate(action.dice):
        if face not in FACES:
            raise fail(f"dice[{k}]", f"unknown face {face!r} (faces are {', '.join(FACES)})")
    # 'swords' is a face but never a symbol: that is a rule (dice.turn_swords), judged, not malformed.
    if action.symbol is not None and action.symbol not in FACES:
        raise fail("symbol", f"unknown symbol {action.symbol!r} (symbols are {', '.join(SYMBOLS)})")
    for k, p in enumerate(action.place):
        if p.cell not in CELL_INDEX:
            raise fail(f"place[{k}].cell", f"unknown cell {p.cell!r} (cells are A1..G7)")
        if p.item not in ITEMS:
            raise fail(f"place[{k}].item",
                       f"unknown item {p.item!r} (items are W, G, H, 1-5, c, s, p, a, m, j, n)")
