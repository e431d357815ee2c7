"""Dice Settlers kept on the dashboard: the map, the cards and each player's pad, from the game's events.

Events (after ``{"type": "start", "game": "dice-settlers", "players": [...]}``); each one sets a thing
whole, so the latest word on a tile, a card or a player is the one that counts:
    {"type": "tile", "tile": 20, "tents": [4, 2], "house": 1}        # tents per player, house: a player or null
    {"type": "remove_tile", "tile": 20}
    {"type": "tech", "name": "Prosperità", "vp": 4, "markers": [0], "exploding": false, "vp_per_technology": 0}
    {"type": "remove_tech", "name": "Prosperità"}
    {"type": "player", "player": 0, "dice_owned": 9, "houses_on_map": null, "vp_tokens": 17,
     "color": "red", "bot": false, "techs_researched": null, "resources_left": 0}
    {"type": "finish"}                                                # the game is over: the tally stands
    {"type": "undo"}                                                  # (companion.games.standing_events)
The score pad is the tally of ``state_json()`` through scoring.py, the same code as ``companion tally``.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from companion.errors import UserError
from companion.games.dice_settlers.scoring import (
    GAME_ID,
    MAX_PLAYERS,
    MIN_PLAYERS,
    explain_tile,
    parse_state,
    tally,
)
from companion.games.dice_settlers.tiles import TECHNOLOGY_NAMES, TILES, tiles_in_play
from companion.games.fields import get_whole, name_of, unique_names

PLAYER_FIELDS = ("dice_owned", "houses_on_map", "vp_tokens", "color", "bot", "techs_researched", "resources_left")
EVENT_TYPES = "tile, remove_tile, tech, remove_tech, player, finish, undo"


def _said(key: str, value: Any) -> str:
    if key == "houses_on_map" and value is None:
        return "houses counted from the map"
    if key == "bot":
        return "the solo bot" if value else "not the bot"
    return f"{key.replace('_', ' ')} {value if value is not None else '(none)'}"


class SettlersSheet:
    def __init__(self, names: Sequence[str]) -> None:
        self.players: list[dict[str, Any]] = [
            {"name": n, "color": None, "dice_owned": 5, "houses_on_map": None, "vp_tokens": 0, "bot": False,
             "techs_researched": None, "resources_left": 0}
            for n in names]  # each player starts with 5 dice (3 white, 1 green, 1 yellow)
        self.map: dict[int, dict[str, Any]] = {}
        self.technologies: dict[str, dict[str, Any]] = {}
        self.finished = False
        self.log: list[str] = []

    @property
    def names(self) -> list[str]:
        return [p["name"] for p in self.players]

    def state_json(self) -> dict[str, Any]:
        """The table as ``companion tally --game dice-settlers`` reads it."""
        return {"game": GAME_ID, "players": [dict(p) for p in self.players],
                "map": [dict(self.map[k]) for k in sorted(self.map)],
                "technologies": [dict(c) for c in self.technologies.values()]}

    # -- events -----------------------------------------------------------------------------------
    def apply(self, event: dict[str, Any], where: str = "entry", *, check: bool = True) -> None:
        """Apply one entry; with ``check`` the table it leaves must make sense (replay checks once, at the end)."""
        kind = event.get("type")
        if self.finished:
            raise UserError(f"{where}: the game is over; undo the end to change the score")
        if kind == "tile":
            number = get_whole(event, "tile", where, "tile", low=1, high=max(TILES))
            entry = {"id": number, "tents": event.get("tents") or [0] * len(self.players),
                     "house": event.get("house")}
            self.map[number] = entry
            self.log.append(f"Tile {number}: tents " + ", ".join(
                f"{n} {t}" for n, t in zip(self.names, entry["tents"], strict=False))
                + (f"; house of {self.names[entry['house']]}" if isinstance(entry["house"], int)
                   and 0 <= entry["house"] < len(self.players) else ""))
        elif kind == "remove_tile":
            number = get_whole(event, "tile", where, "tile", low=1, high=max(TILES))
            if self.map.pop(number, None) is None:
                raise UserError(f"{where}: tile {number} is not on the map")
            self.log.append(f"Tile {number} taken off the map")
        elif kind == "tech":
            name = name_of(event.get("name"), where, "name", max_len=40)
            self.technologies[name.casefold()] = {
                "name": name, "vp": event.get("vp", 0), "markers": list(event.get("markers") or []),
                "exploding": bool(event.get("exploding", False)),
                "vp_per_technology": event.get("vp_per_technology", 0)}
            self.log.append(f"Technology {name}: {event.get('vp', 0)} VP")
        elif kind == "remove_tech":
            name = name_of(event.get("name"), where, "name", max_len=40)
            if self.technologies.pop(name.casefold(), None) is None:
                raise UserError(f"{where}: there is no technology card {name!r}")
            self.log.append(f"Technology {name} taken off")
        elif kind == "player":
            k = get_whole(event, "player", where, "player", high=len(self.players) - 1)
            given = {key: event[key] for key in PLAYER_FIELDS if key in event}
            if not given:
                raise UserError(f"{where}: nothing to change (fields: {', '.join(PLAYER_FIELDS)})")
            changed = {key: value for key, value in given.items() if self.players[k].get(key) != value}
            self.players[k].update(given)
            self.log.append(f"{self.names[k]}: " + (", ".join(_said(key, value) for key, value in changed.items())
                                                    or "unchanged"))
        elif kind == "finish":
            self.finished = True
            self.log.append("Final scoring: the game is over")
        else:
            raise UserError(f"{where}.type: {kind!r} is not an event of {GAME_ID} ({EVENT_TYPES})")
        if check:
            parse_state(self.state_json(), where)  # the table as it now stands must make sense

    # -- results ----------------------------------------------------------------------------------
    def score(self) -> dict[str, Any]:
        return tally(parse_state(self.state_json(), "game"))

    def tally(self) -> dict[str, Any] | None:
        return self.score() if self.finished else None

    def view(self) -> dict[str, Any]:
        score = self.score()
        for tile in score["map"]:
            tile["why"] = explain_tile(tile)
        rows = [("map_tiles", "Map tiles"), ("technology", "Technology"), ("dice", "Dice (3 per 2)"),
                ("houses", "Houses (1/4/9/16/25)"), ("vp_tokens", "VP tokens")]
        if any(p["bot"] for p in self.players):
            rows.append(("bot_extra", "Bot: techs + resources"))
        map_entries = []
        for number in sorted(self.map):
            entry = self.map[number]
            map_entries.append({**entry, "tile": TILES[number], "house_name":
                                None if entry["house"] is None else self.names[entry["house"]]})
        top = max(p["total"] for p in score["players"])
        return {
            "game": GAME_ID, "players": [dict(p, index=k) for k, p in enumerate(self.players)],
            "score": score, "pad_rows": rows, "map": map_entries, "tile_scores": score["map"],
            "technologies": list(self.technologies.values()),
            "tiles_in_play": tiles_in_play(len(self.players)),
            "free_tiles": [t for t in tiles_in_play(len(self.players)) if t.id not in self.map],
            "tech_names": TECHNOLOGY_NAMES, "finished": self.finished, "tally": self.tally(), "log": list(reversed(self.log)),
            "leaders": [p["name"] for p in score["players"] if p["total"] == top],
            "why": (f"{' and '.join(score['winners'])} share the win with {top} VP." if len(score["winners"]) > 1
                    else f"{score['winners'][0]} wins with {top} VP."),
        }


class SettlersLive:
    template = "games/dice_settlers.html"

    def start_event(self, names: Sequence[str], options: dict[str, Any]) -> dict[str, Any]:
        if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
            raise UserError(f"Dice Settlers is for {MIN_PLAYERS} to {MAX_PLAYERS} players (a solo game: you and "
                            f"the bot), not {len(names)}")
        cleaned = [name_of(n, "setup", f"player {k + 1}") for k, n in enumerate(names)]
        unique_names(cleaned, "setup", "players")
        return {"type": "start", "game": GAME_ID, "players": cleaned}

    def replay(self, events: Sequence[dict[str, Any]]) -> SettlersSheet:
        sheet = SettlersSheet(list(events[0].get("players") or []))
        for k, event in enumerate(events[1:], start=1):
            sheet.apply(event, f"events[{k}]", check=False)
        parse_state(sheet.state_json(), "the game's events")  # each entry was checked when it came in
        return sheet

    def check_event(self, sheet: SettlersSheet, event: dict[str, Any]) -> dict[str, Any]:
        kind = event.get("type")
        n = len(sheet.players)
        if kind == "tile":
            tents = event.get("tents")
            if not isinstance(tents, list) or len(tents) != n:
                raise UserError(f"tents: give one count per player ({n})")
            house = event.get("house")
            if house in ("", "none", None):
                house = None
            elif not (isinstance(house, int) and not isinstance(house, bool) and 0 <= house < n):
                raise UserError(f"house: {house!r} is not a player (0 to {n - 1}) or none")
            stored: dict[str, Any] = {"type": "tile", "tile": event.get("tile"), "tents": tents, "house": house}
        elif kind in ("remove_tile", "remove_tech"):
            key = "tile" if kind == "remove_tile" else "name"
            stored = {"type": kind, key: event.get(key)}
        elif kind == "tech":
            stored = {"type": "tech", "name": event.get("name"), "vp": event.get("vp", 0),
                      "markers": event.get("markers") or [], "exploding": bool(event.get("exploding", False)),
                      "vp_per_technology": event.get("vp_per_technology", 0)}
        elif kind == "player":
            stored = {"type": "player", "player": event.get("player"),
                      **{key: event[key] for key in PLAYER_FIELDS if key in event}}
            if isinstance(stored.get("color"), str) and not stored["color"].strip():
                stored["color"] = None  # a blank colour: the player is named by name
        elif kind == "finish":
            stored = {"type": "finish"}
        else:
            raise UserError(f"event type {kind!r} is not one of {GAME_ID}'s ({EVENT_TYPES})")
        copy.deepcopy(sheet).apply(stored)  # refuses what the sheet would refuse, without touching it
        return stored
