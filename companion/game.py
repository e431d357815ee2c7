"""A game as an event log: moves are data, the state is the replay of the log, undo is an event.

Events are plain JSON-able dicts:
    {"type": "start", "players": ["Anke", "Stefan"], "start_player": 0}
    {"type": "move", "action": {...ACTION.json...}}
    {"type": "override", "action": {...}, "reason": "players agreed it stands"}
    {"type": "undo"}                       # drops the latest move/override still standing
"""

from __future__ import annotations

from typing import Any

from companion.rules import Action, GameState, IllegalMove, StateError, Verdict, apply_forced, judge


class Game:
    def __init__(self, events: list[dict[str, Any]]) -> None:
        self._events: list[dict[str, Any]] = []
        self._history: list[GameState] = []  # state after start, then after each standing move
        for event in events:
            self._push(event)

    @classmethod
    def new(cls, names: list[str], start_player: int = 0) -> Game:
        return cls([{"type": "start", "players": list(names), "start_player": start_player}])

    @classmethod
    def from_events(cls, events: list[dict[str, Any]]) -> Game:
        return cls(events)

    @property
    def events(self) -> list[dict[str, Any]]:
        return list(self._events)

    @property
    def state(self) -> GameState:
        if not self._history:
            raise StateError("game: the event log has no start event")
        return self._history[-1]

    @property
    def moves_standing(self) -> int:
        return len(self._history) - 1

    def play(self, action: Action) -> Verdict:
        """Judge the move; when legal it is appended and becomes the state."""
        verdict = judge(self.state, action)
        if verdict.legal:
            self._events.append({"type": "move", "action": action.to_json()})
            self._history.append(verdict.state)
        return verdict

    def override(self, action: Action, reason: str) -> GameState:
        """The players say the drawing stands, legal or not: apply it and its effects unchecked."""
        self._push({"type": "override", "action": action.to_json(), "reason": reason})
        return self.state

    def undo(self) -> GameState:
        if self.moves_standing == 0:
            raise StateError("undo: there is no move to undo")
        self._push({"type": "undo"})
        return self.state

    def replay(self) -> GameState:
        """Rebuild the state from the log alone (what a restart does)."""
        return Game(self._events).state

    def _push(self, event: dict[str, Any]) -> None:
        kind = event.get("type") if isinstance(event, dict) else None
        where = f"events[{len(self._events)}]"
        if kind == "start":
            if self._history:
                raise StateError(f"{where}: a second start event")
            names = event.get("players")
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                raise StateError(f"{where}.players: expected a list of names")
            self._history.append(GameState.new(names, int(event.get("start_player", 0))))
        elif kind in ("move", "override"):
            if not self._history:
                raise StateError(f"{where}: {kind} before the start event")
            action = Action.from_json(event.get("action"), source=f"{where}.action")
            if kind == "move":
                verdict = judge(self.state, action)
                if not verdict.legal:
                    raise IllegalMove(verdict.errors)
                after = verdict.state
            else:
                after = apply_forced(self.state, action)
            self._history.append(after)
        elif kind == "undo":
            if len(self._history) <= 1:
                raise StateError(f"{where}: undo with no move to undo")
            self._history.pop()
        else:
            raise StateError(f"{where}.type: unknown event type {kind!r} (start, move, override, undo)")
        self._events.append(dict(event))

