"""The demo table: bots play a whole game; every moment of each turn is rendered as a camera frame and
goes through the REAL vision pipeline and tracker, at a watchable pace.

A turn shows three views: the roll lying in the tray, the drawing on the player's board (with the
pirate boxes the swords marked), the tray emptied. Once per game a player first draws something
illegal (a wall on an inner space, or an extra crate apart); the tracker raises a dispute, the
dashboard shows it, and a few seconds later the player erases it and the legal move is taken.
When the camera misreads (it happens: hand-drawn cells), the demo's players do what real ones would:
correct the cell by hand, or enter the move by hand.
"""

from __future__ import annotations

import contextlib
import ctypes
import random
import sys
import threading
import time
from typing import Any

import numpy as np

from companion.bots import mixed_table
from companion.layout import cell_index, draw_on_city
from companion.rules import Action, judge
from companion.tracker import Tracker, city_cell, infer_action

DEMO_NAMES = ("Anke", "Ben", "Carla", "Dario", "Eva")
INNER_ROWS = range(1, 6)
FRAMES_PER_VIEW = 10


def _release_free_memory() -> None:
    """Hand the renderer's freed scratch images back to the system (glibc keeps them otherwise)."""
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to do
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def illegal_variant(city: list[str], action: dict[str, Any]) -> list[dict[str, str]] | None:
    """The move as a careless player first draws it: walls get one more wall on an inner space; crates get
    one more crate apart from the group. None when this move has no such variant."""
    place = action.get("place", [])
    if action.get("symbol") == "wall" and place:
        for r in INNER_ROWS:
            for c in "BCDEF":
                cell = f"{c}{r + 1}"
                if city_cell(city, cell) == "." and all(p["cell"] != cell for p in place):
                    return [*place[:-1], {"cell": cell, "item": "W"}]
    if action.get("symbol") == "crate" and place:
        taken = {p["cell"] for p in place}
        near = set()
        for p in place:
            col, row = cell_index(p["cell"])
            for dc in (-1, 0, 1):
                for dr in (-1, 0, 1):
                    near.add((col + dc, row + dr))
        for r in INNER_ROWS:
            for c in range(1, 6):
                cell = f"{'ABCDEFG'[c]}{r + 1}"
                if (c, r) not in near and cell not in taken and city_cell(city, cell) == ".":
                    return [*place, {"cell": cell, "item": "G"}]
    return None


class DemoTable(threading.Thread):
    """Plays one demo game on ``service`` (web.service.TableService) in a background thread."""

    def __init__(self, service: Any, *, pace: float = 1.0, seed: int = 7, n_players: int = 3,
                 illegal_after: int = 2, hold_frames: int = 2, language: str = "en",
                 dispute_seconds: float | None = None) -> None:
        super().__init__(name="demo", daemon=True)
        self.service = service
        self.pace = pace
        self.seed = seed
        self.n_players = n_players
        self.illegal_after = illegal_after
        self.hold_frames = hold_frames
        self.language = language
        # how long a dispute waits for the players before the demo's player fixes the board
        self.dispute_seconds = 40 * pace if dispute_seconds is None else dispute_seconds
        self.stop_event = threading.Event()
        self.disputes_shown = 0
        self.hand_fixes = 0
        self.questions_answered = 0
        self.turns = 0
        self.error = ""
        self.finished = threading.Event()

    def stop(self) -> None:
        self.stop_event.set()

    # -- frames -----------------------------------------------------------------------------------
    def _setup_vision(self) -> None:
        from vision.pipeline import TableReader
        from vision.stability import StabilityFilter
        from vision.synth import table as synth_table

        self.synth = synth_table
        self.reader = TableReader(language=self.language)
        self.stability = StabilityFilter(hold_frames=self.hold_frames)
        self.frame_rng = np.random.default_rng(self.seed)

    def _render(self, cities: list[list[str]], dice: list[str], pirate_boxes: int) -> np.ndarray:
        # one seed for the whole game: the same table, camera and handwriting in every frame
        spec = self.synth.TableSpec(cities=tuple(tuple(c) for c in cities), dice=tuple(dice),
                                    pirate_boxes=pirate_boxes, seed=self.seed, language=self.language)
        frame, _truth = self.synth.render_table(spec, self.frame_rng)
        # render_table keeps its last few scenes (tens of MB each); the demo never shows one twice
        cache_clear = getattr(getattr(self.synth, "_scene", None), "cache_clear", None)
        if cache_clear is not None:
            cache_clear()
        _release_free_memory()
        return frame

    def show(self, cities: list[list[str]], dice: list[str], pirate_boxes: int, seconds: float) -> None:
        """Hold one view of the table in front of the camera for ``seconds``."""
        frame = self._render(cities, dice, pirate_boxes)
        # enough still frames for the reader to take this view as its new reference (so a fresh drawing
        # is not mistaken for a hand) and for the stability filter to commit it
        frames = FRAMES_PER_VIEW + self.hold_frames
        # render_table draws a table whose lighting and layout follow from the whole spec, so a new drawing
        # re-lights the entire synthetic frame; a real camera sees only the changed cell. Let the reader
        # start from this view instead of taking the whole table for a passing hand.
        self.reader.reset()
        for _ in range(frames):
            if self.stop_event.is_set():
                return
            started = time.monotonic()
            self.service.process_frame(frame, self.reader, self.stability)
            self.stop_event.wait(max(0.0, seconds / frames - (time.monotonic() - started)))

    # -- the game ---------------------------------------------------------------------------------
    def run(self) -> None:
        try:
            self._setup_vision()
            self.service.camera_status = "demo"
            self.service.camera_spec = "demo (synthetic frames)"
            tracker = self._resumable()
            if tracker is not None:
                print(f"companion serve: the demo resumes its game {tracker.game_id} (New game on the dashboard "
                      "starts a fresh one)", file=sys.stderr, flush=True)
            else:
                names = list(DEMO_NAMES[: self.n_players])
                tracker = self.service.new_game(names, start_player=0, language=self.language)
            self.play(tracker)
        except Exception as exc:  # the dashboard says so; the service keeps running
            self.error = f"{type(exc).__name__}: {exc}"
            print(f"companion serve: the demo stopped: {self.error}", file=sys.stderr, flush=True)
            self.service.camera_status, self.service.camera_error = "demo stopped", self.error[:200]
            self.service.publish()
        finally:
            self.finished.set()

    def _resumable(self) -> Tracker | None:
        """The demo's own unfinished game from an earlier run, to play on rather than set it aside."""
        tracker = self.service.tracker
        if tracker is None or tracker.finished or len(tracker.names) != self.n_players:
            return None
        meta = self.service.store.meta(tracker.game_id)
        return tracker if meta.get("demo") else None

    def play(self, tracker: Tracker) -> None:
        rng = random.Random(self.seed + tracker.event_count)
        bots = mixed_table(self.n_players, self.seed)
        # what is drawn on the real boards: the game's cities (empty at the start, as left when resumed)
        cities = [list(p.city) for p in tracker.state.players]
        illegal_done = any(e.kind == "dispute" for e in tracker.log)
        while not tracker.finished and not self.stop_event.is_set():
            state = tracker.state
            player = state.current_player
            action = bots[player].choose_action(state, rng).to_json()
            expected = judge(state, Action.from_json(action)).state
            self.show(cities, action["dice"], state.pirate_boxes, self.pace)
            self._clear_phantoms(tracker, cities)
            if not illegal_done and self.turns >= self.illegal_after:
                bad = illegal_variant(cities[player], action)
                if bad is not None:
                    illegal_done = True
                    shown = [draw_on_city(c, bad) if i == player else c for i, c in enumerate(cities)]
                    self.show(shown, action["dice"], state.pirate_boxes, self.pace * 2)
                    if tracker.dispute is not None:
                        self.disputes_shown += 1
                        if self._wait_for_the_table(tracker):
                            # the players settled it on the dashboard (override, a corrected cell): the board
                            # is made to show what the game now holds, and the next turn follows
                            cities[player] = list(tracker.state.players[player].city)
                            self.show(cities, [], tracker.state.pirate_boxes, self.pace)
                            self._clear_phantoms(tracker, cities)
                            self.turns += 1
                            continue
            cities[player] = draw_on_city(cities[player], action["place"])
            self.show(cities, action["dice"], expected.pirate_boxes, self.pace)
            self.show(cities, [], expected.pirate_boxes, self.pace)
            if self.stop_event.is_set():
                return
            self._make_it_right(tracker, state, action, expected)
            self._clear_phantoms(tracker, cities)
            self.turns += 1

    def _wait_for_the_table(self, tracker: Tracker) -> bool:
        """A dispute stays until it is settled: the players have ``dispute_seconds`` to override it or
        correct a cell on the dashboard; then the demo's player fixes the board. True: settled by them."""
        deadline = time.monotonic() + self.dispute_seconds
        while tracker.dispute is not None and time.monotonic() < deadline:
            if self.stop_event.wait(0.2):
                return False
        return tracker.dispute is None

    def _clear_phantoms(self, tracker: Tracker, cities: list[list[str]]) -> None:
        """Cells the camera reads as drawn on an empty space (smudges, misreads) are marked empty by hand,
        so they are not taken for part of the next drawing."""
        for player, city in enumerate(cities):
            seen = tracker.seen_city(tracker.seats[player])
            if seen is None:
                continue
            engine = tracker.state.players[player].city
            for r, row in enumerate(seen):
                for c, ch in enumerate(row):
                    if ch not in ".#" and engine[r][c] == "." and city[r][c] == ".":
                        tracker.correct_cell(player, f"{'ABCDEFG'[c]}{r + 1}", ".", reason="camera misread")
                        self.hand_fixes += 1

    def _make_it_right(self, tracker: Tracker, before: Any, action: dict[str, Any], expected: Any) -> None:
        """What players do when the camera got the turn wrong: correct cells, or enter the move by hand."""
        player = action["player"]
        question = tracker.question
        if question is not None and tracker.state.turn == before.turn:
            # the camera was unsure between two legal readings: the players tap the one they drew
            drawn = sorted((p["cell"], p["item"]) for p in action["place"])
            right = [k for k, c in enumerate(question.choices)
                     if sorted((p["cell"], p["item"]) for p in c["place"]) == drawn]
            if right:
                self.stop_event.wait(self.pace * 2)  # time to see the question on the dashboard
                tracker.answer_question(right[0], expected=question.seq)
                self.questions_answered += 1
                return
        if tracker.state.turn == before.turn:
            # not taken (misread dice, a misread cell made it illegal): type it in; that closes a dispute
            tracker.enter_move(action)
            self.hand_fixes += 1
            return
        if tracker.state == expected:
            return
        got = tracker.state.players[player].city
        want = expected.players[player].city
        wrong = [f"{'ABCDEFG'[k]}{r + 1}" for r, row in enumerate(got) for k, ch in enumerate(row) if ch != want[r][k]]
        if wrong and infer_action(player, action["dice"], action["place"])["symbol"] == action["symbol"]:
            for cell in wrong:
                tracker.correct_cell(player, cell, city_cell(want, cell), reason="camera misread")
            self.hand_fixes += 1
        last = tracker.last_action
        if tracker.state != expected and last is not None and last.get("player") == player:
            tracker.undo()  # e.g. logs delivered with dice turned: the camera cannot see the lumber store
            tracker.enter_move(action)
            self.hand_fixes += 1
