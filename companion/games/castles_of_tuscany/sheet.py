"""Castles of Tuscany kept on the dashboard: both tracks per player, rebuilt from the game's events.

Events (after ``{"type": "start", "game": "castles-of-tuscany", "players": [...], "options": {...}}``):
    {"type": "points", "player": 0, "track": "green", "points": 6, "note": "area of 3"}
    {"type": "scoring"}                      # a scoring phase: every orange track += its green track
    {"type": "final", "player": 0, "empty_spaces": 6,
     "leftovers": {"hex_tiles": 1, "wooden_hexes": 0, "marble": 2, "workers": 1, "cards_in_hand": 7}}
    {"type": "undo"}                          # (companion.games.standing_events)
The game is over once the third phase is scored and every player's leftovers are in.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.errors import UserError
from companion.games.castles_of_tuscany.scoring import (
    BOARD_SPACES,
    CARDS_PER_VP,
    GAME_ID,
    MAX_PLAYERS,
    MIN_PLAYERS,
    SCORING_PHASES,
    Leftovers,
    TuscanyPlayer,
    TuscanyState,
    explain,
    parse_leftovers,
    tally,
    track_position,
)
from companion.games.fields import get_whole, name_of, unique_names

TRACKS = ("green", "orange")
MAX_STEP = 100  # one entry; a correction may be negative


@dataclass
class PlayerTracks:
    name: str
    green: int = 0
    orange: int = 0
    orange_this_round: int = 0
    rounds: list[dict[str, int]] = field(default_factory=list)  # per phase: green, orange_direct, orange
    final: tuple[Leftovers, int] | None = None  # leftovers, empty spaces


class TuscanySheet:
    def __init__(self, names: Sequence[str], cards_per_vp: int = CARDS_PER_VP) -> None:
        self.players = [PlayerTracks(n) for n in names]
        self.cards_per_vp = cards_per_vp
        self.phases_done = 0
        self.log: list[str] = []

    @property
    def finished(self) -> bool:
        return self.phases_done == SCORING_PHASES and all(p.final is not None for p in self.players)

    # -- events -----------------------------------------------------------------------------------
    def apply(self, event: dict[str, Any], where: str = "entry") -> None:
        kind = event.get("type")
        if kind == "points":
            self._points(event, where)
        elif kind == "scoring":
            self._scoring(where)
        elif kind == "final":
            self._final(event, where)
        else:
            raise UserError(f"{where}.type: {kind!r} is not an event of {GAME_ID} (points, scoring, final, undo)")

    def _player(self, event: dict[str, Any], where: str) -> PlayerTracks:
        index = get_whole(event, "player", where, "player", high=len(self.players) - 1)
        return self.players[index]

    def _points(self, event: dict[str, Any], where: str) -> None:
        if self.phases_done == SCORING_PHASES:
            raise UserError(f"{where}: the three scoring phases are over; only the leftovers count now")
        player = self._player(event, where)
        track = event.get("track")
        if track not in TRACKS:
            raise UserError(f"{where}: track: {track!r}; the tracks are green and orange")
        points = get_whole(event, "points", where, "points", low=-MAX_STEP, high=MAX_STEP)
        if points == 0:
            raise UserError(f"{where}: points: 0 changes nothing")
        now = getattr(player, track)
        if now + points < 0:
            raise UserError(f"{where}: points: {player.name}'s {track} track is at {now}; it cannot go below 0")
        setattr(player, track, now + points)
        if track == "orange":
            player.orange_this_round += points
        note = str(event.get("note") or "").strip()[:60]
        self.log.append(f"{player.name} {points:+d} {track}" + (f" ({note})" if note else ""))

    def _scoring(self, where: str) -> None:
        if self.phases_done == SCORING_PHASES:
            raise UserError(f"{where}: all {SCORING_PHASES} scoring phases have been scored")
        self.phases_done += 1
        parts = []
        for p in self.players:
            before = p.orange
            p.orange += p.green  # the green marker stays where it is
            p.rounds.append({"green": p.green, "orange_direct": p.orange_this_round, "orange": p.orange})
            p.orange_this_round = 0
            parts.append(f"{p.name} {before} + {p.green} = {p.orange}")
        self.log.append(f"Scoring phase {self.phases_done}: " + ", ".join(parts))

    def _final(self, event: dict[str, Any], where: str) -> None:
        if self.phases_done < SCORING_PHASES:
            raise UserError(f"{where}: the leftovers count after the third scoring phase "
                            f"({self.phases_done} of {SCORING_PHASES} scored)")
        player = self._player(event, where)
        leftovers = parse_leftovers(event.get("leftovers"), where, "leftovers")
        empty = get_whole(event, "empty_spaces", where, "empty_spaces", high=BOARD_SPACES - 1)
        player.final = (leftovers, empty)
        self.log.append(f"{player.name}: {leftovers.vp(self.cards_per_vp)} VP of unused pieces, "
                        f"{empty} empty spaces")

    # -- results ----------------------------------------------------------------------------------
    def state(self) -> TuscanyState:
        players = []
        for p in self.players:
            leftovers, empty = p.final or (Leftovers(), 0)
            players.append(TuscanyPlayer(p.name, p.orange, p.green, empty, leftovers,
                                         tuple(r["green"] for r in p.rounds),
                                         tuple(r["orange_direct"] for r in p.rounds)))
        return TuscanyState(tuple(players), self.cards_per_vp)

    def tally(self) -> dict[str, Any] | None:
        return tally(self.state()) if self.finished else None

    def view(self) -> dict[str, Any]:
        result = self.tally()
        players = []
        for k, p in enumerate(self.players):
            orange_space, orange_marker = track_position(p.orange)
            green_space, green_marker = track_position(p.green)
            players.append({
                "index": k, "name": p.name, "green": p.green, "orange": p.orange,
                "orange_this_round": p.orange_this_round,
                "green_space": green_space, "green_marker": green_marker,
                "orange_space": orange_space, "orange_marker": orange_marker,
                "rounds": list(p.rounds),
                "final": None if p.final is None else {**p.final[0].to_json(), "empty_spaces": p.final[1],
                                                       "vp": p.final[0].vp(self.cards_per_vp)},
            })
        return {
            "game": GAME_ID, "players": players, "phases_done": self.phases_done,
            "round": min(self.phases_done + 1, SCORING_PHASES), "phases": SCORING_PHASES,
            "in_play": self.phases_done < SCORING_PHASES, "cards_per_vp": self.cards_per_vp,
            "log": list(reversed(self.log)), "finished": self.finished, "tally": result,
            "why": explain(result) if result else None,
            "leader": max(players, key=lambda p: (p["orange"], p["green"]))["name"] if players else None,
        }


class TuscanyLive:
    template = "games/castles_of_tuscany.html"

    def start_event(self, names: Sequence[str], options: dict[str, Any]) -> dict[str, Any]:
        if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
            raise UserError(f"Castles of Tuscany is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(names)}")
        cleaned = [name_of(n, "setup", f"player {k + 1}") for k, n in enumerate(names)]
        unique_names(cleaned, "setup", "players")
        cards = get_whole(options, "cards_per_vp", "setup", "cards per VP", default=CARDS_PER_VP, low=1, high=20)
        return {"type": "start", "game": GAME_ID, "players": cleaned, "options": {"cards_per_vp": cards}}

    def replay(self, events: Sequence[dict[str, Any]]) -> TuscanySheet:
        start = events[0]
        options = start.get("options") or {}
        sheet = TuscanySheet(list(start.get("players") or []), int(options.get("cards_per_vp", CARDS_PER_VP)))
        for k, event in enumerate(events[1:], start=1):
            sheet.apply(event, f"events[{k}]")
        return sheet

    def check_event(self, sheet: TuscanySheet, event: dict[str, Any]) -> dict[str, Any]:
        kind = event.get("type")
        if kind == "points":
            stored = {"type": "points", "player": event.get("player"), "track": event.get("track"),
                      "points": event.get("points")}
            note = str(event.get("note") or "").strip()
            if note:
                stored["note"] = note[:60]
        elif kind == "scoring":
            stored = {"type": "scoring"}
        elif kind == "final":
            stored = {"type": "final", "player": event.get("player"), "empty_spaces": event.get("empty_spaces"),
                      "leftovers": parse_leftovers(event.get("leftovers"), "event", "leftovers").to_json()}
        else:
            raise UserError(f"event type {kind!r} is not one of {GAME_ID}'s (points, scoring, final, undo)")
        copy.deepcopy(sheet).apply(stored)  # refuses what the sheet would refuse, without touching it
        for key in ("player", "points", "empty_spaces"):
            if key in stored:
                stored[key] = int(stored[key])
        return stored
