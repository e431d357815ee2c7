"""Dice Settlers' final scoring, from the rulebook's PUNTEGGIO FINALE (``seeds/004_*.txt``).

- Map tiles: "il giocatore o i giocatori che la controllano ottengono il valore più alto. Il valore più
  basso è assegnato al giocatore o giocatori che non hanno il controllo ma hanno il numero maggiore di
  tende. In caso di parità, tutti i giocatori in parità ottengono i Punti Vittoria." Control (p. 8):
  "avete una casa sulla tessera, oppure nessuno ha una casa sulla tessera e voi siete il giocatore (o
  uno dei giocatori) con il maggior numero di tende". Reading chosen: the most tents means at least one
  (nobody on a tile controls it), for the controllers and for the lower value alike.
- Technology cards: "Tutti i giocatori con un segnalino Giocatore sulla carta ricevono i PV." The card
  values are printed only, so the table enters them. The special rules the text gives: an exploding
  technology scores only while its owner's marker is still on it (once exploded the marker is gone, so
  entering the markers on the cards is enough), and it counts for Università's number of technologies.
  Università's own figure is printed only: a card may give ``vp_per_technology`` for each technology
  its holder has a marker on (itself included -- the reading chosen). Any other special card: enter
  each player's result in that player's ``tech_vp``.
- "3 PV ogni due dadi che possiede (indipendentemente da dove siano)": 3 * (dice // 2); 9 dice -> 12.
- "1/4/9/16/25 PV per 1/2/3/4/5 case": houses squared.
- "i giocatori segnano al valore totale dei segnalini PV".
- "In caso di pareggio, tutti i giocatori in parità sono vincitori!"
- Solo bot (FINE DEL GIOCO of the solo mode): "+1 PV per ogni tecnologia che ha ricercato" and "+1 PV
  per ogni risorsa restante".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.games.dice_settlers.tiles import TILES, Tile
from companion.games.fields import (
    as_list,
    as_object,
    fail,
    get_whole,
    name_of,
    unique_names,
    whole,
)

GAME_ID = "dice-settlers"
MIN_PLAYERS, MAX_PLAYERS = 2, 4  # 2-4 players; a solo game is 2 entries: the player and the bot
MAX_DICE = 51                     # "51 dadi personalizzati"
MAX_HOUSES = 5                    # "20 case (5 per colore giocatore)"
MAX_TENTS = 99                    # tents are unlimited ("sostituiteli con altro")


def dice_vp(dice: int) -> int:
    return 3 * (dice // 2)


def houses_vp(houses: int) -> int:
    return houses * houses


@dataclass(frozen=True)
class TileScore:
    tile: Tile
    tents: tuple[int, ...]
    house: int | None
    controllers: tuple[int, ...]
    seconds: tuple[int, ...]   # the non-controllers with the most tents: the lower value
    points: tuple[int, ...]    # per player


def score_tile(tile: Tile, tents: Sequence[int], house: int | None) -> TileScore:
    """Who controls the tile, who gets the lower value, and each player's points from it."""
    n = len(tents)
    if house is not None:
        controllers = (house,)
    else:
        most = max(tents, default=0)
        controllers = tuple(i for i in range(n) if tents[i] == most) if most >= 1 else ()
    others = [i for i in range(n) if i not in controllers]
    most_other = max((tents[i] for i in others), default=0)
    seconds = tuple(i for i in others if tents[i] == most_other) if most_other >= 1 else ()
    points = [0] * n
    if tile.scores:
        for i in controllers:
            points[i] = tile.higher or 0
        for i in seconds:
            points[i] = tile.lower or 0
    return TileScore(tile, tuple(tents), house, controllers, seconds, tuple(points))


@dataclass(frozen=True)
class TechCard:
    name: str
    vp: int
    markers: tuple[int, ...]
    vp_per_technology: int = 0
    exploding: bool = False


@dataclass(frozen=True)
class SettlerPlayer:
    name: str
    color: str | None
    dice_owned: int
    houses_on_map: int | None   # None: count the houses on the map entered
    vp_tokens: int
    tech_vp: dict[str, int] = field(default_factory=dict)
    bot: bool = False
    techs_researched: int | None = None
    resources_left: int = 0


@dataclass(frozen=True)
class MapEntry:
    tile: Tile
    tents: tuple[int, ...]
    house: int | None


@dataclass(frozen=True)
class SettlersState:
    players: tuple[SettlerPlayer, ...]
    map: tuple[MapEntry, ...]
    technologies: tuple[TechCard, ...]


class PlayerKeys:
    """Players are named in the map and on the cards by colour or by name (any case)."""

    def __init__(self, players: Sequence[SettlerPlayer]) -> None:
        self.index: dict[str, int] = {}
        self.count = len(players)
        for k, p in enumerate(players):
            for key in (p.name, p.color):
                if key:
                    self.index.setdefault(key.casefold(), k)
        self.known = ", ".join(p.color or p.name for p in players)

    def find(self, key: Any, source: str, field_name: str) -> int:
        if isinstance(key, bool):
            raise fail(source, field_name, f"{key!r} is not a player")
        if isinstance(key, int):  # a seat index, as the dashboard stores them
            return whole(key, source, field_name, 0, self.count - 1)
        if not isinstance(key, str) or key.casefold() not in self.index:
            raise fail(source, field_name, f"{key!r} is not a player's colour or name ({self.known})")
        return self.index[key.casefold()]


def _bool(data: dict[str, Any], key: str, source: str, field_name: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise fail(source, field_name, f"expected true or false, not {value!r}")
    return value


def parse_player(raw: Any, source: str, where: str) -> SettlerPlayer:
    data = as_object(raw, source, where)
    name = name_of(data.get("name"), source, f"{where}.name")
    color = data.get("color")
    if color is not None:
        color = name_of(color, source, f"{where}.color", max_len=20)
    tech_vp_raw = as_object(data.get("tech_vp", {}), source, f"{where}.tech_vp")
    tech_vp = {str(card): whole(vp, source, f"{where}.tech_vp.{card}", high=99) for card, vp in tech_vp_raw.items()}
    bot = _bool(data, "bot", source, f"{where}.bot")
    return SettlerPlayer(
        name=name, color=color,
        dice_owned=get_whole(data, "dice_owned", source, f"{where}.dice_owned", high=MAX_DICE),
        houses_on_map=(None if data.get("houses_on_map") is None else
                       get_whole(data, "houses_on_map", source, f"{where}.houses_on_map", high=MAX_HOUSES)),
        vp_tokens=get_whole(data, "vp_tokens", source, f"{where}.vp_tokens", default=0),
        tech_vp=tech_vp, bot=bot,
        techs_researched=(None if data.get("techs_researched") is None else
                          get_whole(data, "techs_researched", source, f"{where}.techs_researched", high=99)),
        resources_left=get_whole(data, "resources_left", source, f"{where}.resources_left", default=0),
    )


def parse_map_entry(raw: Any, keys: PlayerKeys, n: int, source: str, where: str) -> MapEntry:
    data = as_object(raw, source, where)
    number = get_whole(data, "id", source, f"{where}.id", low=1, high=max(TILES))
    tents = [0] * n
    raw_tents = data.get("tents", {})
    if isinstance(raw_tents, list):  # one count per player, in the players' order
        if len(raw_tents) != n:
            raise fail(source, f"{where}.tents", f"{len(raw_tents)} counts for {n} players")
        tents = [whole(t, source, f"{where}.tents[{k}]", high=MAX_TENTS) for k, t in enumerate(raw_tents)]
    else:
        for key, count in as_object(raw_tents, source, f"{where}.tents").items():
            k = keys.find(key, source, f"{where}.tents.{key}")
            tents[k] = whole(count, source, f"{where}.tents.{key}", high=MAX_TENTS)
    house_raw = data.get("house")
    house = None if house_raw in (None, "") else keys.find(house_raw, source, f"{where}.house")
    return MapEntry(TILES[number], tuple(tents), house)


def parse_tech(raw: Any, keys: PlayerKeys, source: str, where: str) -> TechCard:
    data = as_object(raw, source, where)
    name = name_of(data.get("name"), source, f"{where}.name", max_len=40)
    markers = []
    for k, key in enumerate(as_list(data.get("markers", []), source, f"{where}.markers")):
        index = keys.find(key, source, f"{where}.markers[{k}]")
        if index in markers:
            raise fail(source, f"{where}.markers[{k}]", "a player has one marker on a card")
        markers.append(index)
    return TechCard(name, get_whole(data, "vp", source, f"{where}.vp", default=0, high=99), tuple(markers),
                    get_whole(data, "vp_per_technology", source, f"{where}.vp_per_technology", default=0, high=20),
                    _bool(data, "exploding", source, f"{where}.exploding"))


def parse_state(data: Any, source: str) -> SettlersState:
    top = as_object(data, source, "(top level)")
    game = top.get("game")
    if game is not None and str(game).lower().replace("_", "-") != GAME_ID:
        raise fail(source, "game", f"{game!r} is not {GAME_ID}")
    raw_players = as_list(top.get("players"), source, "players")
    if not MIN_PLAYERS <= len(raw_players) <= MAX_PLAYERS:
        raise fail(source, "players", f"{len(raw_players)} players; Dice Settlers is for {MIN_PLAYERS} to "
                   f"{MAX_PLAYERS} (a solo game lists the player and the bot)")
    players = tuple(parse_player(p, source, f"players[{k}]") for k, p in enumerate(raw_players))
    unique_names([p.name for p in players], source, "players")
    colors = [p.color.casefold() for p in players if p.color]
    if len(set(colors)) != len(colors):
        raise fail(source, "players", "two players have the same colour")
    keys = PlayerKeys(players)
    n = len(players)
    entries = []
    seen: set[int] = set()
    for k, raw in enumerate(as_list(top.get("map", []), source, "map")):
        entry = parse_map_entry(raw, keys, n, source, f"map[{k}]")
        if entry.tile.id in seen:
            raise fail(source, f"map[{k}].id", f"tile {entry.tile.id} is on the map twice")
        seen.add(entry.tile.id)
        entries.append(entry)
    techs = []
    for k, raw in enumerate(as_list(top.get("technologies", []), source, "technologies")):
        card = parse_tech(raw, keys, source, f"technologies[{k}]")
        if any(c.name.casefold() == card.name.casefold() for c in techs):
            raise fail(source, f"technologies[{k}].name", f"{card.name!r} is listed twice")
        techs.append(card)
    for k, p in enumerate(players):
        on_map = sum(1 for e in entries if e.house == k)
        if p.houses_on_map is not None and p.houses_on_map < on_map:
            raise fail(source, f"players[{k}].houses_on_map",
                       f"{p.houses_on_map}, but the map shows {on_map} of {p.name}'s houses")
        if on_map > MAX_HOUSES:
            raise fail(source, "map", f"{p.name} has {on_map} houses on the map; a player has {MAX_HOUSES}")
    return SettlersState(players, tuple(entries), tuple(techs))


def technologies_of(state: SettlersState, k: int) -> int:
    """How many technologies player k has a marker on (the cards listed, then the player's own list)."""
    on_cards = {c.name.casefold() for c in state.technologies if k in c.markers}
    return len(on_cards | {name.casefold() for name in state.players[k].tech_vp})


def tally(state: SettlersState) -> dict[str, Any]:
    n = len(state.players)
    tiles = [score_tile(e.tile, e.tents, e.house) for e in state.map]
    names = [p.name for p in state.players]
    rows = []
    for k, p in enumerate(state.players):
        map_vp = sum(t.points[k] for t in tiles)
        tech = sum(p.tech_vp.values())
        for card in state.technologies:
            if k in card.markers:
                tech += card.vp + card.vp_per_technology * technologies_of(state, k)
        houses = p.houses_on_map if p.houses_on_map is not None else sum(1 for e in state.map if e.house == k)
        bot_extra = 0
        if p.bot:
            researched = p.techs_researched if p.techs_researched is not None else technologies_of(state, k)
            bot_extra = researched + p.resources_left
        row = {"name": p.name, "map_tiles": map_vp, "technology": tech, "dice": dice_vp(p.dice_owned),
               "houses": houses_vp(houses), "vp_tokens": p.vp_tokens, "bot_extra": bot_extra}
        row["total"] = sum(row[key] for key in ("map_tiles", "technology", "dice", "houses", "vp_tokens",
                                                 "bot_extra"))
        row.update({"color": p.color, "dice_owned": p.dice_owned, "houses_on_map": houses})
        rows.append(row)
    top = max(r["total"] for r in rows)
    warnings = [f"tile {e.tile.id} is used only with {e.tile.min_players} or more players"
                for e in state.map if e.tile.min_players > max(2, n)]
    return {
        "players": rows,
        "winners": [r["name"] for r in rows if r["total"] == top],
        "map": [{"id": t.tile.id, "higher": t.tile.higher, "lower": t.tile.lower,
                 "control": [names[i] for i in t.controllers], "lower_to": [names[i] for i in t.seconds],
                 "points": {names[i]: t.points[i] for i in range(n) if t.points[i]}} for t in tiles],
        "warnings": warnings,
    }


def explain_tile(score: dict[str, Any]) -> str:
    """A tile's result in words: 'Tile 25 (5/2): Black controls, 5; Blue, the most tents after, 2.'"""
    head = f"Tile {score['id']}"
    if score["higher"] is None:
        return f"{head}: no VP."
    parts = [f"{head} ({score['higher']}/{score['lower']}):"]
    if not score["control"]:
        return f"{head}: nobody is there."
    verb = "controls" if len(score["control"]) == 1 else "control"
    parts.append(f"{' and '.join(score['control'])} {verb}, {score['higher']} each" if len(score["control"]) > 1
                 else f"{score['control'][0]} {verb}, {score['higher']}")
    if score["lower_to"]:
        parts[-1] += ";"
        parts.append(f"{' and '.join(score['lower_to'])} (most tents after) {score['lower']}")
    return " ".join(parts) + "."
