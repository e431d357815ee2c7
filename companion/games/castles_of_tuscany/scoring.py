"""Castles of Tuscany's score: two tracks, three scoring phases, the unused pieces at the end.

The rulebook (``seeds/002_*.txt``, Italian, an OCR) and what the code makes of it:

- During a round points go on the outer, green track (areas, agriculture, colour tiles, bonus tiles);
  a few go straight on the inner, orange track (a trade card's orange VP; a wooden hexagon with no free
  collection space: "due punti vittoria sul tracciato arancione").
- Scoring (p. 8): "i punti presenti nel tracciato verde vengono trasferiti sul tracciato arancione.
  IMPORTANTE: le pedine nel tracciato verde non vanno riportate indietro" -- at each of the three
  phases orange += green, and green is never reset. So after phase 3
  ``orange = sum over rounds (orange earned directly in round r + green at scoring r)``.
  Anna's example: 4 + 9 = 13, then 13 + 2 + 22 = 37.
- End (p. 8): "Ognuno di questi pezzi (tessere esagonali, esagoni di legno, blocchi di marmo e
  lavoratori) e ogni 5 carte ancora in mano conferiscono 1 punto vittoria (da segnare nel tracciato
  arancione)": 1 VP per unused piece, 1 VP per full 5 cards.
- Winner: "più punti vittoria nel suo tracciato arancione ... In caso di parità, vince il giocatore con
  più spazi vuoti nella sua plancia. Se anche questi sono uguali, vince chi ha più punti sul tracciato
  verde." Beyond that the text is silent: the players still tied share the win.

The OCR garbles these passages in a regular way, read as: "pitt"/"piti"/"pit" = "più" (the winner "con
più punti", the tie-breaks "più spazi vuoti", "più punti sul tracciato verde"), "paritd" = "parità",
"c'¢"/"¢" = "c'è"/"è", "sard" = "sarà". Nothing in the scoring depends on a word the OCR left unreadable
except the 5 of "ogni 5 carte" (see CARDS_PER_VP).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from companion.games.fields import (
    as_list,
    as_object,
    fail,
    get_whole,
    name_of,
    unique_names,
    whole,
)

GAME_ID = "castles-of-tuscany"
MIN_PLAYERS, MAX_PLAYERS = 2, 4          # "Per 2-4 giocatori"
SCORING_PHASES = 3                       # "Il gioco si svolge in 3 round esatti", a scoring after each
BOARD_SPACES = 30                        # "con esattamente 30 spazi"; the start castle covers one
# OCR: "ogni 5 carte ancora in mano" -- read as printed. OCR can swap 3 and 5 and a public score sheet
# uses 3 (from the English edition), so the table may set it (options.cards_per_vp).
CARDS_PER_VP = 5
# Points the page offers as one tap (rulebook p. 3-5): completing an area of 1/2/3 spaces gives 1/3/6
# green ("Area da 1: 1 PV; area da 2: 3 PV; area da 3: 6 VP"), a new kind of agriculture +1 green, the
# "+1 spazio di raccolta" bonus tile +2 green, a wooden hexagon without a free collection space
# +2 orange.
AREA_VP = {1: 1, 2: 3, 3: 6}
COLLECTION_BONUS_GREEN = 2
WOODEN_HEX_NO_SPACE_ORANGE = 2
TRACK_LOOP = 50                          # both tracks are loops of 50 spaces; the 50/100 marker counts laps

# The pieces that score 1 VP each at the end. OCR/reading: "tessere esagonali" are read as the hex
# tiles still on the player's collection spaces (taken, never built); tiles left in the draw piles
# were never the player's to use. Aliases: the names a table or another tool may write.
PIECES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("hex_tiles", "tiles", ("storage_tiles", "tiles")),
    ("wooden_hexes", "wooden_hexes", ()),
    ("marble", "marble", ()),
    ("workers", "workers", ()),
)
CARDS_KEY, CARDS_ALIASES = "cards_in_hand", ("cards",)


@dataclass(frozen=True)
class Leftovers:
    hex_tiles: int = 0
    wooden_hexes: int = 0
    marble: int = 0
    workers: int = 0
    cards_in_hand: int = 0

    def card_vp(self, cards_per_vp: int) -> int:
        return self.cards_in_hand // cards_per_vp

    def vp(self, cards_per_vp: int) -> int:
        return self.hex_tiles + self.wooden_hexes + self.marble + self.workers + self.card_vp(cards_per_vp)

    def to_json(self) -> dict[str, int]:
        return {"hex_tiles": self.hex_tiles, "wooden_hexes": self.wooden_hexes, "marble": self.marble,
                "workers": self.workers, "cards_in_hand": self.cards_in_hand}


@dataclass(frozen=True)
class TuscanyPlayer:
    name: str
    orange: int            # the orange track after the third scoring phase
    green: int             # the green track at the end (never reset)
    empty_spaces: int
    leftovers: Leftovers
    green_at_scoring: tuple[int, ...] | None = None
    orange_direct: tuple[int, ...] | None = None


@dataclass(frozen=True)
class TuscanyState:
    players: tuple[TuscanyPlayer, ...]
    cards_per_vp: int = CARDS_PER_VP


def orange_after_each_scoring(green_at_scoring: tuple[int, ...], orange_direct: tuple[int, ...]) -> list[int]:
    """The orange track after phases 1, 2, 3: each adds that round's direct orange and the green track."""
    orange, after = 0, []
    for green, direct in zip(green_at_scoring, orange_direct, strict=True):
        orange += direct + green
        after.append(orange)
    return after


def track_position(points: int) -> tuple[int, int]:
    """(space on the 50-space loop, the 50/100 marker) for a score: 72 is space 22 with the 50."""
    laps = points // TRACK_LOOP
    return points % TRACK_LOOP, laps * TRACK_LOOP


def parse_leftovers(raw: Any, source: str, field: str) -> Leftovers:
    data = as_object(raw if raw is not None else {}, source, field)
    values: dict[str, int] = {}
    for key, _out, aliases in (*PIECES, (CARDS_KEY, "cards", CARDS_ALIASES)):
        given = [k for k in (key, *aliases) if k in data]
        if len(given) > 1:
            raise fail(source, f"{field}.{given[1]}", f"gives {key} a second time (as {given[0]})")
        values[key] = get_whole(data, given[0], source, f"{field}.{given[0]}") if given else 0
    return Leftovers(**values)


def _rounds(raw: dict[str, Any], key: str, source: str, field: str) -> tuple[int, ...]:
    values = as_list(raw[key], source, f"{field}.{key}")
    if len(values) != SCORING_PHASES:
        raise fail(source, f"{field}.{key}", f"expected {SCORING_PHASES} numbers, one per scoring phase")
    return tuple(whole(v, source, f"{field}.{key}[{r}]") for r, v in enumerate(values))


def parse_player(raw: Any, source: str, field: str) -> TuscanyPlayer:
    data = as_object(raw, source, field)
    name = name_of(data.get("name"), source, f"{field}.name")
    green_rounds = orange_rounds = None
    if "green_at_scoring" in data or "orange_direct" in data:
        for key in ("green_at_scoring", "orange_direct"):
            if key not in data:
                raise fail(source, f"{field}.{key}", "missing (give both round lists, or 'orange' and 'green')")
        green_rounds = _rounds(data, "green_at_scoring", source, field)
        orange_rounds = _rounds(data, "orange_direct", source, field)
        for r in range(1, SCORING_PHASES):
            if green_rounds[r] < green_rounds[r - 1]:
                raise fail(source, f"{field}.green_at_scoring[{r}]",
                           f"{green_rounds[r]} is below {green_rounds[r - 1]}: the green marker never goes back")
        orange = orange_after_each_scoring(green_rounds, orange_rounds)[-1]
        if "orange" in data and get_whole(data, "orange", source, f"{field}.orange") != orange:
            raise fail(source, f"{field}.orange", f"{data['orange']} disagrees with the round lists ({orange})")
        green = green_rounds[-1]
        if "green" in data and get_whole(data, "green", source, f"{field}.green") != green:
            raise fail(source, f"{field}.green", f"{data['green']} disagrees with green_at_scoring ({green}): "
                       "no green points come after the third scoring phase")
    else:
        orange = get_whole(data, "orange", source, f"{field}.orange")
        green = get_whole(data, "green", source, f"{field}.green")
    empty = get_whole(data, "empty_spaces", source, f"{field}.empty_spaces", high=BOARD_SPACES - 1)
    leftovers = parse_leftovers(data.get("leftovers"), source, f"{field}.leftovers")
    return TuscanyPlayer(name, orange, green, empty, leftovers, green_rounds, orange_rounds)


def parse_state(data: Any, source: str) -> TuscanyState:
    top = as_object(data, source, "(top level)")
    game = top.get("game")
    if game is not None and str(game).lower().replace("_", "-") != GAME_ID:
        raise fail(source, "game", f"{game!r} is not {GAME_ID}")
    options = as_object(top.get("options", {}), source, "options")
    cards_per_vp = get_whole(options, "cards_per_vp", source, "options.cards_per_vp", default=CARDS_PER_VP,
                             low=1, high=20)
    raw_players = as_list(top.get("players"), source, "players")
    if not MIN_PLAYERS <= len(raw_players) <= MAX_PLAYERS:
        raise fail(source, "players", f"{len(raw_players)} players; Castles of Tuscany is for "
                   f"{MIN_PLAYERS} to {MAX_PLAYERS}")
    players = tuple(parse_player(p, source, f"players[{k}]") for k, p in enumerate(raw_players))
    unique_names([p.name for p in players], source, "players")
    return TuscanyState(players, cards_per_vp)


def ranking_key(entry: dict[str, Any]) -> tuple[int, int, int]:
    """Most orange (with the leftovers), then most empty spaces, then most green."""
    return entry["total"], entry["empty_spaces"], entry["green"]


def tally(state: TuscanyState) -> dict[str, Any]:
    """The final tally: the orange track after phase 3, the leftovers' VP, the total; winners by the
    rulebook's order (total, empty spaces, green), a shared win beyond that."""
    rows = []
    for p in state.players:
        left = p.leftovers
        leftover_vp = left.vp(state.cards_per_vp)
        rows.append({
            "name": p.name,
            "orange_after_scoring3": p.orange,
            "leftovers": {"tiles": left.hex_tiles, "wooden_hexes": left.wooden_hexes, "marble": left.marble,
                          "workers": left.workers, "cards": left.card_vp(state.cards_per_vp)},
            "cards_in_hand": left.cards_in_hand,
            "leftover_vp": leftover_vp,
            "total": p.orange + leftover_vp,
            "empty_spaces": p.empty_spaces,
            "green": p.green,
        })
    best = max(ranking_key(r) for r in rows)
    return {"players": rows, "winners": [r["name"] for r in rows if ranking_key(r) == best],
            "cards_per_vp": state.cards_per_vp}


def explain(result: dict[str, Any]) -> str:
    """One sentence on how the winner was found, in the rulebook's order of tie-breaks."""
    rows = result["players"]
    top = max(r["total"] for r in rows)
    tied = [r for r in rows if r["total"] == top]
    names = " and ".join(r["name"] for r in tied)
    if len(tied) == 1:
        return f"{tied[0]['name']} wins with the most VP on the orange track ({top})."
    most_empty = max(r["empty_spaces"] for r in tied)
    tied_empty = [r for r in tied if r["empty_spaces"] == most_empty]
    if len(tied_empty) == 1:
        return (f"{names} tie on {top} VP; {tied_empty[0]['name']} wins with the most empty spaces "
                f"on the board ({most_empty}).")
    names_empty = " and ".join(r["name"] for r in tied_empty)
    most_green = max(r["green"] for r in tied_empty)
    tied_green = [r for r in tied_empty if r["green"] == most_green]
    if len(tied_green) == 1:
        return (f"{names_empty} tie on {top} VP and {most_empty} empty spaces; {tied_green[0]['name']} "
                f"wins with the most green points ({most_green}).")
    return (f"{' and '.join(r['name'] for r in tied_green)} tie on {top} VP, {most_empty} empty spaces and "
            f"{most_green} green points: the rulebook says no more, they share the win.")
