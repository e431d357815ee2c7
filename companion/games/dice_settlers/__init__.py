"""Dice Settlers: the final scoring of PUNTEGGIO FINALE (map tiles, technologies, dice, houses, VP tokens)."""

from __future__ import annotations

from typing import Any

from companion.games.dice_settlers.scoring import (
    GAME_ID,
    MAX_PLAYERS,
    MIN_PLAYERS,
    SettlersState,
    parse_state,
    tally,
)
from companion.games.dice_settlers.sheet import SettlersLive


class DiceSettlers:
    id = GAME_ID
    name = "Dice Settlers"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    live = SettlersLive()

    def validate(self, data: Any, source: str) -> SettlersState:
        return parse_state(data, source)

    def tally(self, data: Any, source: str) -> dict[str, Any]:
        return tally(self.validate(data, source))


PLUGIN = DiceSettlers()
