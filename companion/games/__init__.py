"""Games as plugins: one package per game, one small interface the command and the dashboard use.

A plugin says who it is (``id``, ``name``, how many players), checks and tallies a STATE.json of its
game (``companion tally --game ID``), and names its page. Games kept on the dashboard by hand (every
game but Saint Malo, whose camera tracker keeps its own log) also replay a list of events into a score
sheet: the store keeps those events, so the sheet is whatever the log says, after a power cut too.

Events of a hand-kept game are plain JSON-able dicts. ``{"type": "start", ...}`` comes first;
``{"type": "undo"}`` takes back the latest event still standing (never the start); every other type
belongs to the game (``LiveRules.check_event`` says which are allowed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from companion.errors import UserError

SAINT_MALO = "saint-malo"


class ScoreSheet(Protocol):
    """A hand-kept game replayed from its events: what the page shows and the tally once it is over."""

    finished: bool

    def view(self) -> dict[str, Any]:
        """Everything the game's page draws (JSON-able)."""
        ...

    def tally(self) -> dict[str, Any] | None:
        """The final tally (the same JSON as ``companion tally --game``) once it can be made, else None."""
        ...


class LiveRules(Protocol):
    """How a game is kept on the dashboard as an event log."""

    template: str  # the page's Jinja template

    def start_event(self, names: Sequence[str], options: dict[str, Any]) -> dict[str, Any]: ...

    def replay(self, events: Sequence[dict[str, Any]]) -> ScoreSheet:
        """The sheet after these events (undo already applied: see :func:`standing_events`)."""
        ...

    def check_event(self, sheet: ScoreSheet, event: dict[str, Any]) -> dict[str, Any]:
        """The event as it will be stored, or ``UserError`` naming what is wrong with it."""
        ...


class GamePlugin(Protocol):
    id: str            # "castles-of-tuscany": the --game value and the store's meta["game"]
    name: str          # shown to people
    min_players: int
    max_players: int
    live: LiveRules | None  # None: the game has its own live machinery (Saint Malo's tracker)

    def validate(self, data: Any, source: str) -> Any:
        """A parsed STATE.json checked into the game's state object; ``UserError`` naming the field."""
        ...

    def tally(self, data: Any, source: str) -> dict[str, Any]:
        """The final tally JSON of a parsed STATE.json."""
        ...


def _registry() -> dict[str, GamePlugin]:
    from companion.games.castles_of_tuscany import PLUGIN as TUSCANY
    from companion.games.dice_settlers import PLUGIN as SETTLERS
    from companion.games.saint_malo import PLUGIN as MALO

    return {p.id: p for p in (MALO, TUSCANY, SETTLERS)}


def game_ids() -> list[str]:
    return list(_registry())


def all_games() -> list[GamePlugin]:
    return list(_registry().values())


def get_game(game_id: str | None) -> GamePlugin:
    """The plugin for an id; ``castles_of_tuscany`` and ``Castles-Of-Tuscany`` name it too."""
    key = (game_id or SAINT_MALO).strip().lower().replace("_", "-").replace(" ", "-")
    games = _registry()
    if key not in games:
        raise UserError(f"unknown game {game_id!r}: games are {', '.join(games)}")
    return games[key]


def game_of(meta: dict[str, Any] | None) -> str:
    """The game id a stored game was started for (games stored before plugins are Saint Malo)."""
    return str((meta or {}).get("game") or SAINT_MALO)


def standing_events(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events still standing: each ``undo`` takes back the latest one before it (never the start)."""
    standing: list[dict[str, Any]] = []
    for k, event in enumerate(events):
        if not isinstance(event, dict):
            raise UserError(f"events[{k}]: expected an object")
        if event.get("type") == "undo":
            if len(standing) <= 1:
                raise UserError(f"events[{k}]: undo with nothing to undo")
            standing.pop()
        else:
            standing.append(event)
    if not standing or standing[0].get("type") != "start":
        raise UserError("events[0]: the log must begin with a start event")
    return standing


CURRENT_GAME_SETTING = "current_game"  # the store setting naming the game started or resumed last


def table_game(store: Any) -> tuple[int, dict[str, Any], bool] | None:
    """(id, meta, finished) of the table's game, whatever its kind: the one started or resumed last (the
    store's ``current_game`` setting), else the newest game."""
    games = store.list_games()
    chosen = store.get_setting(CURRENT_GAME_SETTING)
    by_id = {int(g["id"]): g for g in games}
    if chosen and str(chosen).isdigit() and int(chosen) in by_id:
        g = by_id[int(chosen)]
    elif games:
        g = games[0]
    else:
        return None
    return int(g["id"]), dict(g.get("meta") or {}), g.get("finished") is not None


def hand_kept_game_on_table(store: Any) -> int | None:
    """The id of the table's game when it is one kept by hand (not Saint Malo), else None."""
    game = table_game(store)
    if game is None or game_of(game[1]) == SAINT_MALO:
        return None
    return game[0]
