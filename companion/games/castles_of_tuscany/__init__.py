"""Castles of Tuscany: the green and orange tracks, three scoring phases, the end bonuses."""

from __future__ import annotations

from typing import Any

from companion.games.castles_of_tuscany.scoring import (
    GAME_ID,
    MAX_PLAYERS,
    MIN_PLAYERS,
    TuscanyState,
    parse_state,
    tally,
)
from companion.games.castles_of_tuscany.sheet import TuscanyLive


class CastlesOfTuscany:
    id = GAME_ID
    name = "Castles of Tuscany"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    live = TuscanyLive()

    def validate(self, data: Any, source: str) -> TuscanyState:
        return parse_state(data, source)

    def tally(self, data: Any, source: str) -> dict[str, Any]:
        return tally(self.validate(data, source))


PLUGIN = CastlesOfTuscany()
