"""Saint Malo behind the plugin interface: the rules engine and the camera tracker, unchanged."""

from __future__ import annotations

from typing import Any

from companion.games import SAINT_MALO
from companion.rules import GameState, final_tally


class SaintMalo:
    id = SAINT_MALO
    name = "Saint Malo"
    min_players = 2
    max_players = 5
    live = None  # the tracker (companion.tracker) keeps its game; the dashboard is web.routes

    def validate(self, data: Any, source: str) -> GameState:
        return GameState.from_json(data, source=source)

    def tally(self, data: Any, source: str) -> dict[str, Any]:
        return final_tally(self.validate(data, source)).to_json()


PLUGIN = SaintMalo()
