"""The worked examples of the two rulebooks and of shared/other-games.md, as STATE.json."""

from __future__ import annotations

from typing import Any


# -- the examples, as STATE.json ------------------------------------------------------------------------
def tuscany_player(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, **fields}


# other-games.md A.3 example 4 (the rulebook's Anna, 9 -> 13 -> 37, extended to the end)
ANNA = {"name": "Anna", "green_at_scoring": [9, 22, 35], "orange_direct": [4, 2, 0], "green": 35, "empty_spaces": 6,
        "leftovers": {"storage_tiles": 1, "wooden_hexes": 0, "marble": 2, "workers": 1, "cards_in_hand": 7}}
# example 5: Benno, orange 75, one wooden hexagon and 10 cards
BENNO = {"name": "Benno", "orange": 75, "green": 30, "empty_spaces": 2,
         "leftovers": {"wooden_hexes": 1, "cards_in_hand": 10}}

# other-games.md B.3 example 5: a two-player game
SETTLERS_EXAMPLE = {
    "game": "dice_settlers",
    "map": [{"id": 20, "tents": {"red": 4, "blue": 2}, "house": "blue"},
            {"id": 24, "tents": {"red": 3, "blue": 1}},
            {"id": 13, "tents": {"red": 2, "blue": 2}},
            {"id": 36, "tents": {"red": 1}},
            {"id": 2, "tents": {"blue": 2}},
            {"id": 16, "tents": {"blue": 1}, "house": "red"},
            {"id": 22, "tents": {"red": 1, "blue": 1}, "house": "blue"}],
    "players": [{"name": "Anna", "color": "red", "tech_vp": {"Prosperità": 4, "Costruttore": 3},
                 "dice_owned": 9, "houses_on_map": 2, "vp_tokens": 17, "bot": False},
                {"name": "Bruno", "color": "blue", "tech_vp": {"Stabilità": 4},
                 "dice_owned": 11, "houses_on_map": 3, "vp_tokens": 8}],
}
