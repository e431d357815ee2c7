"""The table tracker: turns the camera's stable observations into judged, recorded moves.

Pure Python (no OpenCV, no Flask): vision hands over :class:`vision.observation.Observation`s, the
rules engine judges, the store keeps the log. The log of events in the store *is* the game; the
tracker's own state (open dispute, drawing in progress) is rebuilt from it on restart.

How a turn is seen:
- the dice lying in the tray are remembered as the turn's dice (the last reading of five dice wins);
- new drawings on the current player's board (cells empty for the engine, filled on the board) are
  the turn's placements; from them the symbol, the dice used and the dice turned follow;
- a turn without a drawing (a log delivery, or nothing possible) ends when the tray is emptied;
- the drawing is judged once it has settled (``settle_seconds`` without change, the tray emptied or
  re-rolled); a legal move is applied, an illegal one becomes a dispute until the board is fixed, the
  players override it with a reason, or enter the move by hand.
- when the camera gives each cell's likely readings, the drawing is read with the rules
  (``companion.reading``): the most probable legal action for the roll is the move; two nearly as
  probable become a question for the players (which did you draw?), answered on the dashboard, and so does
  a likeliest move drawn on a cell the camera is unsure of when another legal reading of that cell fits,
  or one read where the rules forbid it; no legal action that fits the drawing is a dispute as before;
- a move taken back (undo) is redrawn with that turn's dice, wherever the dice are by then.

Cells that stay different from the engine after a move (a misread, a smudge) are never taken as new
drawings of another turn: only cells the engine holds empty can be new. A cell corrected by hand
rewrites the move that drew it, and the game is replayed from the log.
"""

from __future__ import annotations

import contextlib
import logging
import math
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.errors import UserError
from companion.game import Game
from companion.layout import ALL_CELLS, LAYOUT, cell_index, seat_marker_ids
from companion.reading import (
    ASK_WITHIN,
    DOUBT_BELOW,
    EMPTY,
    UNUSED_DOUBT_BELOW,
    MoveReading,
    cell_probabilities,
    describe_choice,
    read_move,
    rule_without_cells,
)
from companion.rules import (
    SYMBOLS,
    Action,
    final_tally,
    is_terminal,
    judge,
    legal_actions,
    option_value,
)

PERSON_LEVEL: dict[str, int] = {"c": 1, "s": 2, "p": 2, "a": 3, "m": 3, "j": 4, "n": 5}
PERSON_NAMES: dict[str, str] = {
    "c": "citizen", "s": "soldier", "p": "priest", "a": "architect", "m": "merchant", "j": "juggler", "n": "noble",
}
ITEM_NAMES: dict[str, str] = {"W": "wall", "G": "crate", "H": "house", **PERSON_NAMES}
ITEM_NAMES.update({str(n): f"church {n}" for n in range(1, 6)})
VALID_ITEMS = frozenset("WGH12345") | frozenset(PERSON_LEVEL)
PIRATE_STRENGTHS: tuple[int, ...] = (1, 3, 6, 8, 10, 12)
SPACES = frozenset(LAYOUT.spaces)

logger = logging.getLogger(__name__)

# Rule ids the tracker itself raises (the engine's ids name the game's rules).
RULE_DICE_UNSEEN = "dice-unseen"
RULE_NO_DRAWING = "no-drawing"


class Stale(UserError):
    """A change that names an event the log has moved past (a double submit, two phones at once): 409."""

    status = 409


def item_name(item: str) -> str:
    return ITEM_NAMES.get(item, repr(item))


def city_cell(city: Sequence[str], cell: str) -> str:
    col, row = cell_index(cell)
    return city[row][col]


def parse_cell(cell: str) -> str:
    """A cell name as typed by a person, checked: ``UserError`` naming it when it is not a space."""
    name = str(cell).strip().upper()
    try:
        cell_index(name)
    except ValueError:
        raise UserError(f"unknown cell {cell!r}: cells are A1..G7") from None
    if name not in SPACES:
        raise UserError(f"cell {name} is a tower, not a space")
    return name


def parse_item(item: str) -> str:
    text = str(item).strip()
    if text in ("", ".", "empty"):
        return "."
    if text.lower() in PERSON_LEVEL and len(text) == 1:
        return text.lower()
    if text.upper() in ("W", "G", "H"):
        return text.upper()
    if text in "12345" and len(text) == 1:
        return text
    raise UserError(f"unknown item {item!r}: use W, G, H, 1-5, a person letter (c s p a m j n) or '.'")


def diff_city(engine_city: Sequence[str], seen_city: Sequence[str]) -> tuple[list[dict[str, str]], list[str]]:
    """(new drawings, mismatched cells). New drawings are spaces empty for the engine and filled on the board;
    mismatches are spaces the engine holds filled that read differently (misreads, smudges, erasures)."""
    new: list[dict[str, str]] = []
    mismatch: list[str] = []
    for cell in ALL_CELLS:
        if cell not in SPACES:
            continue
        want, seen = city_cell(engine_city, cell), city_cell(seen_city, cell)
        if want == seen:
            continue
        if want == ".":
            if seen in VALID_ITEMS:
                new.append({"cell": cell, "item": seen})
        else:
            mismatch.append(cell)
    return new, mismatch


def infer_action(player: int, dice: Sequence[str], place: Sequence[dict[str, str]]) -> dict[str, Any]:
    """The ACTION.json that explains a drawing with these dice.

    The symbol follows from what was drawn: walls (a person next to them is the top tower's bonus),
    a person (houses next to it are an architect's), a church, crates. Dice used beyond those showing
    the symbol were turned (2 coins each)."""
    items = [p["item"] for p in place]
    persons = [i for i in items if i in PERSON_LEVEL]
    churches = [int(i) for i in items if i.isdigit()]
    if "W" in items:
        symbol, used = "wall", items.count("W")
    elif persons:
        symbol, used = "head", max(PERSON_LEVEL[i] for i in persons)
    elif churches:
        symbol, used = "cross", max(churches)
    elif "G" in items:
        symbol, used = "crate", items.count("G")
    elif "H" in items:
        symbol, used = "head", 3  # houses without their architect: the engine will say why it is illegal
    else:
        symbol, used = "log", 0
    turned = max(0, used - list(dice).count(symbol))
    return {"player": player, "dice": list(dice), "symbol": symbol, "turned": turned,
            "place": [dict(p) for p in place], "logs": 0}


def dice_used(action: Mapping[str, Any]) -> int:
    """How many dice (rolled or turned) an action uses for its symbol."""
    items = [p["item"] for p in action.get("place", [])]
    symbol = action.get("symbol")
    if symbol == "log":
        return int(action.get("logs", 0))
    if symbol == "wall":
        return items.count("W")
    if symbol == "crate":
        return items.count("G")
    if symbol == "cross":
        return max((int(i) for i in items if i.isdigit()), default=0)
    if symbol == "head":
        return max((PERSON_LEVEL[i] for i in items if i in PERSON_LEVEL), default=0)
    return 0


def describe_action(action: dict[str, Any], names: Sequence[str]) -> str:
    """One line for the event log: who did what where."""
    p = int(action.get("player", 0))
    who = names[p] if 0 <= p < len(names) else f"player {p + 1}"
    symbol = action.get("symbol", "?")
    turned = int(action.get("turned", 0))
    turned_txt = f", {turned} turned" if turned else ""
    if symbol is None:
        return f"{who}: no symbol possible, swords only"
    if symbol == "log":
        return f"{who}: {action.get('logs', 0)} log(s) delivered{turned_txt}"
    if not action.get("place"):
        return f"{who}: {symbol}, nothing drawn{turned_txt}"
    what = ", ".join(f"{item_name(pl['item'])} {pl['cell']}" for pl in action["place"])
    return f"{who}: {symbol} ×{dice_used(action)}{turned_txt} — {what}"


def _to_json(obj: Any) -> Any:
    return obj.to_json() if hasattr(obj, "to_json") else obj


@dataclass
class Dispute:
    """An illegal move waiting for the players: fix the board, override with a reason, or enter it by hand."""

    action: dict[str, Any]
    errors: list[dict[str, str]]
    since: float

    @property
    def cells(self) -> list[str]:
        named = [pl["cell"] for pl in self.action.get("place", [])]
        flagged = [c for c in named if any(c in e.get("message", "") for e in self.errors)]
        return flagged or named

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, "errors": self.errors, "cells": self.cells, "since": self.since}


# Rules about where a drawing may stand, which players break by mistake (``_misplaced_as_read``).
PLACEMENT_RULES = frozenset({"wall.outer_only", "crate.connected", "house.connected"})


@dataclass
class Question:
    """A close call: two readings of the drawing nearly as probable (two legal ones, or the one legal reading
    and the drawing as read when that breaks a rule); the players say which it is."""

    seq: int  # the question's event in the log
    player: int
    choices: list[dict[str, Any]]  # ACTION.json of each reading, the likelier first
    texts: list[str]  # each in plain words, for the buttons
    seen: list[dict[str, str]]  # the drawing as the camera read it (the question stands while it does)
    since: float

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "player": self.player, "choices": self.choices, "texts": self.texts, "seen": self.seen,
                "since": self.since}


@dataclass(frozen=True)
class ConfirmedDrawing:
    """Cells whose drawing the table confirmed, for the reader to learn the seat's hand from
    (vision.cells.seat_hand): a camera move accepted as read (never one that was disputed), a reading the
    players chose when asked, a cell corrected by hand; or ``kind`` "undone": a move taken back, whose
    drawing teaches nothing any more. A reading the players chose and a cell corrected by hand are a
    person's word for what is drawn; a move accepted as read is the camera's."""

    seat: int
    cells: dict[str, str]  # cell -> item in city notation ('.': a phantom drawing corrected to empty)
    board: Any  # the last BoardReading of that seat (its pixels), None when the camera never saw it
    kind: str  # "move" | "answer" | "correction" | "undone"


@dataclass
class LogEntry:
    seq: int
    kind: str  # move | override | dispute | resolved | question | answered | withdrawn | correction | undo | end
    #            | note | start
    text: str
    at: float
    legal: bool | None = None
    reasons: list[dict[str, str]] = field(default_factory=list)
    effects: dict[str, Any] | None = None
    source: str = ""
    action: dict[str, Any] | None = None  # the move this entry is about (moves, overrides, disputes, undos)
    undone: bool = False  # a move taken back later: it no longer counts

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "kind": self.kind, "text": self.text, "at": self.at, "legal": self.legal,
                "reasons": self.reasons, "effects": self.effects, "source": self.source, "action": self.action,
                "undone": self.undone}


class Tracker:
    """One game at the table: observations and hand entries in, judged moves and a log out.

    Thread-safe: the camera thread calls :meth:`observe`, web requests call the hand entries.
    Every change bumps :attr:`version` and calls the listeners (the web's live updates).
    """

    def __init__(self, store: Any, game_id: int, *, settle_seconds: float = 0.0,
                 clock: Callable[[], float] = time.time, rules_aware: bool = True) -> None:
        self.store = store
        self.game_id = game_id
        self.settle_seconds = settle_seconds
        self.clock = clock
        self.rules_aware = rules_aware  # read drawings with the rules (False: each cell's likeliest reading)
        self._lock = threading.RLock()
        self.version = 0
        self.listeners: list[Callable[[Tracker], None]] = []
        # what the camera says now
        self.turn_dice: list[str] | None = None   # last five dice seen in the tray this turn
        self.spent_dice: list[str] | None = None  # dice of a recorded move, still lying in the tray
        self.tray_in_view = False
        # whether dice lay in the tray when it was last seen: the tray emptied is the end of a drawn turn only
        # when dice were there to take (after an undo the turn's dice can be known with the tray empty)
        self.dice_in_tray = False
        self.seen_pirate_boxes: int | None = None
        self.last_boards: dict[int, dict[str, Any]] = {}
        self.doubled_seats: list[int] = []  # seats whose stickers the camera sees on two boards: neither is read
        self.colourless_camera = False  # the camera's last frame had no colour: the dice may be misread
        self.light_tray_floor = False  # the tray's floor is nearly as light as the dice: dice may be missed
        self.tray_cut = False  # the tray was found, its floor past the frame's edge and not all five dice seen: none read
        self.pending: dict[str, Any] | None = None   # a drawing that has not settled yet
        self.ignored_diff: list[dict[str, str]] | None = None  # the drawing an undo took back
        self.aliases: dict[tuple[int, str], tuple[str, str]] = {}  # (seat, cell) -> (read, truth)
        self.warnings: list[str] = []
        # told of every drawing the table confirms (ConfirmedDrawing): the reader learns the seat's hand
        self.drawing_listeners: list[Callable[[ConfirmedDrawing], None]] = []
        self._atomic_depth = 0
        self._notify_after = False
        self._replay()

    # -- creation ---------------------------------------------------------------------------------
    @classmethod
    def start_game(cls, store: Any, names: Sequence[str], *, start_player: int = 0,
                   seats: Sequence[int] | None = None, language: str = "en", camera: str | None = None,
                   settle_seconds: float = 0.0, clock: Callable[[], float] = time.time,
                   rules_aware: bool = True) -> Tracker:
        names = [str(n).strip() for n in names]
        if not 2 <= len(names) <= 5:
            raise UserError(f"a game needs 2 to 5 players, not {len(names)}")
        if any(not n for n in names) or len(set(names)) != len(names):
            raise UserError("player names must be non-empty and different")
        if not 0 <= start_player < len(names):
            raise UserError(f"start player must be 1..{len(names)}")
        seat_list = list(seats) if seats is not None else list(range(len(names)))
        if len(seat_list) != len(names) or len(set(seat_list)) != len(seat_list) \
                or any(not 0 <= s <= 4 for s in seat_list):
            raise UserError("seats must be different numbers 0..4, one per player")
        meta = {"players": names, "start_player": start_player, "seats": seat_list,
                "language": language, "camera": camera}
        # the game and its start event in one transaction: a kill between them must not leave a game
        # without a start
        game_id = store.create_game(meta, first_event={
            "type": "start", "players": names, "start_player": start_player,
            "seats": seat_list, "language": language, "at": clock()})
        return cls(store, game_id, settle_seconds=settle_seconds, clock=clock, rules_aware=rules_aware)

    # -- replay -----------------------------------------------------------------------------------
    def _replay(self) -> None:
        """Rebuild the game, the log and the open dispute from the store's events."""
        events = self.store.events(self.game_id)
        if not events or events[0].get("type") != "start":
            raise UserError(f"game {self.game_id} has no start event")
        start = events[0]
        self.names: list[str] = list(start["players"])
        self.seats: list[int] = list(start.get("seats") or range(len(self.names)))
        self.language: str = start.get("language", "en")
        corrections: dict[int, dict[str, Any]] = {}
        for ev in events:
            if ev.get("type") == "correction":
                corrections[int(ev["target"])] = ev["action"]
        game = Game.new(self.names, int(start.get("start_player", 0)))
        log: list[LogEntry] = [LogEntry(0, "start", "Game started: " + ", ".join(self.names), start.get("at", 0.0))]
        dispute: Dispute | None = None
        question: Question | None = None
        finished_tally: dict[str, Any] | None = None
        move_seqs: list[int] = []  # store index of each applied move, for undo and corrections
        move_actions: dict[int, dict[str, Any]] = {}  # the action each applied move stands for
        for seq, ev in enumerate(events[1:], start=1):
            kind, at = ev.get("type"), float(ev.get("at", 0.0))
            if kind in ("move", "override", "undo", "dispute", "resolved", "question", "answered", "withdrawn"):
                question = None
            if kind == "move":
                action = corrections.get(seq, ev["action"])
                verdict = game.play(Action.from_json(action))
                text = describe_action(action, self.names)
                if seq in corrections:
                    text += " (corrected by hand)"
                move_actions[seq] = action
                if verdict.legal:
                    move_seqs.append(seq)
                    log.append(LogEntry(seq, "move", text, at, True, [], _to_json(verdict.effects),
                                        ev.get("source", "camera"), action))
                else:
                    # a correction made this move illegal: it stands, as drawn, flagged in the log
                    game.override(Action.from_json(action), "kept after a correction")
                    move_seqs.append(seq)
                    log.append(LogEntry(seq, "override", text + " — illegal after correction, kept", at, False,
                                        [_to_json(e) for e in verdict.errors], None, ev.get("source", "camera"),
                                        action))
                dispute = None
            elif kind == "override":
                action = corrections.get(seq, ev["action"])
                errors = [_to_json(e) for e in judge(game.state, Action.from_json(action)).errors]
                before = game.state
                game.override(Action.from_json(action), ev.get("reason", ""))
                move_seqs.append(seq)
                move_actions[seq] = action
                log.append(LogEntry(seq, "override", describe_action(action, self.names)
                                    + f" — overridden: {ev.get('reason', '')}", at, False, errors,
                                    _effects_between(before, game.state), ev.get("source", "table"), action))
                dispute = None
            elif kind == "undo":
                taken: dict[str, Any] | None = None
                if move_seqs:
                    undone_seq = move_seqs.pop()
                    taken = move_actions.get(undone_seq)
                    game.undo()
                    for entry in log:
                        if entry.seq == undone_seq:
                            entry.undone = True
                text = ("Taken back: " + describe_action(taken, self.names)) if taken else "Last move taken back"
                log.append(LogEntry(seq, "undo", text, at, action=taken))
                dispute = None
                finished_tally = None
            elif kind == "dispute":
                dispute = Dispute(ev["action"], ev["errors"], at)
                log.append(LogEntry(seq, "dispute", describe_action(ev["action"], self.names)
                                    + " — illegal", at, False, ev["errors"], None, ev.get("source", "camera"),
                                    ev["action"]))
            elif kind == "resolved":
                dispute = None
                log.append(LogEntry(seq, "resolved", f"Dispute closed: {ev.get('how', '')}", at))
            elif kind == "question":
                dispute = None
                question = Question(seq, int(ev["player"]), list(ev["choices"]), list(ev["texts"]),
                                    list(ev.get("seen", [])), at)
                who = self.names[question.player] if 0 <= question.player < len(self.names) else "?"
                log.append(LogEntry(seq, "question", f"{who}: which was drawn? " + " or ".join(question.texts),
                                    at, None, [], None, ev.get("source", "camera")))
            elif kind == "answered":
                log.append(LogEntry(seq, "answered", f"The players said: {ev.get('text', '')}", at))
            elif kind == "withdrawn":
                log.append(LogEntry(seq, "withdrawn", f"Question dropped: {ev.get('how', '')}", at))
            elif kind == "correction":
                log.append(LogEntry(seq, "correction", f"Cell {ev.get('cell')} corrected to "
                                    f"{item_name(ev.get('item', '.'))}: {ev.get('reason', 'misread')}", at))
            elif kind == "end":
                finished_tally = ev.get("tally")
                log.append(LogEntry(seq, "end", "Game over", at))
            elif kind == "note":
                log.append(LogEntry(seq, "note", str(ev.get("text", "")), at))
        self.game = game
        self.log = log
        self.dispute = dispute
        self.question = question
        self.move_seqs = move_seqs
        self.move_actions = move_actions
        self.tally = finished_tally
        self.event_count = len(events)

    # -- helpers ----------------------------------------------------------------------------------
    @property
    def state(self) -> Any:
        return self.game.state

    @property
    def last_action(self) -> dict[str, Any] | None:
        return self.move_actions[self.move_seqs[-1]] if self.move_seqs else None

    @property
    def finished(self) -> bool:
        return self.tally is not None

    def _state_json(self) -> dict[str, Any]:
        return self.state.to_json()

    def _append(self, event: dict[str, Any]) -> None:
        event.setdefault("at", self.clock())
        self.store.append_event(self.game_id, event)

    def _confirm(self, player: int, cells: dict[str, str], kind: str) -> None:
        seat = self.seats[player]
        drawing = ConfirmedDrawing(seat, cells, (self.last_boards.get(seat) or {}).get("reading"), kind)
        for listener in list(self.drawing_listeners):
            try:
                listener(drawing)
            except Exception:  # learning a hand is a help; it must never cost the table a move
                logger.exception("learning from a confirmed drawing failed")

    def _confirm_action(self, action: dict[str, Any], kind: str) -> None:
        """``_confirm`` the cells a move draws (a move that draws nothing teaches nothing)."""
        if action.get("place"):
            self._confirm(int(action["player"]), {p["cell"]: p["item"] for p in action["place"]}, kind)

    def _changed(self) -> None:
        self.version += 1
        if self._atomic_depth:
            self._notify_after = True  # the pages hear of it once it is on disk
            return
        for listener in list(self.listeners):
            listener(self)

    @contextlib.contextmanager
    def _atomic(self, doing: str = "the change") -> Iterator[None]:
        """Every event one change writes (resolved + move + end, undo + reopen, ...) commits together.
        When the write fails (disk full), the game is rebuilt from what the store still holds."""
        with self._lock:
            self._atomic_depth += 1
            try:
                with self.store.transaction(doing):
                    yield
            except BaseException:
                if self._atomic_depth == 1:
                    self._replay()
                    self._notify_after = True
                raise
            finally:
                self._atomic_depth -= 1
                if not self._atomic_depth and self._notify_after:
                    self._notify_after = False
                    for listener in list(self.listeners):
                        listener(self)

    def _record(self, event: dict[str, Any]) -> None:
        """Append an event, rebuild from the log, check for the end, tell the listeners."""
        if event["type"] in ("move", "override") and self.turn_dice is not None:
            # the dice lying in the tray belong to this move, not to the next player's turn
            self.spent_dice, self.turn_dice = self.turn_dice, None
        with self._atomic():  # the last move and the end event: both or neither
            self._append(event)
            self._replay()
            self._check_end()
            self._changed()

    def _check_end(self) -> None:
        if self.tally is None and is_terminal(self.state):
            tally = final_tally(self.state).to_json()
            with self._atomic("the end of the game"):
                self._append({"type": "end", "tally": tally})
                self.store.finish_game(self.game_id, tally)
                self._replay()

    def finish_if_over(self) -> bool:
        """A game whose last move ended it but whose end was never written (a store from before the end
        and the move were one transaction): write the end now. True when it did."""
        with self._lock:
            if self.tally is not None or not is_terminal(self.state):
                return False
            self._check_end()
            self._changed()
            return True

    def current_player(self) -> int:
        return int(self._state_json()["current_player"])

    # -- camera -----------------------------------------------------------------------------------
    def observe(self, obs: Any) -> None:
        """Take one stable observation (vision.observation.Observation)."""
        with self._lock:
            changed = False
            shown = (self.warnings, {seat: board["uncertain"] for seat, board in self.last_boards.items()})
            for board in obs.boards:
                self.last_boards[board.seat] = {"city": list(board.city), "uncertain": list(board.uncertain),
                                                "alternatives": dict(getattr(board, "alternatives", None) or {}),
                                                "unseen": list(getattr(board, "unseen", None) or ()),
                                                "covered": list(getattr(board, "covered", None) or ()),
                                                "reading": board}
            extra = getattr(obs, "extra", None) or {}
            self.doubled_seats = sorted(int(s) for s in extra.get("doubled_seats", ()))
            self.colourless_camera = bool(extra.get("colourless"))
            if "tray_floor_light" in extra:  # (absent: the tray not read; as it was)
                self.light_tray_floor = bool(extra["tray_floor_light"])
            if "tray_cut" in extra:  # (absent: no tray found; as it was)
                self.tray_cut = bool(extra["tray_cut"])
            if obs.pirate_boxes is not None and obs.pirate_boxes != self.seen_pirate_boxes:
                self.seen_pirate_boxes = int(obs.pirate_boxes)
                changed = True
            tray_cleared = False
            if obs.dice is not None:
                faces = sorted(d.face for d in obs.dice)  # a multiset: where the dice lie does not matter
                if len(faces) == 5 and faces != self.turn_dice and faces != self.spent_dice:
                    if self.pending is not None and self.turn_dice is not None:
                        self._commit_pending()  # the next roll ends a drawn turn
                    self.turn_dice = faces
                    self.spent_dice = None
                    changed = True
                elif not faces:
                    tray_cleared = self.tray_in_view and self.turn_dice is not None and self.dice_in_tray
                    self.spent_dice = None
                self.tray_in_view = True
                self.dice_in_tray = bool(faces)
            else:
                self.tray_in_view = False
            if not self.finished:
                changed |= self._look_at_boards(obs)
                if self.pending is not None and self.clock() - self.pending["since"] >= self.settle_seconds:
                    self._commit_pending()
                    changed = True
                if tray_cleared:
                    self._tray_cleared()
                    changed = True
            self._update_warnings()
            # What the dashboard shows of the camera's reading alone (a board out of view, its doubtful cells) is
            # news to the open pages too, though the game did not change.
            changed |= shown != (self.warnings, {seat: board["uncertain"] for seat, board in self.last_boards.items()})
            if changed:
                self._changed()

    def tick(self) -> None:
        """Commit a drawing that has settled without a further observation (called by the camera loop)."""
        with self._lock:
            if self.pending is not None and self.clock() - self.pending["since"] >= self.settle_seconds:
                self._commit_pending()
                self._update_warnings()
                self._changed()

    def seen_city(self, seat: int) -> list[str] | None:
        board = self.last_boards.get(seat)
        if board is None:
            return None
        rows = [list(r) for r in board["city"]]
        unseen = set(board.get("unseen") or ())
        for (a_seat, cell), (read, truth) in list(self.aliases.items()):
            if a_seat != seat or cell in unseen:
                continue
            col, row = cell_index(cell)
            if rows[row][col] == read:
                rows[row][col] = truth
            else:
                del self.aliases[(a_seat, cell)]  # the board changed there: trust the camera again
        if unseen and seat in self.seats:
            # Out of the camera's view: neither a new drawing nor an erasure, but what the game holds there.
            engine = self.state.players[self.seats.index(seat)].city
            for cell in unseen:
                col, row = cell_index(cell)
                rows[row][col] = city_cell(engine, cell)
        return ["".join(r) for r in rows]

    def _look_at_boards(self, obs: Any) -> bool:
        player = self.current_player()
        seat = self.seats[player]
        if obs.board(seat) is None:
            return False
        seen = self.seen_city(seat)
        assert seen is not None
        new, _ = diff_city(self.state.players[player].city, seen)
        if self.ignored_diff is not None:
            if new == self.ignored_diff:
                return False
            self.ignored_diff = None
        if self.dispute is not None:
            return self._recheck_dispute(player, new)
        if self.question is not None and new == self.question.seen:
            return False  # still the drawing asked about
        if not new:
            if self.question is not None:
                self._record({"type": "withdrawn", "how": "drawing erased"})
                self.pending = None
                return True
            if self.pending is not None:
                self.pending = None  # erased before it settled
                return True
            return False
        if self.pending is None or self.pending["place"] != new:
            self.pending = {"player": player, "place": new, "since": self.clock()}
            return True
        return False

    def _tray_cleared(self) -> None:
        """The dice left the tray: a drawn turn is over; a turn without a drawing was a log delivery."""
        if self.pending is not None:
            self._commit_pending()
        elif self.dispute is None and self.question is None and self.turn_dice is not None:
            player = self.current_player()
            seat = self.seats[player]
            seen = self.seen_city(seat)
            new = diff_city(self.state.players[player].city, seen)[0] if seen is not None else []
            if not new:
                undrawn = self._undrawn_action(player, self.turn_dice)
                # Nothing read as drawn, yet these dice oblige the player to draw: a drawing the camera read
                # as more likely empty than not (a hand it never saw) is the most probable legal move.
                reading = None if judge(self.state, Action.from_json(undrawn)).legal \
                    else self.read_with_rules(player, self.turn_dice)
                if reading is not None and reading.ranked:
                    self._settle(player, reading, [])
                else:
                    self._judge_and_record(undrawn, source="camera")
        self.turn_dice = None

    def _undrawn_action(self, player: int, dice: list[str]) -> dict[str, Any]:
        """A turn that ended without a drawing: a log delivery with the logs rolled, else the forced pass
        (the camera cannot see the lumber store: a different count is entered by hand)."""
        log = {"player": player, "dice": list(dice), "symbol": "log", "turned": 0, "place": [],
               "logs": dice.count("log")}
        passing = {**log, "symbol": None, "logs": 0}
        if log["logs"] and judge(self.state, Action.from_json(log)).legal:
            return log
        if judge(self.state, Action.from_json(passing)).legal:
            return passing
        return log if log["logs"] else passing

    def _commit_pending(self) -> None:
        pending, self.pending = self.pending, None
        if pending is None or self.finished:
            return
        dice = self.turn_dice
        held = self.dispute.action if self.dispute is not None else (
            self.question.choices[0] if self.question is not None else None)
        if held is not None and len(held.get("dice") or []) == 5:
            dice = list(held["dice"])  # the board is being fixed or a question is open: same roll
        if dice is None and self.tray_in_view:
            self.pending = pending  # drawn before the roll was seen: wait for the dice
            return
        if dice is None or len(dice) != 5:
            action = infer_action(pending["player"], dice or [], pending["place"])
            self._open_dispute(action, [{"rule": RULE_DICE_UNSEEN, "message":
                               "The five dice were not seen in the tray; put them back or enter the move by hand."}])
            return
        self._read_drawing(pending["player"], dice, pending["place"])

    def cell_readings(self, player: int) -> dict[str, dict[str, float]] | None:
        """Each space ``player``'s city holds empty, as the camera reads it: city character -> probability.
        None when the camera gives no alternatives for that board (then the likeliest reading is all)."""
        seat = self.seats[player]
        board = self.last_boards.get(seat)
        if board is None or not board.get("alternatives"):
            return None
        seen = self.seen_city(seat)
        assert seen is not None
        engine = self.state.players[player].city
        cells: dict[str, dict[str, float]] = {}
        for cell in ALL_CELLS:
            if cell not in SPACES or city_cell(engine, cell) != ".":
                continue
            if (seat, cell) in self.aliases:  # corrected by hand: the players' word is certain
                cells[cell] = {city_cell(seen, cell): 1.0}
            else:
                cells[cell] = cell_probabilities(board["alternatives"].get(cell), city_cell(seen, cell))
        return cells

    def read_with_rules(self, player: int, dice: Sequence[str]) -> MoveReading | None:
        """The legal actions that fit ``player``'s drawing, most probable first; None when the camera
        gives no probabilities or the tracker reads without the rules."""
        if not self.rules_aware or len(dice) != 5:
            return None
        cells = self.cell_readings(player)
        if cells is None:
            return None
        seat = self.seats[player]
        board = (self.last_boards.get(seat) or {}).get("reading")
        # A cell corrected by hand is certain, whatever the camera doubted.
        sureness = {} if board is None else {c: board.sureness(c) for c in cells if (seat, c) not in self.aliases}
        return read_move(self.state, dice, cells, doubted=[c for c, v in sureness.items() if v < DOUBT_BELOW],
                         unused_doubted=[c for c, v in sureness.items() if v < UNUSED_DOUBT_BELOW])

    def _read_drawing(self, player: int, dice: list[str], place: list[dict[str, str]]) -> None:
        """A settled drawing: the most probable legal action is the move; a close call is asked; no legal
        action that fits is a dispute about the drawing as read."""
        raw = infer_action(player, dice, place)
        reading = self.read_with_rules(player, dice)
        if reading is None or not reading.ranked:
            self._judge_and_record(raw, source="camera")
            return
        self._settle(player, reading, place, raw)

    def _settle(self, player: int, reading: MoveReading, place: list[dict[str, str]],
                raw: dict[str, Any] | None = None) -> None:
        """What the rules make of a drawing (``reading`` with at least one fitting action): a close call, a
        drawing read where the rules forbid it (``raw``, the drawing as read, when something was read as
        drawn) and a doubted cell with another legal reading are asked; else the likeliest move is taken."""
        if reading.close:
            self._ask(player, reading.ranked[0].action, reading.ranked[1].action, place)
            return
        best = reading.ranked[0]
        if raw is not None and self._misplaced_as_read(raw, best.action):
            # The drawing as read stands where the rules forbid it, and a legal reading of the same cells fits
            # (an inner wall the network half takes for a crate): taking the legal one silently would record a
            # move nobody made, so the players say which; "as drawn" is a dispute. Asked only when the legal
            # reading was under ASK_WITHIN less probable until bench_moves showed a careless player's inner
            # wall read at 85 % recorded as a crate (at seeds 3030 and 4040, 3 of 33 illegal drawings were taken
            # as moves; asked whenever a legal reading fits, 1, and no more questions on the legal moves at
            # seeds 2026 and 4040).
            self._ask(player, best.action, raw, place)
            return
        forbidden = self._forbidden_runner_up(player, best.action)
        if forbidden is not None:
            # The same mistake read the other way round: the legal reading is the likelier, yet one of its cells
            # reads nearly as well as a drawing the rules forbid there (an inner wall that a network taught on
            # tables, where walls stand on the outer ring only, took for a crate, 73 % to 23 %). Taken silently,
            # a careless player's wall would be recorded as a crate nobody drew.
            self._ask(player, best.action, forbidden, place)
            return
        if reading.rival is not None:
            # The camera is unsure of a cell of the likeliest move, and another legal move reads it otherwise:
            # its sureness is calibrated on hands it never saw, its probabilities are not: the players say.
            self._ask(player, best.action, reading.rival.action, place)
            return
        self._judge_and_record(best.action, source="camera")

    def _forbidden_runner_up(self, player: int, legal: dict[str, Any]) -> dict[str, Any] | None:
        """``legal``'s drawing with one of its cells read as another symbol under ``ASK_WITHIN`` less probable (log
        ratio), when that drawing breaks only rules of where things may be drawn (``_misplaced_as_read``); the
        likeliest such, else None."""
        cells = self.cell_readings(player) or {}
        place = [dict(p) for p in legal.get("place", [])]
        found, least_gap = None, ASK_WITHIN
        for k, drawn in enumerate(place):
            probs = cells.get(drawn["cell"], {})
            mine = probs.get(drawn["item"], 0.0)
            if mine <= 0.0:
                continue
            for item, prob in probs.items():
                if prob <= 0.0 or item in (drawn["item"], EMPTY) or item not in VALID_ITEMS:
                    continue
                gap = math.log(mine / prob)
                if gap >= least_gap:
                    continue
                other = infer_action(player, legal.get("dice", []), [*place[:k], {**drawn, "item": item},
                                                                    *place[k + 1:]])
                if self._misplaced_as_read(other, legal):
                    found, least_gap = other, gap
        return found

    def _misplaced_as_read(self, raw: dict[str, Any], legal: dict[str, Any]) -> bool:
        """Whether the drawing as read breaks only rules of where things may be drawn (a mistake players
        make) while ``legal`` reads other items on the very same cells. A reading the dice cannot pay for (a
        juggler with two heads) is a misread, and a legal reading that leaves a cell out is a smudge: those
        the rules-aware reading settles alone."""
        if {p["cell"] for p in raw.get("place", [])} != {p["cell"] for p in legal.get("place", [])}:
            return False
        verdict = judge(self.state, Action.from_json(raw))
        return not verdict.legal and all(e.rule in PLACEMENT_RULES for e in verdict.errors)

    def _ask(self, player: int, first: dict[str, Any], second: dict[str, Any],
             seen: list[dict[str, str]]) -> None:
        if self.question is not None and self.question.choices == [first, second]:
            return
        with self._atomic("the question"):
            if self.dispute is not None:
                self._append({"type": "resolved", "how": "fixed on the board"})
            self._record({"type": "question", "player": player, "choices": [first, second],
                          "texts": [self._choice_text(first, second), self._choice_text(second, first)],
                          "seen": [dict(p) for p in seen], "source": "camera"})

    def _choice_text(self, action: dict[str, Any], other: dict[str, Any]) -> str:
        """A question's button: the reading in plain words, and the rule it breaks if it breaks one."""
        verdict = judge(self.state, Action.from_json(action))
        text = describe_choice(action, other)
        if verdict.legal:
            return text
        return f"{text} (not allowed: {rule_without_cells(verdict.errors[0].message)})"

    def answer_question(self, choice: int, expected: int | None = None) -> dict[str, Any]:
        """The players say which reading of the drawing is right: it is recorded as the move (one that breaks
        a rule, the reading "as drawn", opens the dispute instead).
        ``expected``: the question the request answers (its ``seq``); another one open now, or none (a
        double tap, two phones at once), refuses it with :class:`Stale`."""
        with self._lock:
            question = self.question
            if expected is not None and (question is None or question.seq != expected):
                raise Stale("that question has been answered or replaced; look at the dashboard again")
            if question is None:
                raise UserError("there is no question to answer")
            if choice not in range(len(question.choices)):
                raise UserError(f"choice must be 1 or {len(question.choices)}, not {choice + 1}")
            action = question.choices[choice]
            verdict = judge(self.state, Action.from_json(action))
            with self._atomic("the answer"):
                self._append({"type": "answered", "choice": choice, "text": question.texts[choice]})
                self.pending = None
                if verdict.legal:
                    self._record({"type": "move", "action": action, "source": "answer"})
                else:
                    # The players say the drawing is one that breaks a rule (the reading "as drawn"): a
                    # dispute naming the rule, settled as any other.
                    self._open_dispute(action, [_to_json(e) for e in verdict.errors], source="answer")
            if verdict.legal:
                self._confirm_action(action, "answer")  # the players said what the drawing is
            return action

    def _judge_and_record(self, action: dict[str, Any], source: str) -> Any:
        verdict = judge(self.state, Action.from_json(action))
        if verdict.legal:
            # A drawing the camera read and nobody disputed is an example of the player's hand.
            taught = source == "camera" and self.dispute is None
            with self._atomic():
                if self.dispute is not None:
                    self._append({"type": "resolved", "how": "fixed on the board" if source == "camera"
                                  else "entered by hand"})
                self._record({"type": "move", "action": action, "source": source})
            if taught:
                self._confirm_action(action, "move")
        else:
            self._open_dispute(action, [_to_json(e) for e in verdict.errors], source)
        return verdict

    def _open_dispute(self, action: dict[str, Any], errors: list[dict[str, str]], source: str = "camera") -> None:
        if self.dispute is not None and self.dispute.action == action:
            return
        self._record({"type": "dispute", "action": action, "errors": errors, "source": source})

    def _recheck_dispute(self, player: int, new: list[dict[str, str]]) -> bool:
        """The players are fixing the board: judge again what it shows now."""
        assert self.dispute is not None
        if new == self.dispute.action.get("place"):
            return False
        if not new:
            if not self.dispute.action.get("place"):
                return False  # a turn without a drawing: nothing on the board to fix
            self._record({"type": "resolved", "how": "drawing erased"})
            return True
        dice = self.dispute.action.get("dice") or self.turn_dice or []  # the disputed roll, unless unseen
        if len(dice) != 5:
            return False
        if self.settle_seconds > 0:
            if self.pending is None or self.pending["place"] != new:
                self.pending = {"player": player, "place": new, "since": self.clock()}
            return True
        self._read_drawing(player, list(dice), new)
        return True

    def _update_warnings(self) -> None:
        warnings: list[str] = []
        state = self.state
        player = self.current_player()
        for p, seat in enumerate(self.seats):
            seen = self.seen_city(seat)
            if seen is None:
                continue
            new, mismatch = diff_city(state.players[p].city, seen)
            covered = self.last_boards[seat].get("covered") or []
            if covered:
                warnings.append(f"Something lies on {self.names[p]}'s board over {', '.join(covered)}: take it off, "
                                "so that the camera can read those spaces.")
            if unseen := [cell for cell in self.last_boards[seat].get("unseen") or () if cell not in covered]:
                warnings.append(f"The camera cannot see {len(unseen)} spaces of {self.names[p]}'s board ({unseen[0]} "
                                "among them): move the board into view, clear of the other boards.")
            if p != player and new:
                cells = ", ".join(x["cell"] for x in new)
                warnings.append(f"{self.names[p]}'s board shows new drawings at {cells}, "
                                f"but it is {self.names[player]}'s turn.")
            if mismatch:
                warnings.append(f"{self.names[p]}'s board reads differently from the game at "
                                f"{', '.join(mismatch)} (misread? correct the cell if the game is wrong).")
        for seat in self.doubled_seats:
            whose = f", {self.names[self.seats.index(seat)]}'s seat" if seat in self.seats else ""
            ids = sorted(seat_marker_ids(seat).values())
            warnings.append(f"Two boards carry the stickers of seat {seat} (markers {ids[0]}-{ids[-1]}{whose}), "
                            "so the camera reads neither: give each board its own seat's stickers.")
        if self.colourless_camera:
            warnings.append("The camera sends no colour, and the dice are told apart by their colours: check each "
                            "roll the dashboard shows, and use a colour camera or turn its colour back on.")
        if self.light_tray_floor:
            warnings.append("The dice tray's floor is nearly as light as the dice, so the camera may miss dice on it: "
                            "check each roll the dashboard shows, or roll on a darker floor (felt, dark wood, black).")
        if self.tray_cut:
            warnings.append("The dice tray is partly out of the camera's view, so its dice are not read: move it "
                            "towards the middle of the table.")
        expected = int(self._state_json().get("pirate_boxes", 0))
        if self.seen_pirate_boxes is not None and self.seen_pirate_boxes != expected and self.pending is None:
            warnings.append(f"The pirate track shows {self.seen_pirate_boxes} marked boxes; the game counts {expected}.")
        self.warnings = warnings

    # -- hand entries -----------------------------------------------------------------------------
    def enter_move(self, action: dict[str, Any], *, override_reason: str | None = None) -> Any:
        """A move typed by a player. Legal: applied. Illegal: refused (returned verdict), unless an override
        reason is given, then it stands as drawn."""
        with self._lock:
            if self.finished:
                raise UserError("the game is over; undo the last move to change it")
            parsed = Action.from_json(action)
            clean = parsed.to_json()
            who = int(clean.get("player", -1))
            if who != self.current_player():
                named = self.names[who] if 0 <= who < len(self.names) else f"player {who + 1}"
                raise UserError(f"it is {self.names[self.current_player()]}'s turn, not {named}'s")
            verdict = judge(self.state, parsed)
            if verdict.legal:
                with self._atomic():
                    if self.dispute is not None:
                        self._append({"type": "resolved", "how": "entered by hand"})
                    self.pending = None
                    self._record({"type": "move", "action": clean, "source": "hand"})
            elif override_reason:
                self._override(clean, override_reason)
            return verdict

    def override_dispute(self, reason: str) -> None:
        """The players say the disputed drawing stands: apply it as drawn, with its effects."""
        with self._lock:
            reason = reason.strip()
            if not reason:
                raise UserError("an override needs a reason")
            if self.dispute is None:
                raise UserError("there is no dispute to override")
            self._override(self.dispute.action, reason)

    def _override(self, action: dict[str, Any], reason: str) -> None:
        with self._atomic():
            if self.dispute is not None:
                self._append({"type": "resolved", "how": f"overridden: {reason}"})
            self.pending = None
            self._record({"type": "override", "action": action, "reason": reason, "source": "table"})

    @property
    def last_move_seq(self) -> int | None:
        """The log position of the move an undo would take back (what an undo request names)."""
        return self.move_seqs[-1] if self.move_seqs else None

    def undo(self, expected: int | None = None) -> None:
        """Take back the last move (camera, hand or override). The drawing still on the board is not
        taken again until the board changes. ``expected``: the move the request means to take back;
        when another is last now (a double submit), nothing happens and :class:`Stale` says so."""
        with self._lock:
            if expected is not None and expected != self.last_move_seq:
                raise Stale("that move has already been taken back or another came after it; "
                            "look at the log again before undoing")
            if not self.move_seqs:
                raise UserError("there is no move to take back")
            was_finished = self.finished
            action = self.move_actions[self.move_seqs[-1]]
            with self._atomic("the undo"):
                self._append({"type": "undo"})
                if was_finished:
                    self.store.reopen_game(self.game_id)
                self._replay()
            self.pending = None
            dice = sorted(action.get("dice") or [])
            if len(dice) == 5:
                # The turn taken back rolled these dice, wherever they are now: the drawing the player makes
                # instead is judged with them (left as spent, or taken out of the tray, the drawing waited for
                # a roll that never came and was never recorded). A roll lying in the tray since, the next
                # player's, stays theirs: it is not a new roll of this turn.
                in_tray = self.turn_dice
                self.turn_dice = dice
                self.spent_dice = in_tray if in_tray is not None and in_tray != dice else None
            self.ignored_diff = [dict(p) for p in action.get("place", [])] or None
            self._confirm_action(action, "undone")
            self._changed()

    def correct_cell(self, player: int, cell: str, item: str, reason: str = "misread",
                     expected: int | None = None, *, remember: bool = False) -> str:
        """A cell as it really is, changed in the game at once; returns a sentence saying what changed.

        A cell drawn in an earlier move rewrites that move (the game is replayed); a cell of the drawing
        under dispute, asked about or in progress is judged again; a drawing the camera missed joins the
        player's last move. The camera's reading of the cell is made to agree with the game. ``remember``
        (asked for by the players) keeps a standing rule: the camera's present reading of that cell means
        ``item``. ``expected``: the log length the request was made on; a longer log now (another
        correction or move came first) refuses it with :class:`Stale`."""
        with self._lock, self._atomic("the correction"):
            if expected is not None and expected != self.event_count:
                raise Stale("the game changed since this correction was made (another correction or "
                            "move came first); look at the board again and resend it")
            if not 0 <= player < len(self.names):
                raise UserError(f"no player {player + 1}")
            cell, item = parse_cell(cell), parse_item(item)
            who = self.names[player]
            if item == "W" and cell not in LAYOUT.outer_cells:
                raise UserError(f"{cell} is an inner space: walls are drawn only on the outer spaces")
            if cell in LAYOUT.printed_crates:
                raise UserError(f"{cell} is a crate printed on the board; it cannot be changed")
            seat = self.seats[player]
            self._confirm(player, {cell: item}, "correction")  # what is drawn there: an example of the hand
            board = self.last_boards.get(seat)
            read = city_cell(board["city"], cell) if board is not None else None
            in_game = city_cell(self.state.players[player].city, cell)

            def agree() -> None:  # the camera's misreading there now means what the game holds
                if read is not None and read not in (".", item):  # an empty reading: not drawn yet
                    self.aliases[(seat, cell)] = (read, item)

            question = self.question
            if question is not None and player == question.player and read is not None and in_game == ".":
                # a cell of the drawing asked about, said by hand: read the drawing again with it
                self.aliases[(seat, cell)] = (read, item)
                seen = self.seen_city(seat)
                assert seen is not None
                new, _ = diff_city(self.state.players[player].city, seen)
                self._append({"type": "note", "text": f"Cell {cell} of {who} is {item_name(item)} ({reason})."})
                if new != question.seen:
                    self.pending = None
                    if new:
                        self._read_drawing(player, list(question.choices[0]["dice"]), new)
                    else:
                        self._record({"type": "withdrawn", "how": "drawing erased"})
                else:
                    self._replay()
                    self._changed()
                return f"{cell} of {who} is now {item_name(item) if item != '.' else 'empty'}; the drawing is read again."
            events = self.store.events(self.game_id)
            target = self._move_that_drew(events, player, cell)
            if self.dispute is not None and player == self.current_player() and (
                    target is None or any(p["cell"] == cell for p in self.dispute.action.get("place", []))):
                place = [dict(p) for p in self.dispute.action.get("place", []) if p["cell"] != cell]
                if item != ".":
                    place.append({"cell": cell, "item": item})
                place.sort(key=lambda p: ALL_CELLS.index(p["cell"]))
                dice = self.dispute.action.get("dice") or self.turn_dice or []
                fixed = infer_action(player, dice, place)
                agree()
                self._append({"type": "correction", "target": -1, "cell": cell, "item": item,
                              "action": fixed, "reason": reason})
                if place:
                    verdict = self._judge_and_record(fixed, source="hand")
                    return (f"{cell} of {who} is now {item_name(item)}; "
                            + ("the drawing is legal and was taken." if verdict.legal
                               else "the drawing still breaks a rule."))
                self._record({"type": "resolved", "how": "drawing erased"})
                return f"{cell} of {who} is now empty; the disputed drawing is gone."
            if target is None and in_game == "." and item != ".":
                if self.pending is not None and self.pending["player"] == player:
                    self.pending["place"] = sorted(
                        [p for p in self.pending["place"] if p["cell"] != cell] + [{"cell": cell, "item": item}],
                        key=lambda p: ALL_CELLS.index(p["cell"]))
                    self.pending["since"] = self.clock()
                    agree()
                    self._changed()
                    return f"{cell} of {who} is now {item_name(item)} in the drawing in progress."
                target = self._last_move_of(events, player)
                if target is None:
                    raise UserError(f"{who} has no move yet that {cell} could belong to; enter the move by hand")
            if target is not None and in_game != item:
                seq, action = target
                place = [dict(p) for p in action.get("place", []) if p["cell"] != cell]
                if item != ".":
                    place.append({"cell": cell, "item": item})
                place.sort(key=lambda p: ALL_CELLS.index(p["cell"]))
                fixed = infer_action(player, action.get("dice", []), place) if action.get("symbol") != "log" \
                    else dict(action)
                fixed["turned"] = max(fixed["turned"], 0)
                if remember:
                    self._remember(seat, cell, read, item, player)
                else:
                    agree()
                self._record({"type": "correction", "target": seq, "cell": cell, "item": item,
                              "action": fixed, "reason": reason})
                entry = next((e for e in self.log if e.seq == seq), None)
                kept = entry is not None and entry.kind == "override" and entry.legal is False
                now = item_name(item) if item != "." else "empty"
                return (f"{cell} of {who} is now {now}; the game was replayed"
                        + (" (that move now breaks a rule and is kept as drawn)." if kept else "."))
            # the game already holds what the players say: the camera is what is wrong there
            if read is None or read == item:
                raise UserError(f"{cell} of {who} is already empty" if item == "." else
                                f"{cell} of {who} already holds {item_name(item)}")
            if remember:
                self._remember(seat, cell, read, item, player)
                self._replay()  # the note joins the log
            else:
                agree()
            if self.pending is not None:
                self.pending["since"] = self.clock()
            self._changed()
            return f"{cell} of {who} stays {item_name(item)}; the camera's reading there is set aside."

    def _remember(self, seat: int, cell: str, read: str | None, item: str, player: int) -> None:
        """A standing rule the players asked for: this reading of this cell means ``item``."""
        if read is None:
            raise UserError(f"the camera has not seen {self.names[player]}'s board; nothing to remember")
        self.aliases[(seat, cell)] = (read, item)
        self._append({"type": "note", "text": f"The camera's reading of {cell} of {self.names[player]} "
                      f"({item_name(read) if read != '.' else 'empty'}) is taken as {item_name(item)} "
                      "from now on, as the players asked."})

    def _last_move_of(self, events: list[dict[str, Any]], player: int) -> tuple[int, dict[str, Any]] | None:
        corrections = {int(e["target"]): e["action"] for e in events if e.get("type") == "correction"}
        for seq in reversed(self.move_seqs):
            action = corrections.get(seq, events[seq]["action"])
            if int(action.get("player", -1)) == player and action.get("symbol") not in (None, "log"):
                return seq, action
        return None

    def _move_that_drew(self, events: list[dict[str, Any]], player: int,
                        cell: str) -> tuple[int, dict[str, Any]] | None:
        corrections = {int(e["target"]): e["action"] for e in events if e.get("type") == "correction"}
        for seq in reversed(self.move_seqs):
            action = corrections.get(seq, events[seq]["action"])
            if int(action.get("player", -1)) == player and any(p["cell"] == cell for p in action.get("place", [])):
                return seq, action
        return None

    # -- what the dashboard shows ------------------------------------------------------------------
    def pirate_track(self) -> dict[str, Any]:
        state = self._state_json()
        n = len(self.names)
        per_row = 2 * n
        marked = int(state.get("pirate_boxes", 0))
        rows = []
        for r, strength in enumerate(PIRATE_STRENGTHS):
            rows.append({"strength": strength, "boxes": per_row,
                         "marked": max(0, min(per_row, marked - r * per_row))})
        next_row = marked // per_row
        nxt: dict[str, Any] | None = None
        if next_row < len(PIRATE_STRENGTHS):
            strength = PIRATE_STRENGTHS[next_row]
            defences = [int(p.defence) for p in self.state.players]
            nxt = {"row": next_row, "strength": strength, "boxes_left": (next_row + 1) * per_row - marked,
                   "would_lose": [self.names[i] for i, d in enumerate(defences) if d < strength]}
        return {"rows": rows, "marked": marked, "per_row": per_row, "next": nxt, "seen": self.seen_pirate_boxes}

    def options(self, dice: Sequence[str] | None = None, limit: int = 20000) -> list[dict[str, Any]]:
        """The current player's legal options with these dice, summarised per symbol and dice used:
        how many ways, the cost in coins, the best immediate value (engine's option_value)."""
        dice = list(dice if dice is not None else (self.turn_dice or []))
        if len(dice) != 5 or self.finished:
            return []
        with self._lock:
            state = self.state
        summary: dict[tuple[str, int, int], dict[str, Any]] = {}
        for i, action in enumerate(legal_actions(state, dice)):
            if i >= limit:
                break
            a = action.to_json()
            key = (a["symbol"], dice_used(a), int(a.get("turned", 0)))
            value = float(option_value(state, action))
            entry = summary.get(key)
            if entry is None:
                summary[key] = entry = {"symbol": a["symbol"], "count": key[1], "turned": key[2], "ways": 0,
                                        "cost": 2 * key[2] + (2 if a["symbol"] == "log" else 0),
                                        "best_value": value, "best": a}
            entry["ways"] += 1
            if value > entry["best_value"]:
                entry["best_value"], entry["best"] = value, a
        order = {s: i for i, s in enumerate(SYMBOLS)}
        return sorted(summary.values(), key=lambda e: (order.get(e["symbol"], 9), e["count"], e["turned"]))

    def snapshot(self) -> dict[str, Any]:
        """Everything the dashboard shows, as JSON-able data."""
        with self._lock:
            state = self._state_json()
            players = []
            for i, p in enumerate(self.state.players):
                pj = state["players"][i]
                seat = self.seats[i]
                board = self.last_boards.get(seat)
                players.append({**pj, "index": i, "seat": seat, "defence": int(p.defence),
                                "uncertain": board["uncertain"] if board else [],
                                "seen": board is not None,
                                "readings": [{"cell": cell, "read": read, "as": truth}
                                             for (a_seat, cell), (read, truth) in sorted(self.aliases.items())
                                             if a_seat == seat]})
            return {
                "game_id": self.game_id,
                "version": self.version,
                "names": self.names,
                "language": self.language,
                "players": players,
                "current_player": int(state["current_player"]),
                "pirate_boxes": int(state.get("pirate_boxes", 0)),
                "pirates": self.pirate_track(),
                "dice": self.turn_dice,
                "pending": self.pending,
                "dispute": self.dispute.to_json() if self.dispute else None,
                "question": self.question.to_json() if self.question else None,
                "warnings": list(self.warnings),
                "log": [e.to_json() for e in self.log],
                "tally": self.tally,
                "finished": self.finished,
                "can_undo": bool(self.move_seqs),
                "last_move_seq": self.last_move_seq,
                "event_count": self.event_count,
            }


def _effects_between(before: Any, after: Any) -> dict[str, Any]:
    """Effects of an overridden move, read off the states (the engine's apply_forced has no verdict)."""
    b, a = before.to_json(), after.to_json()
    p = int(b["current_player"])
    pb, pa = b["players"][p], a["players"][p]
    return {"vp": pa["vp"] - pb["vp"], "coins": pa["coins"] - pb["coins"], "logs": pa["logs"] - pb["logs"],
            "pirate_boxes": a["pirate_boxes"] - b["pirate_boxes"], "attacks": []}
